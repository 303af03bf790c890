import { Command, InvalidArgumentError } from 'commander';
import { initRepository, MAX_INIT_SHARDS } from '../init/write-repository.ts';
import { formatInitSummary } from '../init/summary.ts';

export function initCommand(): Command {
  return new Command('init')
    .description(
      "write a programme's repository: the nightly workflow, the Worker and its wrangler.toml, a .gitignore and a README section naming what to fill in",
    )
    .argument('[dir]', 'the repository folder', '.')
    .option('--sharded <n>', `a sharded night: prepare once, then N shard jobs (2 to ${MAX_INIT_SHARDS}) and a commit`, shardCount)
    .option('--force', 'overwrite those files (and replace the README section) when they are there already', false)
    .action((dir: string, options: { sharded?: number; force: boolean }) => {
      const result = initRepository({ dir, sharded: options.sharded ?? null, force: options.force });
      process.stdout.write(formatInitSummary(result));
    });
}

function shardCount(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 2 || value > MAX_INIT_SHARDS)
    throw new InvalidArgumentError(`expected a whole number from 2 to ${MAX_INIT_SHARDS}`);
  return value;
}
