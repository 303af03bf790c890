import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { UserError } from '../core/errors.ts';
import { DateTime } from 'luxon';
import { readTreeMeta } from '../tree/tree-meta.ts';
import { parseLocation } from '../publish/location.ts';
import type { SnapshotMeta } from '../schemas/meta.ts';
import { ENDPOINTS, filled, PARAMETERS, parametersOf } from '../schemas/endpoints.ts';

export function serveCommand(): Command {
  return new Command('serve')
    .description('preview a snapshot tree over HTTP, as the /v1 API')
    .option('--dir <dir>', 'the tree to serve', 'public')
    .option('--port <n>', 'port (0 picks a free one)', port, 8080)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--runtime <runtime>', 'node: the Node server; workerd: the Cloudflare Worker over a local R2 bucket loaded from --dir')
        .choices(['node', 'workerd'])
        .default('node'),
    )
    .option(
      '--from <s3-url>',
      'with --runtime workerd: serve what publish wrote to s3://BUCKET[/PREFIX] (copied into the local bucket, following later publishes)',
    )
    .option('--endpoint <url>', 'with --from: the S3-compatible endpoint (R2, MinIO, a local server)')
    .action(async (options: { dir: string; port: number; host: string; runtime: 'node' | 'workerd'; from?: string; endpoint?: string }) => {
      if (options.from !== undefined) {
        checkFrom(options.from);
        if (options.runtime !== 'workerd')
          throw new UserError('--from serves a published bucket through the Worker: give --runtime workerd');
        const { startWorkerdFromBucket } = await import('../preview/workerd.ts');
        let worker;
        try {
          // Each switch to another version (a publish, a rollback) is logged: when, which, and the copy's time.
          worker = await startWorkerdFromBucket({
            from: options.from,
            endpoint: options.endpoint,
            port: options.port,
            host: options.host,
            log: (line) => process.stdout.write(`${line}\n`),
          });
        } catch (error) {
          throw error instanceof UserError ? error : new UserError(`cannot serve ${options.from}: ${(error as Error).message}`);
        }
        process.stdout.write(`serving ${options.from} at ${worker.url} (Cloudflare Worker in workerd, R2 copied from the bucket)\n`);
        const stopWorker = async () => {
          await worker.close();
          process.exit(0);
        };
        process.once('SIGINT', stopWorker);
        process.once('SIGTERM', stopWorker);
        return;
      }
      const dir = path.resolve(options.dir);
      const meta = readTreeMeta(dir);
      if (!meta) throw new UserError(`${dir} holds no snapshot tree (run wallet-snapshot build first)`);
      // Loaded here, not at the top: Miniflare alone takes about half a second to import, which
      // every other command would pay at startup.
      const start =
        options.runtime === 'workerd'
          ? (await import('../preview/workerd.ts')).startWorkerd
          : (await import('../server/index.ts')).startPreviewServer;
      let running: { url: string; close(): Promise<void> };
      try {
        running = await start({ dir, port: options.port, host: options.host });
      } catch (error) {
        // A tree workerd refuses to load (edited after its build...) says so in its own words.
        if (error instanceof UserError) throw error;
        throw new UserError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`, undefined, { cause: error });
      }
      process.stdout.write(
        `serving ${dir} at ${running.url}${options.runtime === 'workerd' ? ' (Cloudflare Worker in workerd, R2 loaded from the folder)' : ''}\n`,
      );
      printExamples(meta, running.url);
      const stop = async () => {
        await running.close();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

/** `--from` names what `publish --to` was given, and is refused before anything starts, naming `--from`. */
function checkFrom(text: string): void {
  if (!/^s3:\/\/[^/]+/.test(text))
    throw new UserError(`--from ${text}: expected s3://BUCKET[/PREFIX], the location publish --to was given`);
  parseLocation(text, '--from');
}

function port(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return value;
}

/**
 * A URL to try for each endpoint (the endpoint table's, in its order): an address endpoint's for
 * the example wallet (a wallet with sub-accounts), with its last week of days when it takes a
 * range; a season endpoint's for each season.
 */
function printExamples(meta: SnapshotMeta, url: string): void {
  const range = meta.dailyAsOf ? `?from=${DateTime.fromISO(meta.dailyAsOf).minus({ days: 6 }).toISODate()}&to=${meta.dailyAsOf}` : '';
  const examples = Object.values(ENDPOINTS).flatMap((endpoint) => {
    const kinds = parametersOf(endpoint.path);
    if (kinds.includes('address') && !meta.exampleWallet) return [];
    const seasons = kinds.includes('season') ? meta.seasons.map((season) => `${PARAMETERS.season.prefix}${season}`) : [null];
    return seasons.map((season) => {
      const path = filled(endpoint.path, { address: meta.exampleWallet ?? undefined, season: season ?? undefined });
      return `${url}${path}${endpoint.range ? range : ''}`;
    });
  });
  process.stdout.write(`try:\n${examples.map((example) => `  ${example}`).join('\n')}\n`);
}
