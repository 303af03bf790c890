/**
 * A chain of nights for the incremental-night suites (test/incremental.test.ts,
 * test/slow/incremental-chain.test.ts): each night's export holds the whole history up to its last
 * closed day, as a real export does, and a night may restate its past. Twelve wallets earn points
 * on most days of two seasons (season 1 frozen, season 2 live) with repeated rows, mixed letter
 * cases and fractions; they hold balances that move on some days, priced every day.
 */
import path from 'node:path';
import * as assert from 'uvu/assert';
import { balance, buildReusingThreads, tempDir, treeHashes, writeInputs, type Row, type Tables } from './fixtures.ts';
import { days } from './nights.ts';
import { resolveBuildConfig } from '../../build/config.ts';
import { prepareNight, type PrepareSummary } from '../../build/prepare.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';

export const CHAIN_WALLETS = Array.from({ length: 12 }, (_, i) => `0x${(0xc0 + i).toString(16)}${'7'.repeat(38)}`);
export const SEASON_ONE_END = '2025-09-30';
const FIRST_DAY = '2025-09-01';

/** The instant of the night whose last closed day is `last`: noon in New York the day after. */
export const nightOf = (last: string) => new Date(Date.parse(`${last}T16:00:00Z`) + 86_400_000).toISOString().replace('.000Z', 'Z');

/** The export of the night whose last closed day is `last`: every row dated up to it. */
export function chainExport(
  last: string,
  change: (tables: Required<Pick<Tables, 'balances' | 'prices' | 'points' | 'seasons' | 'tokens'>>) => void = () => {},
): Tables {
  const every = days(FIRST_DAY, last);
  const tables = {
    balances: CHAIN_WALLETS.flatMap((address, w) =>
      every
        .filter((_, d) => (d + w) % 9 === 0)
        .map((date, d) =>
          balance({
            address,
            block_number: 1_000 * (every.indexOf(date) + 1) + w,
            timestamp: Date.parse(`${date}T15:00:00Z`) / 1000,
            balance: String((w + 1) * 1_000_000 + d * 17),
          }),
        ),
    ),
    prices: every.flatMap((date, d): Row[] => [{ chain_id: 1, token: 'uty', date, usd_price: 1 + (d % 5) / 100 }]),
    points: CHAIN_WALLETS.flatMap((address, w) =>
      every.flatMap((date, d): Row[] => {
        if ((d + w) % 4 === 3) return [];
        const season = date <= SEASON_ONE_END ? 1 : 2;
        const written = w % 3 === 0 ? address.toUpperCase().replace('0X', '0x') : address;
        const rows: Row[] = [{ season, date, address: written, points: ((w * 7 + d * 3) % 11) / 4 }];
        if ((d + w) % 5 === 0) rows.push({ season, date, address, points: 0.1 });
        return rows;
      }),
    ),
    seasons: [
      { season: 1, as_of: SEASON_ONE_END },
      { season: 2, as_of: null },
    ] as Row[],
    tokens: [1, 10, 8453].flatMap((chain_id) =>
      TOKEN_KEYS.map((token) => ({
        chain_id,
        token,
        decimals: token === 'venueBUsdc' ? 6 : 18,
      })),
    ),
  };
  change(tables);
  return tables;
}

export interface ChainNight {
  input: string;
  now: string;
  summary: PrepareSummary;
}

/** Prepares `tables` as the night whose last closed day is `last`, into `out`, reusing `since` when given. */
export async function prepareChainNight(
  root: string,
  name: string,
  last: string,
  tables: Tables,
  options: { shards: number; since?: string; out?: string },
): Promise<ChainNight> {
  const input = await writeInputs(path.join(root, `${name}-input`), tables);
  const now = nightOf(last);
  const out = options.out ?? path.join(root, name);
  const summary = await prepareNight({
    ...resolveBuildConfig({ input, out, now, progress: 'quiet', threads: 1 }),
    shards: options.shards,
    since: options.since ?? null,
  });
  return { input, now, summary };
}

/** Every shard folder of the night builds the tree `build --input --shard K/N` builds from the same export. */
export async function expectShardTreesAsBuilt(night: ChainNight): Promise<void> {
  const { shards } = night.summary;
  for (let k = 1; k <= shards; k++) {
    const fromFolder = path.join(tempDir(), 'prepared');
    await buildReusingThreads({ prepared: night.summary.folders[k - 1]!, out: fromFolder, progress: 'quiet', threads: 1 });
    const fromInput = path.join(tempDir(), 'input');
    await buildReusingThreads({
      input: night.input,
      out: fromInput,
      now: night.now,
      shard: `${k}/${shards}`,
      progress: 'quiet',
      threads: 1,
    });
    assert.equal(
      treeHashes(fromFolder),
      treeHashes(fromInput),
      `shard ${k} of ${shards}: the tree of the prepared folder differs from the tree of build --input --shard`,
    );
  }
}
