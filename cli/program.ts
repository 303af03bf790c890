/**
 * `wallet-snapshot`'s commands, and the exit code each outcome gives: `runCli` parses the arguments,
 * runs the command and returns its code, nothing more. cli/main.ts runs it for the process.
 * Exit codes: 0 success; 1 bad input, bad option value or failed verification; 2 usage error
 * (unknown command or option); 3 out of DuckDB's memory limit; 4 the disk refused the writes
 * (full, read-only, a file size limit); 5 object storage or the network still failed after every
 * retry (publish; rerunning resumes); 70 unexpected internal error (a bug; --debug prints its
 * stack); 75 another build holds --out (try again later); 130 interrupted (SIGINT, SIGTERM), 129
 * (SIGHUP).
 */
import { Command, CommanderError } from 'commander';
import { EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_USAGE, UserError, messageOf } from '../core/errors.ts';
import { buildCommand } from './build.ts';
import { verifyCommand } from './verify.ts';
import { serveCommand } from './serve.ts';
import { publishCommand } from './publish.ts';
import { prepareCommand } from './prepare.ts';
import { initCommand } from './init.ts';
import type { BuildRuntime } from '../build/index.ts';
import { RELEASE as version } from '../core/release.ts';

/**
 * Runs the command `argv` names (as `process.argv`: node, the script, then the arguments) and
 * returns its exit code. `build` is given `runtime`: none in a real run; the test harness that
 * stops a build where a power cut would passes its faults (test/helpers/cli-with-faults.ts).
 */
export async function runCli(argv: string[], runtime: BuildRuntime = {}): Promise<number> {
  const program = new Command('wallet-snapshot')
    .description('Static JSON snapshots of wallet portfolios and points leaderboards, from Parquet exports')
    .version(version, '-V, --version', 'print the version and exit')
    .option('--debug', 'print the stack of unexpected errors')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    // The program's own options only before the command: `publish --commit --version ID` names a
    // version to commit, it does not print the program's version.
    .enablePositionalOptions();

  for (const command of [buildCommand(runtime), prepareCommand(), verifyCommand(), serveCommand(), publishCommand(), initCommand()]) {
    // addCommand does not pass these settings down the way .command() does; --debug is accepted
    // after the command too, as it always was.
    program.addCommand(
      command.option('--debug', 'print the stack of unexpected errors').exitOverride().showHelpAfterError('(run with --help for usage)'),
    );
  }

  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    return exitCodeOf(error, program.opts<{ debug?: boolean }>().debug || argv.includes('--debug'));
  }
}

function exitCodeOf(error: unknown, debug: boolean): number {
  if (error instanceof CommanderError) {
    // Commander has printed its message already; help and version end successfully, and an
    // option given a value it cannot take is a bad option value, like a bad --now.
    if (error.exitCode === 0) return 0;
    return error.code === 'commander.invalidArgument' ? EXIT_BAD_INPUT : EXIT_USAGE;
  }
  if (error instanceof UserError) {
    process.stderr.write(`wallet-snapshot: ${error.message}\n`);
    // The error a refusal was made from, in its own words (a DuckDB, file-system or S3 error).
    if (debug) printCauses(error.cause, '  ');
    return error.exitCode;
  }
  process.stderr.write(`wallet-snapshot: internal error: ${messageOf(error)}\n`);
  process.stderr.write(debug && error instanceof Error ? `${error.stack}\n` : '(run again with --debug for the stack)\n');
  return EXIT_INTERNAL;
}

/** Each cause of a refusal with its stack, those of an AggregateError (several files) one by one. */
function printCauses(cause: unknown, indent: string): void {
  for (; cause !== undefined; cause = cause instanceof Error ? cause.cause : undefined) {
    process.stderr.write(`${indent}caused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}\n`);
    if (cause instanceof AggregateError) for (const each of cause.errors) printCauses(each, `${indent}  `);
  }
}
