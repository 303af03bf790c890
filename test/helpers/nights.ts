/**
 * The nights the guard's suites publish (test/night-guard.test.ts, test/slow/night-guard.test.ts):
 * a base night of literal rows, and copies altered so that one rule of the night's guard
 * (docs/reliability.md#the-rules) refuses each.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { balance, unix, type Row, type Tables } from './fixtures.ts';
import { BUCKET, type RunningS3 } from './s3-server.ts';
import { runPublish, type PublishCommandOptions } from '../../publish/index.ts';
import { UserError } from '../../core/errors.ts';
import type { RuleName } from '../../tree/night-rules.ts';

export const NOW = '2025-11-21T17:00:00Z';
export const LAST = '2025-11-20';
export const WALLETS = Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
/** The five wallets that also hold yuty. */
const YUTY_HOLDERS = WALLETS.slice(0, 5);

export function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = Date.parse(`${from}T00:00:00Z`); day <= Date.parse(`${to}T00:00:00Z`); day += 86_400_000)
    out.push(new Date(day).toISOString().slice(0, 10));
  return out;
}

/**
 * Twenty wallets holding 100 uty from 2025-10-01 (five of them also 10 yuty); uty at $1 and yuty
 * at $2 every day: $2,100 a day. Season 1 frozen at 2025-10-15 (10 points each on 2025-10-01),
 * season 2 live (5 points each on 2025-11-01).
 */
export function night(change: (tables: Required<Pick<Tables, 'balances' | 'prices' | 'points' | 'seasons'>>) => void = () => {}): Tables {
  const at = unix('2025-10-01T12:00:00-04:00');
  const tables = {
    balances: [
      ...WALLETS.map((address, i) => balance({ address, block_number: 100 + i, timestamp: at, balance: '100000000000000000000' })),
      ...YUTY_HOLDERS.map((address, i) =>
        balance({ address, block_number: 200 + i, timestamp: at, token: 'yuty', balance: '10000000000000000000' }),
      ),
    ],
    prices: days('2025-09-01', LAST).flatMap((date): Row[] => [
      { chain_id: 1, token: 'uty', date, usd_price: 1 },
      { chain_id: 1, token: 'yuty', date, usd_price: 2 },
    ]),
    points: WALLETS.flatMap((address): Row[] => [
      { season: 1, date: '2025-10-01', address, points: 10 },
      { season: 2, date: '2025-11-01', address, points: 5 },
    ]),
    seasons: [
      { season: 1, as_of: '2025-10-15' },
      { season: 2, as_of: null },
    ] as Row[],
  };
  change(tables);
  return tables;
}

export const ALTERED: Record<RuleName, { tables: Tables; now?: string; says: RegExp[] }> = {
  'frozen-season': {
    tables: night((t) => (t.points[0]!.points = 20)),
    says: [/rule frozen-season: live s1 [0-9a-f]{12} \(20 participants\), this night s1 [0-9a-f]{12} \(20 participants\)/],
  },
  wallets: {
    tables: night((t) => (t.balances = t.balances.filter((row) => row.address !== WALLETS[18] && row.address !== WALLETS[19]))),
    says: [
      /rule wallets: live 20 wallets, this night 18 wallets \(-10\.0%\)/,
      /the number of wallets falls by more than 5% \(--max-wallet-drop\)/,
      /explained by it: restated/,
    ],
  },
  participants: {
    tables: night(
      (t) => (t.points = t.points.filter((row) => !(row.season === 2 && (row.address === WALLETS[0] || row.address === WALLETS[1])))),
    ),
    says: [/rule participants: live s2: 20 participants, this night s2: 18 participants \(-10\.0%/, /--max-participant-drop/],
  },
  restated: {
    tables: night((t) =>
      t.prices.filter((row) => row.date === '2025-11-10' && row.token === 'uty').forEach((row) => (row.usd_price = 1.1)),
    ),
    says: [
      /rule restated: live 2025-11-10: \$2,100\.00, this night 2025-11-10: \$2,300\.00 \(\+9\.52%/,
      /by more than 1% \(--max-restatement\)/,
    ],
  },
  'day-change': {
    tables: night((t) => t.prices.filter((row) => row.date === LAST).forEach((row) => (row.usd_price = 3 * Number(row.usd_price)))),
    says: [
      /rule day-change: the day before 2025-11-19: \$2,100\.00, the last day 2025-11-20: \$6,300\.00 \(\+200\.0%\)/,
      /by more than 50% \(--max-day-change\)/,
    ],
  },
  unpriced: {
    tables: night((t) => (t.prices = t.prices.filter((row) => row.token !== 'yuty'))),
    says: [
      /rule unpriced: live 0 of 25 positions on 2025-11-20 without a price, this night 5 of 25 positions on 2025-11-20 without a price \(0\.0% → 20\.0%\)/,
      /positions without a price rise to 5% of the last day's positions or more from a live night below 5% \(--max-unpriced\)/,
    ],
  },
  backwards: {
    tables: night(),
    now: '2025-11-14T17:00:00Z',
    says: [/rule backwards: live last closed day 2025-11-20, this night last closed day 2025-11-13/],
  },
};

export function publishTo(
  s3: RunningS3,
  dir: string | undefined,
  prefix: string,
  options: Partial<PublishCommandOptions> = {},
): Promise<string> {
  return runPublish({
    dir,
    to: `s3://${BUCKET}/${prefix}`,
    endpoint: s3.endpoint,
    concurrency: 8,
    maxAttempts: 2,
    progress: 'quiet',
    ...options,
  });
}

/** The pointer's bytes as s3rver stores them. */
export function pointerBytes(s3: RunningS3, prefix: string): string {
  return fs.readFileSync(path.join(s3.directory, BUCKET, prefix, 'live.json._S3rver_object'), 'utf8');
}

export async function refusal(action: () => Promise<unknown>): Promise<UserError> {
  try {
    await action();
  } catch (error) {
    assert.instance(error, UserError);
    return error as UserError;
  }
  throw new Error('expected a refusal, the night went live');
}

/**
 * One rule's case: the altered night is refused naming the rule, both figures and the flag, the
 * pointer's bytes unchanged; `--accept` that rule publishes it; a rollback makes the base live again.
 */
export async function refusedThenAccepted(s3: RunningS3, prefix: string, rule: RuleName, dir: string): Promise<void> {
  const before = pointerBytes(s3, prefix);
  const error = await refusal(() => publishTo(s3, dir, prefix));
  assert.is(error.exitCode, 1);
  assert.match(
    error.message,
    new RegExp(
      `^publish refused: version \\S+ does not go live at s3://snapshots/${prefix}; the live version \\S+ is untouched\\. 1 rule refused the night:`,
    ),
  );
  for (const words of ALTERED[rule]!.says) assert.match(error.message, words);
  assert.match(error.message, `if this change is known, publish it with --accept ${rule}`);
  assert.is(pointerBytes(s3, prefix), before);
  assert.match(await publishTo(s3, dir, prefix, { accept: [rule] }), /^published version /);
  assert.is.not(pointerBytes(s3, prefix), before);
  assert.match(await publishTo(s3, undefined, prefix, { rollback: true }), /^rolled back /);
  assert.is(JSON.parse(pointerBytes(s3, prefix)).version, JSON.parse(before).version);
}
