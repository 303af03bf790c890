// Entry of a wallet writer thread: like bin/wallet-snapshot.js, load TypeScript through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./wallet-writer.ts');
