/**
 * The `wallet-snapshot` process: its commands run (cli/program.ts), their exit code its own.
 * Started through npx or an npm script, it stops when npm does (core/signals.ts).
 */
import { stopWhenOrphaned } from '../core/signals.ts';
import { runCli } from './program.ts';

stopWhenOrphaned();
process.exitCode = await runCli(process.argv);
