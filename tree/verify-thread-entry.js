// Entry of verify's threads: like bin/wallet-snapshot.js, load TypeScript through tsx, then the
// thread's own module.
import { register } from 'tsx/esm/api';

register();
await import('./verify-thread.ts');
