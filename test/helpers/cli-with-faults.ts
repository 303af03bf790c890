/**
 * The CLI with faults injected (build/faults.ts), for the tests that stop a real build process
 * where a power cut or a hung mount would: `node --import tsx cli-with-faults.ts [--kill-at POINT]
 * [--blocking-read FIFO] -- <the CLI's arguments>`.
 */
import { injectedFaults, type SwapPoint } from '../../build/faults.ts';

const separator = process.argv.indexOf('--');
const own = process.argv.slice(2, separator);
for (let i = 0; i < own.length; i += 2) {
  if (own[i] === '--kill-at') injectedFaults.killAt = own[i + 1] as SwapPoint;
  else if (own[i] === '--blocking-read') injectedFaults.blockingRead = own[i + 1];
  else throw new Error(`cli-with-faults: unknown option ${own[i]}`);
}
process.argv = [process.argv[0]!, process.argv[1]!, ...process.argv.slice(separator + 1)];
await import('../../cli/main.ts');
