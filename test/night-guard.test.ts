/**
 * The night's guard and report (docs/reliability.md#guard): the night's summary in the tree, exact; every rule's
 * judgement (refused, accepted, explained by another rule); end to end on s3rver, a night altered
 * so that a rule refuses is refused at `publish` (and at `--commit` for a sharded night) naming the
 * rule, the live pointer's bytes as they were, and goes live with `--accept` that rule; a first
 * publish says there is nothing to compare; a normal night goes live, its report (in --report FILE
 * and $GITHUB_STEP_SUMMARY) holding the rules table and charts a real Mermaid parser accepts.
 * The other rules end to end, and through the CLI (exit codes, stderr): test/slow/night-guard.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Mermaid as MermaidApi } from 'mermaid';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, tempDir, type Built } from './helpers/fixtures.ts';
import { S3_CREDENTIALS, startS3Server, type RunningS3 } from './helpers/s3-server.ts';
import { launchBrowser } from './helpers/browser.ts';
import { ALTERED, LAST, NOW, days, night, pointerBytes, publishTo, refusal, refusedThenAccepted } from './helpers/nights.ts';
import type { NightSummary } from '../schemas/night-summary.ts';
import {
  DEFAULT_THRESHOLDS,
  judgeNight,
  notJudged,
  parsePercent,
  parseRuleNames,
  type RuleName,
  type Thresholds,
} from '../tree/night-rules.ts';
import { NightRefused, publishReportMarkdown, refusalLines } from '../publish/guard.ts';
import { buildReportMarkdown } from '../build/report.ts';
import { addShardSummaries } from '../tree/night-summary.ts';
import { verifyTree } from '../tree/verify.ts';

let s3: RunningS3;
let base: Built;
let summary: NightSummary;
/** The frozen-season night built whole, which its shards add up to. */
let frozenWhole: Built;
const PREFIX = 'nightly';

test.before(async () => {
  Object.assign(process.env, S3_CREDENTIALS);
  s3 = await startS3Server();
  base = await build(night(), { now: NOW });
  summary = base.json('_snapshot/night/1-of-1.json');
});

test.after(async () => {
  await s3?.close();
});

test("the night's summary: wallets, positions, each day's total USD value, participants per day, exact", () => {
  assert.equal(summary.shard, { index: 1, count: 1 });
  assert.equal(
    [summary.lastClosedDay, summary.asOf, summary.wallets, summary.positions, summary.positionsWithoutPrice],
    [LAST, LAST, 20, 25, 0],
  );
  assert.equal(
    summary.days.map((day) => day.date),
    days('2025-10-17', LAST),
  );
  assert.equal(new Set(summary.days.map((day) => day.totalValueUsd)), new Set([2100]));
  assert.equal(
    summary.seasons.map(({ leaderboardSha256: _, ...season }) => season),
    [
      { season: 1, frozen: true, asOf: '2025-10-15', participants: 20, participantsByDay: Array(35).fill(20) },
      { season: 2, frozen: false, asOf: '2025-11-01', participants: 20, participantsByDay: [...Array(15).fill(0), ...Array(20).fill(20)] },
    ],
  );
  // The digest is of the leaderboard's bytes as written.
  assert.is(summary.seasons[0]!.leaderboardSha256, crypto.createHash('sha256').update(base.text('v1/leaderboard/s1.json')).digest('hex'));
});

test('verify proves the summary unedited and checks it against the files it summarises', async () => {
  const copy = path.join(tempDir(), 'tree');
  fs.cpSync(base.out, copy, { recursive: true, dereference: true });
  assert.equal((await verifyTree(copy)).failures, []);
  const file = path.join(copy, '_snapshot/night/1-of-1.json');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"participants":20', '"participants":21'));
  assert.equal((await verifyTree(copy)).failures, [
    '_snapshot/night/1-of-1.json: edited (its bytes are not the ones the build wrote)',
    '_snapshot/night/1-of-1.json: season 1 has 21 participants, its leaderboard 20',
  ]);
});

/** The verdict of each rule when `change` is applied to a copy of the base night's summary. */
function verdicts(change: (night: NightSummary) => void, accept: RuleName[] = []): Record<string, string> {
  const altered: NightSummary = structuredClone(summary);
  change(altered);
  const judged = judgeNight(summary, altered, DEFAULT_THRESHOLDS, new Set(accept));
  return Object.fromEntries(
    judged.rows.filter((row) => row.verdict !== 'ok').map((row) => [row.rule, `${row.verdict}${row.note ? ` (${row.note})` : ''}`]),
  );
}

test('each rule at its threshold: refused beyond it, not at it; --accept; a rule explained by its cause', () => {
  assert.equal(
    verdicts(() => {}),
    {},
  );
  assert.equal(
    verdicts((n) => (n.seasons[0]!.leaderboardSha256 = '0'.repeat(64))),
    { 'frozen-season': 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.seasons[1]!.leaderboardSha256 = '0'.repeat(64))),
    {},
    'a live season may change',
  );
  assert.equal(
    verdicts((n) => (n.wallets = 19)),
    {},
    '5% is not more than 5%',
  );
  assert.equal(
    verdicts((n) => (n.wallets = 18)),
    { wallets: 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.wallets = 18), ['wallets']),
    { wallets: 'accepted' },
  );
  assert.equal(
    verdicts((n) => ((n.wallets = 18), (n.days[3]!.totalValueUsd = 1890))),
    { wallets: 'refused', restated: 'explained (explained by wallets)' },
  );
  assert.equal(
    verdicts((n) => (n.seasons[1]!.participants = 19)),
    {},
  );
  assert.equal(
    verdicts((n) => (n.seasons[1]!.participants = 18)),
    { participants: 'refused' },
  );
  assert.equal(
    verdicts((n) => ((n.seasons[0]!.participants = 18), (n.seasons[0]!.leaderboardSha256 = '0'.repeat(64)))),
    { 'frozen-season': 'explained (explained by participants)', participants: 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.days[3]!.totalValueUsd = 2121)),
    {},
    '1% is not more than 1%',
  );
  assert.equal(
    verdicts((n) => (n.days[3]!.totalValueUsd = 2121.5)),
    { restated: 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.days[34]!.totalValueUsd = 2121.5)),
    {},
    "the last day is day-change's, not restated's",
  );
  assert.equal(
    verdicts((n) => (n.days[34]!.totalValueUsd = 3150)),
    {},
    '50% is not more than 50%',
  );
  assert.equal(
    verdicts((n) => (n.days[34]!.totalValueUsd = 3151)),
    { 'day-change': 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.days[34]!.totalValueUsd = 0)),
    { 'day-change': 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.positionsWithoutPrice = 1)),
    {},
    '1 of 25 is below 5%',
  );
  assert.equal(
    verdicts((n) => ((n.positions = 20), (n.positionsWithoutPrice = 1))),
    { unpriced: 'refused' },
    '1 of 20 reaches 5%',
  );
  assert.equal(
    verdicts((n) => ((n.positionsWithoutPrice = 5), (n.days[0]!.totalValueUsd = 2000))),
    { unpriced: 'refused', restated: 'explained (explained by unpriced)' },
  );
  assert.equal(
    verdicts((n) => (n.lastClosedDay = '2025-11-19')),
    { backwards: 'refused' },
  );
  assert.equal(
    verdicts((n) => ((n.lastClosedDay = '2025-11-19'), (n.positionsWithoutPrice = 25))),
    { unpriced: 'explained (explained by backwards)', backwards: 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.seasons[1]!.asOf = '2025-10-31')),
    { backwards: 'refused' },
  );
  assert.equal(
    verdicts((n) => (n.seasons[1]!.asOf = null)),
    { backwards: 'refused' },
  );
  assert.equal(
    verdicts((n) => ((n.lastClosedDay = '2025-11-13'), (n.wallets = 10))),
    { wallets: 'explained (explained by backwards)', backwards: 'refused' },
  );
  const judged = notJudged(summary, DEFAULT_THRESHOLDS, 'First publish');
  assert.equal([...new Set(judged.rows.map((row) => row.verdict))], ['not judged']);
  assert.equal(judged.refusals, []);
});

/** `unpriced` on a live night of `was` [without a price, positions] and this night's `is`: its verdict, change and threshold. */
function unpriced(was: [number, number], is: [number, number], thresholds: Partial<Thresholds> = {}) {
  const at = (figures: [number, number]): NightSummary => ({ ...summary, positionsWithoutPrice: figures[0], positions: figures[1] });
  const row = judgeNight(at(was), at(is), { ...DEFAULT_THRESHOLDS, ...thresholds }, new Set()).rows.find((one) => one.rule === 'unpriced')!;
  return { verdict: row.verdict, change: row.change, threshold: row.threshold };
}

test('unpriced judges a rise: to 5% or more from below 5%, or by more than 1 point from 5% or more', () => {
  const verdict = (was: [number, number], is: [number, number], thresholds?: Partial<Thresholds>) => unpriced(was, is, thresholds).verdict;
  // From a live night below 5%: reaching 5% refuses, just below does not.
  assert.is(verdict([0, 2000], [100, 2000]), 'refused', 'exactly 5% from 0%');
  assert.is(verdict([0, 2000], [99, 2000]), 'ok', '4.95% stays below');
  assert.is(verdict([98, 2000], [100, 2000]), 'refused', '4.9% to 5.0% crosses the level');
  assert.is(verdict([0, 0], [1, 20]), 'refused', 'a live night with no position is at 0%');
  assert.is(verdict([0, 25], [0, 0]), 'ok', 'no position this night: nothing without a price');
  // From a live night at 5% or more: a rise of more than 1 percentage point refuses.
  assert.is(verdict([139, 1000], [140, 1000]), 'ok', '13.9% to 14.0%: a steady share');
  assert.is(verdict([139, 1000], [149, 1000]), 'ok', '13.9% to 14.9%: exactly 1 point (0.149 - 0.139 is not 0.01 in doubles)');
  assert.is(verdict([1390, 10000], [1491, 10000]), 'refused', '13.90% to 14.91%: 1.01 points');
  assert.is(verdict([139, 1000], [150, 1000]), 'refused', '13.9% to 15.0%');
  assert.is(verdict([50, 1000], [60, 1000]), 'ok', 'exactly 5% live: the rise rule, 1 point passes');
  assert.is(verdict([50, 1000], [61, 1000]), 'refused', 'exactly 5% live: 1.1 points refuses');
  assert.is(verdict([200, 1000], [100, 1000]), 'ok', 'a fall');
  assert.is(verdict([139, 1000], [1000, 1000]), 'refused', 'a feed that stopped: every position without a price');
  // Both thresholds are options.
  assert.is(verdict([139, 1000], [150, 1000], { unpricedRise: 0.02 }), 'ok', '--max-unpriced-rise 2');
  assert.is(verdict([139, 1000], [160, 1000], { unpricedRise: 0.02 }), 'refused', '2.1 points beyond --max-unpriced-rise 2');
  assert.is(verdict([139, 1000], [149, 1000], { unpriced: 0.15 }), 'ok', 'below --max-unpriced 15%');
  assert.is(verdict([139, 1000], [150, 1000], { unpriced: 0.15 }), 'refused', '15.0% reaches --max-unpriced 15% from below');
  assert.is(verdict([150, 1000], [155, 1000], { unpriced: 0.15 }), 'ok', 'at --max-unpriced 15%, half a point');
  // The change shows the shares, and the points where the rise is what is judged.
  assert.equal(unpriced([0, 25], [5, 25]), {
    verdict: 'refused',
    change: '0.0% → 20.0%',
    threshold:
      "positions without a price rise to 5% of the last day's positions or more from a live night below 5% (--max-unpriced), or by more than 1 percentage point from one at 5% or more (--max-unpriced-rise)",
  });
  assert.equal(unpriced([139, 1000], [150, 1000], { unpriced: 0.1, unpricedRise: 0.025 }), {
    verdict: 'ok',
    change: '13.9% → 15.0%, +1.10 points',
    threshold:
      "positions without a price rise to 10% of the last day's positions or more from a live night below 10% (--max-unpriced), or by more than 2.5 percentage points from one at 10% or more (--max-unpriced-rise)",
  });
});

test('every rule states the thresholds it is judged by, judged or not', () => {
  const thresholds: Thresholds = {
    walletDrop: 0.1,
    participantDrop: 0.2,
    restatement: 0.03,
    dayChange: 0.4,
    unpriced: 0.07,
    unpricedRise: 0.02,
  };
  const expected = {
    'frozen-season': "a frozen season's leaderboard differs in any byte",
    wallets: 'the number of wallets falls by more than 10% (--max-wallet-drop)',
    participants: "a season's participants fall by more than 20% (--max-participant-drop)",
    restated: "a past day's total USD value differs from the live night's by more than 3% (--max-restatement)",
    'day-change': "the last day's total USD value differs from the day before's by more than 40% (--max-day-change)",
    unpriced:
      "positions without a price rise to 7% of the last day's positions or more from a live night below 7% (--max-unpriced), or by more than 2 percentage points from one at 7% or more (--max-unpriced-rise)",
    backwards: "the last closed day or an asOf is earlier than the live night's",
  };
  for (const judgement of [judgeNight(summary, summary, thresholds, new Set()), notJudged(summary, thresholds, 'A build')]) {
    assert.equal(Object.fromEntries(judgement.rows.map((row) => [row.rule, row.threshold])), expected);
  }
  // A wallet drop of 10% passes at --max-wallet-drop 10%, and is refused at the default.
  const fewer = { ...summary, wallets: 18 };
  assert.equal(judgeNight(summary, fewer, thresholds, new Set()).refusals, []);
  assert.equal(
    judgeNight(summary, fewer, DEFAULT_THRESHOLDS, new Set()).refusals.map((row) => row.rule),
    ['wallets'],
  );
});

test("the refusal and the report are made from the judgement's value alone", () => {
  const fewer: NightSummary = {
    ...summary,
    wallets: 18,
    days: summary.days.map((day, i) => (i === 3 ? { ...day, totalValueUsd: 1890 } : day)),
  };
  const judgement = judgeNight(summary, fewer, DEFAULT_THRESHOLDS, new Set());
  const location = { bucket: 'snapshots', prefix: 'prod' };
  const context = { what: 'publish', version: '2025-11-20-aaaaaaaaaaaaaaaa', live: '2025-11-19-bbbbbbbbbbbbbbbb' };
  assert.equal(refusalLines(judgement, context, location), [
    'publish refused: version 2025-11-20-aaaaaaaaaaaaaaaa does not go live at s3://snapshots/prod; the live version 2025-11-19-bbbbbbbbbbbbbbbb is untouched. 1 rule refused the night:',
    '  - rule wallets: live 20 wallets, this night 18 wallets (-10.0%); it refuses when the number of wallets falls by more than 5% (--max-wallet-drop); if this change is known, publish it with --accept wallets',
    '  (moved with it, and explained by it: restated, 2025-10-20: $2,100.00 → 2025-10-20: $1,890.00)',
    'to publish it anyway, once: the same command with --accept wallets',
  ]);
  assert.is(refusalLines(judgeNight(summary, fewer, DEFAULT_THRESHOLDS, new Set(['wallets'])), context, location), null);
  const markdown = publishReportMarkdown(
    'publish refused',
    ['the night was refused', '', 'sent 0 objects'],
    { night: fewer, judgement, seconds: 0.25 },
    { 'list the tree': 1.5 },
  );
  assert.match(
    markdown,
    '## publish refused\n\nthe night was refused\n\n| count | value |\n| --- | --- |\n| last closed day | 2025-11-20 |\n| asOf | 2025-11-20 |\n| wallets | 18 |\n',
  );
  assert.match(
    markdown,
    '| total USD value on 2025-11-20 | $2,100.00 |\n| positions on 2025-11-20 | 25, 0 without a price |\n| publish | sent 0 objects |\n',
  );
  assert.match(
    markdown,
    '| `wallets` | 20 wallets | 18 wallets | -10.0% | the number of wallets falls by more than 5% (--max-wallet-drop) | ⛔ refused |',
  );
  assert.match(
    markdown,
    '### Warnings\n\n- rule `restated` explained by wallets: 2025-10-20: $2,100.00 → 2025-10-20: $1,890.00 (-10.00%, the day that moved most)\n',
  );
  assert.match(markdown, '| list the tree | 1.5 |\n| judge the night (guard) | 0.3 |\n');
});

test("the build's report: the night's counts, then the build's, every day's unpriced positions named apart from the last day's", () => {
  const markdown = buildReportMarkdown({ ...base.summary, dailyPositionsWithoutPrice: 12345, balanceRows: 1234 }, '/srv/tree');
  assert.match(
    markdown,
    /^## wallet-snapshot build: \/srv\/tree\n\nBuilt 20 wallets, \d+ files \([^)]+\) in [\d.]+s; last closed day 2025-11-20\.\n/,
  );
  assert.match(
    markdown,
    '| wallets | 20 |\n| participants s1 (frozen) | 20 (asOf 2025-10-15) |\n| participants s2 | 20 (asOf 2025-11-01) |\n| total USD value on 2025-11-20 | $2,100.00 |\n' +
      '| positions on 2025-11-20 | 25, 0 without a price |\n| positions without a price in the daily documents (every day) | 12,345 |\n| balance rows | 1,234 |\n',
  );
  assert.match(
    markdown,
    '| `wallets` | - | 20 wallets | - | the number of wallets falls by more than 5% (--max-wallet-drop) | — not judged |',
  );
});

test('thresholds are percentages; --accept takes known rule names only', () => {
  assert.is(parsePercent('5%'), 0.05);
  assert.is(parsePercent('250'), 2.5);
  assert.throws(() => parsePercent('five'), /^expected a percentage such as 5% \(got "five"\)$/);
  assert.equal(parseRuleNames('wallets,restated'), ['wallets', 'restated']);
  assert.throws(
    () => parseRuleNames('day-change,prices'),
    /^expected rule names separated by commas, among frozen-season, wallets, participants, restated, day-change, unpriced, backwards \(got "day-change,prices"\)$/,
  );
});

test('shards add up: counts and sums, the shared facts once; a shard that disagrees is named', () => {
  const half = (index: number, share: number): NightSummary => ({
    ...structuredClone(summary),
    shard: { index, count: 2 },
    wallets: 10,
    positions: share,
    days: summary.days.map((day) => ({ ...day, totalValueUsd: day.totalValueUsd / 2 })),
    seasons: summary.seasons.map((season) => ({ ...season, participantsByDay: season.participantsByDay.map((count) => count / 2) })),
  });
  assert.equal(addShardSummaries([half(1, 12), half(2, 13)]), summary);
  const other = half(2, 13);
  other.seasons[0]!.participants = 19;
  assert.throws(
    () => addShardSummaries([half(1, 12), other]),
    /^the night summary of shard 2 of 2 disagrees with shard 1's on the facts every shard shares/,
  );
});

test('a first publish says there is nothing to compare, and goes live', async () => {
  const report = path.join(tempDir(), 'report.md');
  assert.match(await publishTo(s3, base.out, PREFIX, { report }), /^published version 2025-11-20-/);
  const text = fs.readFileSync(report, 'utf8');
  assert.match(text, 'First publish: no version is live, so there is nothing to compare.');
  assert.match(text, '| `wallets` | - | 20 wallets | - | the number of wallets falls by more than 5% (--max-wallet-drop) | — not judged |');
});

test('rule frozen-season: refused naming it, the pointer untouched; --accept frozen-season publishes it', async () => {
  frozenWhole = await build(ALTERED['frozen-season']!.tables, { now: NOW });
  await refusedThenAccepted(s3, PREFIX, 'frozen-season', frozenWhole.out);
});

test('rule day-change: refused naming it, the pointer untouched; another rule accepted changes nothing; a threshold option lets it through', async () => {
  const tree = await build(ALTERED['day-change'].tables, { now: NOW });
  await refusedThenAccepted(s3, PREFIX, 'day-change', tree.out);
  const before = pointerBytes(s3, PREFIX);
  await refusal(() => publishTo(s3, tree.out, PREFIX, { accept: ['wallets'] }));
  assert.is(pointerBytes(s3, PREFIX), before);
  assert.match(await publishTo(s3, tree.out, PREFIX, { maxDayChange: 2.5 }), /^published version /);
  await publishTo(s3, undefined, PREFIX, { rollback: true });
});

test('a rollback writes its report too: the night readers see again, nothing judged', async () => {
  const tree = await build(ALTERED['day-change'].tables, { now: NOW });
  await publishTo(s3, tree.out, PREFIX, { accept: ['day-change'] });
  const report = path.join(tempDir(), 'rollback.md');
  assert.match(await publishTo(s3, undefined, PREFIX, { rollback: true, report }), /^rolled back /);
  const text = fs.readFileSync(report, 'utf8');
  assert.match(text, /publish --rollback: version 2025-11-20-[0-9a-f]{16} is live again/);
  assert.match(text, 'A rollback: readers see version');
});

test('a normal night goes live; --report FILE and $GITHUB_STEP_SUMMARY hold the rules table and charts Mermaid parses', async () => {
  // The next night's exports: the same, and the next day's prices.
  const next = await build(
    night((t) =>
      t.prices.push(
        { chain_id: 1, token: 'uty', date: '2025-11-21', usd_price: 1 },
        { chain_id: 1, token: 'yuty', date: '2025-11-21', usd_price: 2 },
      ),
    ),
    { now: '2025-11-22T17:00:00Z' },
  );
  const folder = tempDir();
  const report = path.join(folder, 'report.md');
  const stepSummary = path.join(folder, 'step-summary.md');
  fs.writeFileSync(stepSummary, '# earlier step\n');
  process.env.GITHUB_STEP_SUMMARY = stepSummary;
  try {
    assert.match(await publishTo(s3, next.out, PREFIX, { report }), /^published version 2025-11-21-/);
  } finally {
    delete process.env.GITHUB_STEP_SUMMARY;
  }
  const text = fs.readFileSync(report, 'utf8');
  assert.is(fs.readFileSync(stepSummary, 'utf8'), `# earlier step\n${text}`);
  assert.match(text, /^## wallet-snapshot publish: version 2025-11-21-[0-9a-f]{16} is live\n/);
  assert.match(text, '| rule | was | is | change | refuses when (threshold) | verdict |');
  for (const rule of ['frozen-season', 'wallets', 'participants', 'restated', 'day-change', 'unpriced', 'backwards']) {
    assert.match(text, new RegExp(`\\| \`${rule}\` \\|[^\\n]*\\| ✅ ok \\|`));
  }
  assert.match(text, '| `wallets` | 20 wallets | 20 wallets | 0.0% |');
  assert.match(text, '| `restated` | 2025-10-18: $2,100.00 | 2025-10-18: $2,100.00 | 0.00%, the day that moved most |');
  const charts = [...text.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((match) => match[1]!);
  assert.is(charts.length, 2);
  assert.match(charts[0]!, 'title "Total USD value of all wallets (thousand USD)"');
  assert.match(charts[0]!, `    line [${Array(35).fill(2.1).join(', ')}]`);
  assert.match(charts[1]!, 'title "Participants per day: s1 (frozen), s2"');
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    // Mermaid's browser bundle, the one GitHub's renderer is built from.
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js') });
    const parse = (texts: string[]) =>
      page.evaluate(async (all) => {
        const mermaid = (globalThis as unknown as { mermaid: MermaidApi }).mermaid;
        const results: string[] = [];
        for (const one of all) {
          try {
            results.push((await mermaid.parse(one)).diagramType);
          } catch (error) {
            results.push(`error: ${(error as Error).message}`);
          }
        }
        return results;
      }, texts);
    assert.equal(await parse(charts), ['xychart', 'xychart']);
    // The parser is strict: a chart with a broken line is refused (so the check above means something).
    const [broken] = await parse([charts[0]!.replace('line [', 'line [oops, ')]);
    assert.match(broken!, /^error: /);
  } finally {
    await browser.close();
  }
  await publishTo(s3, undefined, PREFIX, { rollback: true });
});

test("sharded: a frozen season changed is refused at the commit, on the shards' summaries added up; accepted, they are the night's", async () => {
  const before = pointerBytes(s3, PREFIX);
  for (const shard of ['1/2', '2/2']) {
    const tree = await build(ALTERED['frozen-season']!.tables, { now: NOW, shard });
    assert.match(await publishTo(s3, tree.out, PREFIX), /^staged shard /);
    assert.is(pointerBytes(s3, PREFIX), before);
  }
  const error = await refusal(() => publishTo(s3, undefined, PREFIX, { commit: true }));
  assert.is(error.exitCode, 1);
  // The refusal carries the judgement its message and report were made from.
  assert.instance(error, NightRefused);
  const refused = error as NightRefused;
  assert.equal(
    refused.outcome.judgement.refusals.map((row) => row.rule),
    ['frozen-season'],
  );
  assert.is(refused.context.live, JSON.parse(before).version);
  assert.is(refused.outcome.night.shard.count, 1, "the shards' summaries added up");
  assert.match(
    error.message,
    /^--commit refused: version \S+ does not go live at s3:\/\/snapshots\/nightly; the live version \S+ is untouched/,
  );
  assert.match(
    error.message,
    /rule frozen-season: live s1 [0-9a-f]{12} \(20 participants\), this night s1 [0-9a-f]{12} \(20 participants\)/,
  );
  assert.match(error.message, 'if this change is known, publish it with --accept frozen-season');
  assert.is(pointerBytes(s3, PREFIX), before);
  assert.match(await publishTo(s3, undefined, PREFIX, { commit: true, accept: ['frozen-season'] }), /^committed version /);
  const version = JSON.parse(pointerBytes(s3, PREFIX)).version as string;
  const stored = JSON.parse(
    fs.readFileSync(path.join(s3.directory, 'snapshots', PREFIX, 'versions', version, '_publish', 'summary.json._S3rver_object'), 'utf8'),
  ) as NightSummary;
  assert.equal(stored, frozenWhole.json('_snapshot/night/1-of-1.json'));
});

test.run();
