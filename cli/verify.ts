import { Command, Option } from 'commander';
import { verifyTree } from '../tree/verify.ts';
import { UserError } from '../core/errors.ts';
import { countOf } from '../core/format.ts';
import { Progress, type ProgressMode } from '../core/progress.ts';
import { parseShard } from '../core/shard.ts';
import { summaryJsonWriter } from '../core/summary-json.ts';
import { VerifySummaryJsonSchema, type VerifySummaryJson } from '../schemas/verify-summary.ts';

export function verifyCommand(): Command {
  return new Command('verify')
    .description('check a whole tree against the response schemas and its cross-file invariants')
    .option('--dir <dir>', 'the tree to check', 'public')
    .option('--shard <k/n>', 'the tree is shard K of N of a sharded build (its participants only)')
    .addOption(new Option('--progress <mode>', 'progress output').choices(['auto', 'tty', 'lines', 'quiet']).default('auto'))
    .option('--summary-json <file>', 'also write the outcome as JSON (schemas/verify-summary.ts; docs/cli.md), passed or failed')
    .action(async (options: { dir: string; shard?: string; progress: ProgressMode; summaryJson?: string }) => {
      const started = performance.now();
      const shard = options.shard === undefined ? null : parseShard(options.shard);
      const writeSummaryJson = options.summaryJson ? summaryJsonWriter<VerifySummaryJson>(options.summaryJson, 'the tree was verified') : null;
      const result = await verifyTree(options.dir, { shard, progress: new Progress(options.progress) });
      writeSummaryJson?.(
        VerifySummaryJsonSchema.parse({
          command: 'verify',
          ok: result.failures.length === 0,
          target: options.dir,
          shard: shard && { index: shard.index, count: shard.count },
          coverage: result.coverage,
          files: result.files,
          wallets: result.wallets,
          failures: result.failures,
          truncated: result.truncated,
          seconds: (performance.now() - started) / 1000,
        }),
      );
      if (result.failures.length > 0) {
        const shown = result.failures.map((failure) => `  - ${failure}`).join('\n');
        throw new UserError(`${options.dir} fails verification (${result.truncated ? `${result.failures.length}+ problems` : countOf(result.failures.length, 'problem')}, first listed):\n${shown}`);
      }
      process.stdout.write(`verified ${options.dir}: ${result.coverage} as the build recorded it (every file present, none extra, every byte as written); ${result.files} documents conform to their schemas and invariants\n`);
    });
}
