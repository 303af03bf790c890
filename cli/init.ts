import { Command, InvalidArgumentError } from 'commander';
import { initRepository, MAX_INIT_SHARDS } from '../init/write-repository.ts';
import { formatInitSummary } from '../init/summary.ts';

export function initCommand(): Command {
  return new Command('init')
    .description(
      "write a programme's repository: the nightly workflow, the Worker and its wrangler.toml, and init's blocks in the .gitignore and the README (what to fill in)",
    )
    .argument('[dir]', 'the repository folder', '.')
    .option('--sharded <n>', `a sharded night: prepare once, then N shard jobs (2 to ${MAX_INIT_SHARDS}) and a commit`, shardCount)
    .option('--bucket <name>', 'the bucket the nights are published to, written in every file (with --prefix; without both: placeholders)')
    .option('--prefix <prefix>', 'the folder in the bucket the nights go under, written in every file (with --bucket)')
    .option(
      '--force',
      "overwrite the workflow, worker.js and wrangler.toml when they are there already, and rewrite init's blocks in .gitignore and README.md (your lines there stay)",
      false,
    )
    .action((dir: string, options: { sharded?: number; force: boolean; bucket?: string; prefix?: string }) => {
      const result = initRepository({
        dir,
        sharded: options.sharded ?? null,
        force: options.force,
        bucket: options.bucket,
        prefix: options.prefix,
      });
      process.stdout.write(formatInitSummary(result));
    });
}

function shardCount(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 2 || value > MAX_INIT_SHARDS)
    throw new InvalidArgumentError(`expected a whole number from 2 to ${MAX_INIT_SHARDS}`);
  return value;
}
