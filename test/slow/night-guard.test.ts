/**
 * The night's guard end to end for the rules the fast suite (test/night-guard.test.ts) judges on
 * summaries only: for each, a night built from exports altered that way is refused at `publish`
 * naming the rule, with the live pointer's bytes as they were, and goes live with `--accept` that
 * rule. Then the whole CLI: `--accept` and `--report` as a user types them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { balance, build, tempDir, unix } from '../helpers/fixtures.ts';
import { S3_CREDENTIALS, startS3Server, type RunningS3 } from '../helpers/s3-server.ts';
import { runCli } from '../helpers/process.ts';
import { ALTERED, NOW, WALLETS, night, pointerBytes, publishTo, refusal, refusedThenAccepted } from '../helpers/nights.ts';
import type { RuleName } from '../../tree/night-rules.ts';

let s3: RunningS3;
const PREFIX = 'nightly';

test.before(async () => {
  Object.assign(process.env, S3_CREDENTIALS);
  s3 = await startS3Server();
  await publishTo(s3, (await build(night(), { now: NOW })).out, PREFIX);
});

test.after(async () => {
  await s3?.close();
});

for (const rule of ['wallets', 'participants', 'restated', 'unpriced', 'backwards'] as RuleName[]) {
  test(`rule ${rule}: a night altered so is refused naming it, the pointer untouched; --accept ${rule} publishes it`, async () => {
    const altered = ALTERED[rule];
    await refusedThenAccepted(s3, PREFIX, rule, (await build(altered.tables, { now: altered.now ?? NOW })).out);
  });
}

test("the last day's prices missing (a feed that stopped: the day before's carried forward) is refused by unpriced alone; one token skipping the day is not", async () => {
  const tables = night((t) => (t.prices = t.prices.filter((row) => row.date !== '2025-11-20')));
  const tree = await build(tables, { now: NOW });
  const before = pointerBytes(s3, PREFIX);
  const error = await refusal(() => publishTo(s3, tree.out, PREFIX));
  assert.match(
    error.message,
    /1 rule refused the night:\n {2}- rule unpriced: live 0 of 25 positions on 2025-11-20 without a price, this night 25 of 25 positions on 2025-11-20 without a price \(0\.0% → 100\.0%\)/,
  );
  assert.is(pointerBytes(s3, PREFIX), before);
  assert.match(await publishTo(s3, tree.out, PREFIX, { accept: ['unpriced'] }), /^published version /);
  await publishTo(s3, undefined, PREFIX, { rollback: true });
  // One token without the last day's price, the other priced: carried forward as usual, not counted.
  const skipped = await build(
    night((t) => (t.prices = t.prices.filter((row) => !(row.date === '2025-11-20' && row.token === 'yuty')))),
    { now: NOW },
  );
  assert.match(await publishTo(s3, skipped.out, PREFIX), /^published version /);
  await publishTo(s3, undefined, PREFIX, { rollback: true });
});

test('a steady share of positions without a price above 5% goes live night after night; a rise of more than 1 point over it is refused, --max-unpriced-rise lets it through', async () => {
  // yuty never priced: 5 of 25 positions (20%) every night.
  const steady = (now: string, change: Parameters<typeof night>[0] = () => {}) =>
    build(
      night((t) => ((t.prices = t.prices.filter((row) => row.token !== 'yuty')), change(t))),
      { now },
    );
  const prefix = 'steady';
  assert.match(await publishTo(s3, (await steady(NOW)).out, prefix), /^published version /);
  const next = await steady('2025-11-22T17:00:00Z', (t) => t.prices.push({ chain_id: 1, token: 'uty', date: '2025-11-21', usd_price: 1 }));
  assert.match(await publishTo(s3, next.out, prefix), /^published version 2025-11-21-/, '20.0% → 20.0%: no rise');
  // The night after, two more wallets hold an unpriced token: 7 of 27 (25.9%), +5.9 points.
  const risen = await steady('2025-11-23T17:00:00Z', (t) => {
    t.prices.push(
      { chain_id: 1, token: 'uty', date: '2025-11-21', usd_price: 1 },
      { chain_id: 1, token: 'uty', date: '2025-11-22', usd_price: 1 },
    );
    const at = unix('2025-10-01T12:00:00-04:00');
    t.balances.push(
      ...WALLETS.slice(5, 7).map((address, i) =>
        balance({ address, block_number: 300 + i, timestamp: at, token: 'yuty', balance: '10000000000000000000' }),
      ),
    );
  });
  const before = pointerBytes(s3, prefix);
  const error = await refusal(() => publishTo(s3, risen.out, prefix));
  assert.match(
    error.message,
    'rule unpriced: live 5 of 25 positions on 2025-11-21 without a price, this night 7 of 27 positions on 2025-11-22 without a price (20.0% → 25.9%, +5.93 points)',
  );
  assert.is(pointerBytes(s3, prefix), before);
  assert.match(await publishTo(s3, risen.out, prefix, { maxUnpricedRise: 0.06 }), /^published version 2025-11-22-/);
});

test('the CLI: a refusal exits 1 with its words on stderr, the pointer untouched; --accept RULE publishes it, --report FILE holds the verdicts', async () => {
  const tree = await build(ALTERED.unpriced.tables, { now: NOW });
  const before = pointerBytes(s3, PREFIX);
  const report = path.join(tempDir(), 'report.md');
  const args = [
    'publish',
    '--dir',
    tree.out,
    '--to',
    `s3://snapshots/${PREFIX}`,
    '--endpoint',
    s3.endpoint,
    '--progress',
    'quiet',
    '--report',
    report,
  ];
  const refused = await runCli(args, { env: S3_CREDENTIALS });
  assert.is(refused.code, 1);
  assert.match(
    refused.stderr,
    'rule unpriced: live 0 of 25 positions on 2025-11-20 without a price, this night 5 of 25 positions on 2025-11-20 without a price (0.0% → 20.0%)',
  );
  assert.match(
    refused.stderr,
    "it refuses when positions without a price rise to 5% of the last day's positions or more from a live night below 5% (--max-unpriced), or by more than 1 percentage point from one at 5% or more (--max-unpriced-rise)",
  );
  assert.match(refused.stderr, 'to publish it anyway, once: the same command with --accept unpriced');
  assert.match(fs.readFileSync(report, 'utf8'), /^## publish refused: version \S+ did not go live\n/);
  assert.is(pointerBytes(s3, PREFIX), before);
  const accepted = await runCli([...args, '--accept', 'unpriced'], { env: S3_CREDENTIALS });
  assert.is(accepted.code, 0, accepted.stderr);
  assert.is.not(pointerBytes(s3, PREFIX), before);
  const text = fs.readFileSync(report, 'utf8');
  assert.match(text, /\| `unpriced` \| [^\n]*\| ⚠️ accepted \(--accept\) \|/);
  assert.match(text, /\| `restated` \| [^\n]*\| ℹ️ explained \(explained by unpriced\) \|/);
});

test.run();
