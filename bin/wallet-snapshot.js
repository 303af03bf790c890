#!/usr/bin/env node
// The CLI is written in TypeScript; tsx compiles it on the fly so that `npx wallet-snapshot`
// works right after `npm ci`, with no build step for the user.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
