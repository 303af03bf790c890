/**
 * The CLI with faults injected (build/faults.ts), for the tests that stop a real build process
 * where a power cut or a hung mount would: `node --import tsx cli-with-faults.ts [--kill-at POINT]
 * [--blocking-read FIFO] -- <the CLI's arguments>`. The faults are the build's parameter, given
 * through the CLI's runCli: the product has no other way in for them.
 */
import type { InjectedFaults, SwapPoint } from '../../build/faults.ts';
import { runCli } from '../../cli/program.ts';
import { stopWhenOrphaned } from '../../core/signals.ts';

const separator = process.argv.indexOf('--');
const own = process.argv.slice(2, separator);
const faults: InjectedFaults = {};
for (let i = 0; i < own.length; i += 2) {
  if (own[i] === '--kill-at') faults.killAt = own[i + 1] as SwapPoint;
  else if (own[i] === '--blocking-read') faults.blockingRead = own[i + 1];
  else throw new Error(`cli-with-faults: unknown option ${own[i]}`);
}
stopWhenOrphaned();
process.exitCode = await runCli([process.argv[0]!, process.argv[1]!, ...process.argv.slice(separator + 1)], { faults });
