// Entry of verify's threads: the thread's module (verify-thread.ts).
import { importThreadModule } from '../core/thread-module.js';

await importThreadModule(new URL('./verify-thread.ts', import.meta.url));
