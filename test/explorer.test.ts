/**
 * The explorer page in headless Chromium, against a host serving a tree built from the bundled
 * sample: it loads without a console error, shows every number as a person reads it (`$1,234.57`,
 * names of chains and tokens) with the JSON's exact text one hover or one click away, says what a
 * wallet is worth, draws the chart with a legend that needs no pointer and axis labels that are
 * never cut, asks the host for a range of days written YYYY-MM-DD (and still cuts it on a host
 * that ignores the query), jumps between sections, says clearly when an address is malformed or
 * has no history, and is usable at phone width and by keyboard. Screenshots go to test/screenshots/.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { parse, type LosslessNumber } from 'lossless-json';
import type { Browser, Page } from 'playwright-core';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { chainName, formatAmount, formatPrice, formatUsd, hasZeroPrice, sumDecimals, tokenName, usdChange } from '../explorer/format.ts';
import { buildReusingThreads, PINNED_NOW, tempDir } from './helpers/fixtures.ts';
import { DESKTOP, PHONE, launchBrowser, openPage, screenshot } from './helpers/browser.ts';
import { type RUNTIMES, startHost, type Host } from './helpers/hosts.ts';

const STORY_WALLET = '0xa11ce00000000000000000000000000000000001';
const UNKNOWN_WALLET = `0x${'12'.repeat(20)}`;
/** FIRST_STROKE of explorer/chart.ts, the total's line (chart.ts imports a stylesheet, so Node cannot load it). */
const TOTAL_STROKE_RGB = [0x1d, 0x4e, 0xd8];

type Exact = LosslessNumber;
const text = (value: Exact | string | null) => (value === null ? null : typeof value === 'string' ? value : value.value);

let tree: string;
let setUp: Promise<void> | null = null;
/** The sample built once for every runtime's suite. */
function buildTree(): Promise<void> {
  return (setUp ??= (async () => {
    tree = path.join(tempDir('ws-explorer-'), 'public');
    await buildReusingThreads({ input: 'data/sample', out: tree, now: PINNED_NOW, progress: 'quiet' });
  })());
}
const exact = (file: string): any => parse(fs.readFileSync(path.join(tree, file), 'utf8'));
const meta = () => JSON.parse(fs.readFileSync(path.join(tree, '_snapshot/meta.json'), 'utf8'));

/** The text of every body cell of a table, row by row. */
function rows(page: Page, name: string): Promise<string[][]> {
  return page.$$eval(`table[data-table="${name}"] tbody tr`, (trs) =>
    trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((cell) => cell.textContent ?? '')),
  );
}

/** Each body cell's JSON text (an amount's `data-exact`, a chain's or token's key, else the cell's text), row by row. */
function exactRows(page: Page, name: string): Promise<string[][]> {
  return page.$$eval(`table[data-table="${name}"] tbody tr`, (trs) =>
    trs.map((tr) =>
      [...(tr as HTMLTableRowElement).cells].map(
        (cell) =>
          cell.querySelector<HTMLElement>('[data-exact]')?.dataset.exact ??
          cell.querySelector<HTMLElement>('[data-key]')?.dataset.key ??
          cell.textContent ??
          '',
      ),
    ),
  );
}

/** The legend under a chart: each line's label and value, as shown. */
function legend(page: Page, chart = 'portfolio'): Promise<string[]> {
  return page.$$eval(`[data-chart="${chart}"] .legend li`, (items) =>
    items.map((item) => (item as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
  );
}

/** Shows day `index` of the range with the day slider, as a drag or an arrow key would. */
async function pickDay(page: Page, index: number, date: string): Promise<void> {
  await page.$eval(
    '#day-slider',
    (slider, value) => {
      (slider as HTMLInputElement).value = String(value);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    },
    index,
  );
  await page.waitForSelector(`[data-day="${date}"]`);
}

/** Pixels of the total's colour on the chart's canvas (anti-aliased edges aside). */
function totalLinePixels(page: Page): Promise<number> {
  return page.$eval(
    '[data-chart="portfolio"] canvas',
    (canvas, rgb) => {
      const { data } = (canvas as HTMLCanvasElement)
        .getContext('2d')!
        .getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (
          Math.abs(data[i]! - rgb[0]!) < 8 &&
          Math.abs(data[i + 1]! - rgb[1]!) < 8 &&
          Math.abs(data[i + 2]! - rgb[2]!) < 8 &&
          data[i + 3]! > 200
        )
          count++;
      }
      return count;
    },
    TOTAL_STROKE_RGB,
  );
}

async function openWallet(page: Page, address: string): Promise<void> {
  await page.fill('#address', address);
  await page.press('#address', 'Enter');
  await page.waitForSelector(`[data-wallet="${address.toLowerCase()}"]`).catch(async (error) => {
    throw new Error(`${(error as Error).message}\nthe wallet section shows: ${await page.textContent('#wallet-body')}`);
  });
}

/** A position's price and value as the page shows them: "no price or $0" when usdPerToken is 0 (either, docs/api.md). */
const priceShown = (p: any) => (text(p.usdPerToken) === '0' ? 'no price or $0' : formatPrice(text(p.usdPerToken)!));
const valueShown = (p: any) => (text(p.usdPerToken) === '0' ? 'no price or $0' : formatUsd(text(p.valueUsd)!));

/** Each season's points chart: drawn, its legend on the last day, its days' table, a rank axis with 1 at the top. */
async function checkPointsHistory(page: Page, address: string): Promise<void> {
  const history = exact(`v1/address/${address}/points/history.json`);
  assert.ok(history.seasons.length > 0, `${address} has a points history`);
  assert.is(await page.$$eval('[data-points-history]', (views) => views.length), history.seasons.length);
  for (const season of history.seasons) {
    const number = text(season.season)!;
    const chart = `points-s${number}`;
    await page.waitForSelector(`[data-chart="${chart}"] canvas`);
    const last = season.days.at(-1);
    assert.equal(await legend(page, chart), [
      `Day: ${last.date}`,
      `Total points: ${formatAmount(text(last.totalPoints)!, 2)} (${formatAmount(text(last.points)!, 2)} that day)`,
      `Rank (1 = top): ${last.rank === null ? 'no rank (no points yet)' : text(last.rank)}`,
    ]);
    assert.equal(
      await everyDay(page, number),
      [...season.days]
        .reverse()
        .map((day: any) => [day.date, text(day.points), text(day.totalPoints), day.rank === null ? 'no rank' : text(day.rank)]),
      `the days of season ${number}`,
    );
    const drawn = await axisLabels(page, chart);
    for (const label of drawn.labels)
      assert.ok(label.left >= 0 && label.right <= drawn.width, `${label.text} spans ${label.left}..${label.right} of ${drawn.width}px`);
    assert.is(drawn.inkAtEdges, 0, `no label ink at the edges of season ${number}'s chart`);
    // The rank's axis is upside down: a better (smaller) rank is drawn higher.
    const ranks = drawn.labels.filter((label) => label.axis === 'rank').sort((a, b) => Number(a.text) - Number(b.text));
    assert.ok(ranks.length >= 2, `season ${number} has rank labels`);
    for (let i = 1; i < ranks.length; i++)
      assert.ok(ranks[i]!.top > ranks[i - 1]!.top, `rank ${ranks[i]!.text} below rank ${ranks[i - 1]!.text}`);
  }
}

/**
 * A season's days as its folded table shows them, page after page (opened, then "Earlier days"
 * until there is none): each page at most a fortnight, the latest day first.
 */
async function everyDay(page: Page, season: string): Promise<string[][]> {
  const days = `[data-points-days="${season}"]`;
  await page.$eval(days, (details) => ((details as HTMLDetailsElement).open = true));
  const all: string[][] = [];
  for (;;) {
    const rows = await exactRows(page, `points-history-s${season}`);
    assert.ok(rows.length >= 1 && rows.length <= 14, `season ${season}: a page of ${rows.length} days`);
    assert.is(
      await page.textContent(`${days} [data-days-shown]`),
      `Days ${all.length + 1} to ${all.length + rows.length} of ${await page.$eval(days, (details) => details.querySelector('summary')!.textContent!.match(/\((\d+) days?/)![1])}, latest first: ${rows[0]![0]} back to ${rows.at(-1)![0]}.`,
    );
    all.push(...rows);
    const earlier = await page.$(`${days} [data-days-page="earlier"]`);
    if (!earlier || (await earlier.isDisabled())) break;
    await earlier.click();
    await page.waitForFunction(
      ([selector, first]) => !document.querySelector(`${selector} [data-days-shown]`)!.textContent!.startsWith(`Days ${first} `),
      [days, all.length - rows.length + 1] as const,
    );
  }
  await page.$eval(days, (details) => ((details as HTMLDetailsElement).open = false));
  return all;
}

/** Everything the page shows of one wallet, compared with its documents. */
async function checkWallet(page: Page, address: string): Promise<void> {
  const daily = exact(`v1/address/${address}/portfolio/daily.json`);
  const history = exact(`v1/address/${address}/portfolio.json`);
  const pointsFile = `v1/address/${address}/points.json`;
  const points = fs.existsSync(path.join(tree, pointsFile)) ? exact(pointsFile) : { seasons: [] };
  const days: any[] = daily.days;
  const latest = days[days.length - 1];

  await page.waitForSelector('[data-chart="portfolio"] canvas');
  assert.ok((await totalLinePixels(page)) > 100, 'the total is drawn on the chart');
  // The headline: the latest day's total, as a person reads it, with the JSON's text one hover away.
  assert.is(await page.textContent('[data-headline]'), formatUsd(text(latest.totalValueUsd)!));
  assert.is(await page.getAttribute('[data-headline] [data-exact]', 'data-exact'), text(latest.totalValueUsd));
  assert.match((await page.getAttribute('[data-headline] [data-exact]', 'title')) ?? '', text(latest.totalValueUsd)!);
  // The legend shows the last day without any pointer over the chart, each token by its name.
  const tokens = TOKEN_KEYS.filter((token) => days.some((day: any) => day.positions.some((position: any) => position.token === token)));
  const shownLegend = await legend(page);
  assert.is(shownLegend[0], `Day: ${latest.date}`);
  assert.equal(
    shownLegend.slice(1).map((item) => item.split(':')[0]),
    ['Total', ...tokens.map(tokenName)],
  );
  assert.ok(shownLegend[1]!.startsWith(`Total: ${formatUsd(text(latest.totalValueUsd)!)}`), shownLegend[1]);

  assert.is(await page.textContent('[data-day-shown]'), latest.date, 'the last day is shown first');
  const busiest = days.reduce((best, day) => (day.positions.length > best.positions.length ? day : best), days[0]);
  for (const day of [days[0], days[Math.floor(days.length / 2)], busiest, latest]) {
    await pickDay(page, days.indexOf(day), day.date);
    assert.is(await page.getAttribute('#day-slider', 'aria-valuetext'), day.date);
    assert.is((await legend(page))[0], `Day: ${day.date}`, 'the legend follows the chosen day');
    if (day.positions.length === 0) continue;
    assert.equal(
      await exactRows(page, 'positions'),
      day.positions.map((p: any) => [text(p.chainId), p.token, text(p.valueUsd), text(p.balance), text(p.usdPerToken)]),
      `exact positions of ${day.date}`,
    );
    assert.equal(
      await rows(page, 'positions'),
      day.positions.map((p: any) => [
        chainName(text(p.chainId)!),
        tokenName(p.token),
        valueShown(p),
        formatAmount(text(p.balance)!),
        priceShown(p),
      ]),
      `positions of ${day.date} as shown`,
    );
    assert.is(await page.textContent('[data-total]'), formatUsd(text(day.totalValueUsd)!));
    assert.is(await page.getAttribute('[data-total] [data-exact]', 'data-exact'), text(day.totalValueUsd));
  }

  for (const [chain, tokens] of Object.entries<any>(history)) {
    for (const token of TOKEN_KEYS) {
      const snapshots: any[] = tokens[token];
      const shown = await exactRows(page, `history-${chain}-${token}`);
      assert.equal(
        shown,
        snapshots.map((s) => [s.date, text(s.timestamp), text(s.balance)]),
        `history of chain ${chain}, ${token}`,
      );
    }
  }

  if (points.seasons.length > 0) {
    await checkPointsHistory(page, address);
    assert.equal(
      await exactRows(page, 'points'),
      points.seasons.map((s: any) => [
        `Season ${text(s.season)}`,
        s.asOf ?? 'none',
        text(s.rank),
        text(s.totalParticipants),
        text(s.totalPoints),
        text(s.dailyRate),
      ]),
    );
  } else {
    assert.match((await page.textContent('#wallet-points')) ?? '', 'No points: this wallet takes part in no season.');
  }
}

/**
 * A wallet made up for the page (served by the test's route, not built): amounts of every kind,
 * chains and tokens without and with names, and totals whose axis labels are long.
 */
const MADE_UP_WALLET = `0x${'ab'.repeat(20)}`;
const MADE_UP_DAILY = `{"asOf":"2026-11-21","days":[
{"date":"2026-11-18","totalValueUsd":0,"positions":[]},
{"date":"2026-11-19","totalValueUsd":123456789012.34,"positions":[{"token":"uty","chainId":1,"balance":123456789012.34,"usdPerToken":1,"valueUsd":123456789012.34}]},
{"date":"2026-11-20","totalValueUsd":123456789098.76,"positions":[{"token":"uty","chainId":1,"balance":123456789098.76,"usdPerToken":1,"valueUsd":123456789098.76}]},
{"date":"2026-11-21","totalValueUsd":1234567.8912340000000000025,"positions":[
{"token":"uty","chainId":1,"balance":1234567.891234,"usdPerToken":1,"valueUsd":1234567.891234},
{"token":"venueBUsdc","chainId":10,"balance":2.5e-18,"usdPerToken":1,"valueUsd":2.5e-18},
{"token":"venueALp","chainId":8453,"balance":5,"usdPerToken":0,"valueUsd":0},
{"token":"yuty","chainId":42161,"balance":0.004,"usdPerToken":1.2,"valueUsd":0.0048}]}]}`;

const MADE_UP_POINTS =
  '{"seasons":[{"season":2,"asOf":"2026-11-21","rank":3,"totalPoints":1500.5,"dailyRate":12.25,"totalParticipants":40}]}';
const MADE_UP_POINTS_HISTORY = `{"seasons":[{"season":2,"asOf":"2026-11-21","days":[
{"date":"2026-11-18","points":0,"totalPoints":0,"rank":null},
{"date":"2026-11-19","points":1250,"totalPoints":1250,"rank":12},
{"date":"2026-11-20","points":238.25,"totalPoints":1488.25,"rank":7},
{"date":"2026-11-21","points":12.25,"totalPoints":1500.5,"rank":3}]}]}`;

/**
 * A wallet whose totals exceed 2^53 cents (about $90 trillion), where a double no longer holds
 * every cent: its change and its per-chain sums must come from the JSON's decimal text.
 */
const BIG_WALLET = `0x${'b16'.repeat(13)}b`;
const BIG_DAILY = `{"asOf":"2026-11-21","days":[
{"date":"2026-11-19","totalValueUsd":12345678901234567.89,"positions":[{"token":"uty","chainId":59144,"balance":12345678901234567.89,"usdPerToken":1,"valueUsd":12345678901234567.89}]},
{"date":"2026-11-20","totalValueUsd":9007199254740997.06,"positions":[{"token":"uty","chainId":59144,"balance":9007199254740997.06,"usdPerToken":1,"valueUsd":9007199254740997.06}]},
{"date":"2026-11-21","totalValueUsd":8881646217412596567.89,"positions":[
{"token":"uty","chainId":42161,"balance":8881646217412596567.88,"usdPerToken":1,"valueUsd":8881646217412596567.88},
{"token":"yuty","chainId":42161,"balance":0.01,"usdPerToken":1,"valueUsd":0.01}]}]}`;

/** Serves the made-up wallet's documents (its daily one as written above, the others empty). */
async function serveMadeUpWallet(page: Page): Promise<void> {
  await page.route(new RegExp(`/v1/address/${MADE_UP_WALLET}/`), (route) => {
    const { pathname } = new URL(route.request().url());
    const body = pathname.includes('/portfolio/daily')
      ? MADE_UP_DAILY
      : pathname.endsWith('/portfolio')
        ? '{}'
        : pathname.endsWith('/points/history')
          ? MADE_UP_POINTS_HISTORY
          : MADE_UP_POINTS;
    return route.fulfill({ contentType: 'application/json', body });
  });
}

/** The y axis labels of a chart as drawn (data-axis-labels), and whether ink reaches the canvas's edges. */
async function axisLabels(
  page: Page,
  chart: string,
): Promise<{ width: number; labels: { axis: string; text: string; left: number; right: number; top: number }[]; inkAtEdges: number }> {
  return page.$eval(`[data-chart="${chart}"]`, (box) => {
    const drawn = JSON.parse((box as HTMLElement).dataset.axisLabels!);
    const canvas = box.querySelector('canvas')!;
    const { data, width, height } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    // A label cut by the canvas's edge leaves its ink in the first or last columns.
    let inkAtEdges = 0;
    for (let y = 0; y < height; y++) {
      for (const x of [0, 1, width - 2, width - 1]) {
        const i = (y * width + x) * 4;
        if (data[i + 3]! > 100 && data[i]! < 120 && data[i + 1]! < 120 && data[i + 2]! < 120) inkAtEdges++;
      }
    }
    return { ...drawn, inkAtEdges };
  });
}

const Formatting = suite('explorer: amounts and names as a person reads them');

Formatting('dollars: separators and cents, "< $0.01" below a cent, $0.00 for zero, rounded from the exact text', () => {
  assert.is(formatUsd('1234567.891234'), '$1,234,567.89');
  assert.is(formatUsd('2.5e-18'), '< $0.01');
  assert.is(formatUsd('0'), '$0.00');
  assert.is(formatUsd('0.005'), '$0.01');
  assert.is(formatUsd('0.00499999999999999999'), '< $0.01');
  assert.is(formatUsd('1e21'), '$1,000,000,000,000,000,000,000.00');
  assert.is(formatUsd('-12.345'), '-$12.35');
  assert.is(formatPrice('1.038806'), '$1.038806');
  assert.is(formatAmount('123456.789012345678901234'), '123,456.789012');
});

Formatting('a change between two totals is exact beyond 2^53 cents: decimal arithmetic on the JSON text, then rounded', () => {
  // Through doubles (the page before) the first read "$8,869,300,538,511,363,000.44" and the second "$4.00".
  assert.equal(usdChange('12345678901234567.89', '8881646217412596567.89'), {
    direction: 'up',
    size: '$8,869,300,538,511,362,000.00',
    exact: '8869300538511362000',
    percent: '+71,841.3%',
  });
  assert.equal(usdChange('9007199254740993.01', '9007199254740997.06'), {
    direction: 'up',
    size: '$4.05',
    exact: '4.05',
    percent: '+< 0.1%',
  });
  assert.equal(usdChange('9007199254740997.06', '9007199254740993.01'), {
    direction: 'down',
    size: '$4.05',
    exact: '4.05',
    percent: '-< 0.1%',
  });
  assert.equal(usdChange('126122.21', '130332.71'), { direction: 'up', size: '$4,210.50', exact: '4210.5', percent: '+3.3%' });
  // Half a cent rounds away from zero, as every amount does; less than half a cent is no change.
  assert.equal(usdChange('1', '1.005'), { direction: 'up', size: '$0.01', exact: '0.005', percent: '+0.5%' });
  assert.equal(usdChange('1', '1.0049'), { direction: 'unchanged', size: '$0.00', exact: '0.0049', percent: null });
  assert.equal(usdChange('0', '2.5e3'), { direction: 'up', size: '$2,500.00', exact: '2500', percent: null });
  assert.equal(usdChange('1e21', '0'), {
    direction: 'down',
    size: '$1,000,000,000,000,000,000,000.00',
    exact: '1000000000000000000000',
    percent: '-100.0%',
  });
});

Formatting('amounts shown together are summed exactly', () => {
  assert.is(sumDecimals(['0.1', '0.2']), '0.3');
  assert.is(sumDecimals(['8881646217412596567.88', '0.01']), '8881646217412596567.89');
  assert.is(sumDecimals(['2.5e-18', '1e2', '-0.5']), '99.5000000000000000025');
  assert.is(sumDecimals(['0']), '0');
});

Formatting('a usdPerToken of 0 is told as no price or a price of 0 (the JSON does not tell them apart); any other as a price', () => {
  assert.equal(
    ['0', '1e-7', '0.5', '2500.75'].map((usdPerToken) => hasZeroPrice({ usdPerToken })),
    [true, false, false, false],
  );
  assert.ok(hasZeroPrice({ usdPerToken: { value: '0' } }));
});

Formatting('names of chains and tokens; others by their number', () => {
  assert.equal(['1', '10', '8453', '42161', '137', '56', '43114', '59144', '534352', '999999'].map(chainName), [
    'Ethereum',
    'OP Mainnet',
    'Base',
    'Arbitrum One',
    'Polygon',
    'BNB Smart Chain',
    'Avalanche',
    'Linea',
    'Scroll',
    'Chain 999999',
  ]);
  assert.equal(TOKEN_KEYS.map(tokenName).slice(0, 7), [
    'UTY',
    'yUTY',
    'Venue A SY',
    'Venue B yUTY',
    'Venue B USDC',
    'Venue A YT',
    'Venue A LP',
  ]);
  assert.ok(
    TOKEN_KEYS.every((key) => tokenName(key) !== key),
    'every token key has a name',
  );
  assert.is(tokenName('notAKey'), 'notAKey');
});

Formatting.run();

// The Node server here; test/slow/explorer-workerd.test.ts runs the same suite over the Worker.
const runtimes = process.env.TEST_RUNTIMES ? (process.env.TEST_RUNTIMES.split(',') as typeof RUNTIMES) : (['node'] as typeof RUNTIMES);
for (const runtime of runtimes) {
  const Explorer = suite(`explorer page (${runtime})`);
  let browser: Browser;
  let host: Host;

  Explorer.before(async () => {
    await buildTree();
    [browser, host] = await Promise.all([launchBrowser(), startHost(runtime, tree)]);
  });
  Explorer.after(async () => {
    await Promise.all([browser?.close(), host?.close()]);
  });

  Explorer('loads with no console error; freshness and seasons equal the JSON', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.is(await page.textContent('[data-fact="last-closed-day"]'), meta().lastClosedDay);
      assert.is(await page.textContent('[data-fact="daily-as-of"]'), exact('_snapshot/no-history/daily.json').asOf);
      assert.equal(
        await rows(page, 'seasons'),
        exact('v1/seasons.json').seasons.map((s: any) => [
          `Season ${text(s.season)}`,
          s.frozen ? 'frozen' : 'live',
          s.asOf ?? 'none (no points yet)',
          text(s.totalParticipants),
        ]),
      );
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('each season: multipliers and leaderboard entries equal the JSON', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      for (const season of meta().seasons as number[]) {
        await page.selectOption('#season-select', String(season));
        await page.waitForSelector(`[data-season="${season}"]`);
        const board = exact(`v1/leaderboard/s${season}.json`);
        if (board.multipliers.length > 0) {
          assert.equal(
            await exactRows(page, `multipliers-s${season}`),
            board.multipliers.map((m: any) => [m.position, text(m.multiplier), m.firstDay, m.lastDay]),
          );
          assert.equal(
            (await rows(page, `multipliers-s${season}`)).map((row) => row[1]),
            board.multipliers.map((m: any) => `\u00d7${formatAmount(text(m.multiplier)!)}`),
          );
        }
        if (board.entries.length === 0) {
          assert.match(
            (await page.textContent(`[data-season="${season}"]`)) ?? '',
            `No entries: no wallet has points in season ${season} yet.`,
          );
        } else {
          assert.equal(
            await exactRows(page, `entries-s${season}`),
            board.entries.map((e: any) => [text(e.rank), e.user, text(e.totalPoints), text(e.dailyRate)]),
          );
          assert.equal(
            await rows(page, `entries-s${season}`),
            board.entries.map((e: any) => [
              text(e.rank),
              e.user,
              formatAmount(text(e.totalPoints)!, 2),
              formatAmount(text(e.dailyRate)!, 2),
            ]),
          );
        }
      }
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('the example wallet: chart drawn; positions, history and points equal the JSON', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      const example = meta().exampleWallet as string;
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.is(await page.textContent('[data-example]'), example);
      await page.click('[data-example]');
      await page.waitForSelector(`[data-wallet="${example}"]`);
      await checkWallet(page, example);
      const daily = exact(`v1/address/${example}/portfolio/daily.json`);
      const chains = [...new Set<string>(daily.days.flatMap((day: any) => day.positions.map((p: any) => text(p.chainId))))].sort(
        (a, b) => Number(a) - Number(b),
      );
      await page.check('input[name="breakdown"][value="chain"]');
      assert.equal(
        (await legend(page)).slice(1).map((item) => item.split(':')[0]),
        ['Total', ...chains.map((chain) => chainName(chain))],
      );
      // A click on the chart shows the positions of the day under the cursor.
      const box = (await (await page.$('[data-chart="portfolio"] .u-over'))!.boundingBox())!;
      await page.mouse.click(box.x + 2, box.y + box.height / 2);
      await page.waitForSelector(`[data-day="${daily.days[0].date}"]`);
      assert.is(await page.textContent('[data-day-shown]'), daily.days[0].date);
      await page.mouse.move(0, 0);
      await pickDay(page, daily.days.length - 1, daily.days.at(-1).date);
      await screenshot(page, `explorer-desktop-${runtime}`);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('more wallets, typed in any case: the story wallet (24 significant digits) and the leader of season 2', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await openWallet(page, STORY_WALLET.toUpperCase().replace('0X', '0x'));
      await checkWallet(page, STORY_WALLET);
      // 24 significant digits: shown rounded, exact in the amount's data-exact and title.
      assert.match((await page.textContent('[data-history="1/uty"] summary')) ?? '', 'latest balance 123,456.789012 on');
      assert.is(await page.getAttribute('[data-history="1/uty"] summary [data-exact]', 'data-exact'), '123456.789012345678901234');
      const leader = exact('v1/leaderboard/s2.json').entries[0].user as string;
      await page.click(`table[data-table="entries-s2"] a[href="#address=${leader}"]`);
      await page.waitForSelector(`[data-wallet="${leader}"]`);
      await checkWallet(page, leader);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('a slow answer for an earlier search never replaces a later search', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      const slow = exact('v1/leaderboard/s2.json').entries[0].user as string;
      let released!: () => void;
      const held = new Promise<void>((resolve) => (released = resolve));
      await page.route(new RegExp(`/v1/address/${slow}/`), async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.fill('#address', slow);
      await page.press('#address', 'Enter');
      // Typed once the first search has begun (it writes its address into the field).
      await page.waitForSelector(`text=Loading ${slow}...`);
      await openWallet(page, STORY_WALLET);
      released();
      await page.waitForTimeout(300);
      assert.ok(await page.$(`[data-wallet="${STORY_WALLET}"]`), 'the later search stays');
      assert.is(await page.$(`[data-wallet="${slow}"]`), null);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('a range of days is asked of the host with from/to, and cut here on a host that ignores them', async () => {
    const daily = exact(`v1/address/${STORY_WALLET}/portfolio/daily.json`);
    const from = daily.days[10].date as string;
    const to = daily.days[40].date as string;
    const expected = daily.days
      .filter((day: any) => day.date >= from && day.date <= to)
      .map((day: any) => day.date)
      .reverse();
    for (const staticHost of [false, true]) {
      const { page, errors, close } = await openPage(browser, DESKTOP);
      try {
        const asked: string[] = [];
        page.on('request', (request) => asked.push(request.url()));
        if (staticHost) {
          // A static host answers the whole file whatever the query says.
          await page.route(/\/portfolio\/daily\?/, (route) =>
            route.fulfill({
              contentType: 'application/json',
              body: fs.readFileSync(path.join(tree, `v1/address/${STORY_WALLET}/portfolio/daily.json`)),
            }),
          );
        }
        await page.goto(`${host.url}/#address=${STORY_WALLET}`);
        await page.waitForSelector('[data-chart="portfolio"] canvas');
        await page.fill('#range-from', from);
        await page.fill('#range-to', to);
        await page.click('text=Show range');
        await page.waitForFunction(
          (first) => document.querySelector('[data-range]')?.textContent?.includes(first),
          `31 days, ${from} to ${to}.`,
        );
        assert.ok(
          asked.some((url) => url.endsWith(`/portfolio/daily?from=${from}&to=${to}`)),
          'from/to sent to the host',
        );
        assert.is(await page.getAttribute('#day-slider', 'max'), String(expected.length - 1));
        assert.is(await page.textContent('[data-day-shown]'), expected[0]);
        await pickDay(page, 0, expected.at(-1));
        assert.ok((await totalLinePixels(page)) > 50);
        await page.fill('#range-from', to);
        await page.fill('#range-to', from);
        await page.click('text=Show range');
        assert.match((await page.textContent('[role="alert"]')) ?? '', `Empty range: "from" (${to}) is later than "to" (${from}).`);
        assert.equal(errors, []);
      } finally {
        await close();
      }
    }
  });

  Explorer('a bare static host (no rewrites, no fallbacks): the page reads the .json files of the tree', async () => {
    const { page, close } = await openPage(browser, DESKTOP);
    try {
      // Such a host answers 404 for every extensionless /v1 path and serves the tree's files as they are.
      await page.route(/\/v1\//, (route) => {
        const { pathname } = new URL(route.request().url());
        const file = path.join(tree, pathname);
        if (!pathname.endsWith('.json') || !fs.existsSync(file))
          return route.fulfill({ status: 404, contentType: 'text/html', body: '<h1>Not Found</h1>' });
        return route.fulfill({ contentType: 'application/json', body: fs.readFileSync(file) });
      });
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.is(await page.textContent('[data-fact="season-count"]'), String(meta().seasons.length));
      assert.equal(
        await exactRows(page, 'entries-s2'),
        exact('v1/leaderboard/s2.json').entries.map((e: any) => [text(e.rank), e.user, text(e.totalPoints), text(e.dailyRate)]),
      );
      await openWallet(page, STORY_WALLET);
      await checkWallet(page, STORY_WALLET);
      await openWallet(page, UNKNOWN_WALLET);
      assert.is(
        await page.textContent('#wallet-body .message'),
        `No history: this snapshot has no balance, no daily value and no points for ${UNKNOWN_WALLET}.`,
      );
    } finally {
      await close();
    }
  });

  Explorer('clear messages for a malformed address and for one without history', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      for (const typed of ['0x123', 'hello', `${UNKNOWN_WALLET}0`]) {
        await page.fill('#address', typed);
        await page.press('#address', 'Enter');
        await page.waitForFunction(
          (shown) => document.querySelector('#wallet-body [role="alert"]')?.textContent?.includes(shown),
          `"${typed}"`,
        );
        assert.is(
          await page.textContent('#wallet-body [role="alert"]'),
          `Not an address: "${typed}" is not 0x followed by 40 hexadecimal digits (0-9, a-f, any case).`,
        );
      }
      await openWallet(page, UNKNOWN_WALLET);
      assert.is(
        await page.textContent('#wallet-body .message'),
        `No history: this snapshot has no balance, no daily value and no points for ${UNKNOWN_WALLET}.`,
      );
      assert.is(await page.$('[data-chart]'), null);
      assert.is(await page.textContent('#wallet-links'), '', 'no wallet sections to jump to');
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer("a wallet's page at 1280 px is short: each season's days folded, a fortnight a page, latest first; back and forth", async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      // The leader of season 1: points on every day of both seasons, the longest histories of the sample.
      const leader = exact('v1/leaderboard/s1.json').entries[0].user as string;
      const history = exact(`v1/address/${leader}/points/history.json`);
      const longest = Math.max(...history.seasons.map((season: any) => season.days.length));
      assert.ok(longest > 60, `a season of ${longest} days`);
      await page.goto(`${host.url}/#address=${leader}`);
      await page.waitForSelector('[data-chart="points-s2"] canvas');
      const height = () => page.evaluate(() => document.documentElement.scrollHeight);
      const folded = await height();
      // Every fold of the page open (the days, the balance histories): still a few screens, not one row per day.
      await page.$$eval('details', (all) => all.forEach((details) => ((details as HTMLDetailsElement).open = true)));
      const opened = await height();
      assert.ok(folded < 5_500, `${folded} px folded`);
      assert.ok(opened < 8_500, `${opened} px with every fold open (a row a day would be ${longest * 2 * 30} px more)`);
      for (const season of history.seasons) {
        const number = text(season.season)!;
        const shown = await rows(page, `points-history-s${number}`);
        assert.equal(
          shown.map((row) => row[0]),
          [...season.days]
            .reverse()
            .slice(0, 14)
            .map((day: any) => day.date),
          `season ${number}`,
        );
        const box = (await (await page.$(`[data-points-days="${number}"]`))!.boundingBox())!;
        assert.ok(box.height < 700, `season ${number}'s days: ${box.height} px open`);
      }
      // Earlier, then later again: the latest fortnight back.
      const days = '[data-points-days="2"]';
      assert.ok(await page.isDisabled(`${days} [data-days-page="later"]`));
      await page.click(`${days} [data-days-page="earlier"]`);
      assert.match((await page.textContent(`${days} [data-days-shown]`)) ?? '', /^Days 15 to \d+ of \d+, latest first: /);
      assert.not.ok(await page.isDisabled(`${days} [data-days-page="later"]`));
      await page.click(`${days} [data-days-page="later"]`);
      assert.match((await page.textContent(`${days} [data-days-shown]`)) ?? '', /^Days 1 to 14 of \d+, latest first: /);
      await screenshot(page, `explorer-wallet-folded-${runtime}`);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('phone width: nothing wider than the screen; usable by keyboard alone', async () => {
    const { page, errors, close } = await openPage(browser, PHONE);
    try {
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.keyboard.press('Tab');
      assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the wallet search');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      assert.is(await page.evaluate(() => document.activeElement?.id), 'address');
      await page.keyboard.type(STORY_WALLET);
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-chart="portfolio"] canvas');
      const days = exact(`v1/address/${STORY_WALLET}/portfolio/daily.json`).days;
      await page.focus('#day-slider');
      await page.keyboard.press('ArrowLeft');
      await page.waitForSelector(`[data-day="${days.at(-2).date}"]`);
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        screen: window.innerWidth,
        chart: document.querySelector('[data-chart="portfolio"] canvas')!.getBoundingClientRect().right,
      }));
      assert.ok(widths.page <= widths.screen, `page ${widths.page}px wide on a ${widths.screen}px screen`);
      assert.ok(widths.chart <= widths.screen, `chart ends at ${widths.chart}px`);
      await screenshot(page, `explorer-phone-${runtime}`);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('money of every kind, names, and axis labels whole at any magnitude (a made-up wallet)', async () => {
    const { page, errors, close } = await openPage(browser, DESKTOP);
    try {
      await serveMadeUpWallet(page);
      await page.goto(`${host.url}/#address=${MADE_UP_WALLET}`);
      await page.waitForSelector('[data-chart="portfolio"] canvas');
      assert.is(await page.textContent('[data-headline]'), '$1,234,567.89');
      assert.is(await page.getAttribute('[data-headline] [data-exact]', 'data-exact'), '1234567.8912340000000000025');
      assert.equal(await rows(page, 'positions'), [
        ['Ethereum', 'UTY', '$1,234,567.89', '1,234,567.891234', '$1.00'],
        ['OP Mainnet', 'Venue B USDC', '< $0.01', '< 0.000001', '$1.00'],
        ['Base', 'Venue A LP', 'no price or $0', '5', 'no price or $0'],
        ['Arbitrum One', 'yUTY', '< $0.01', '0.004', '$1.20'],
      ]);
      assert.equal(
        (await exactRows(page, 'positions')).map((row) => row[2]),
        ['1234567.891234', '2.5e-18', '0', '0.0048'],
      );
      assert.match(
        (await page.getAttribute('table[data-table="positions"] tbody tr:nth-child(3) td:nth-child(3) [data-exact]', 'title')) ?? '',
        'usdPerToken is 0 in the JSON: no price on or before this day, or a price of 0 in the export',
      );
      assert.match(
        (await page.textContent('[data-day="2026-11-21"] [data-unpriced-note]')) ?? '',
        '"no price or $0": usdPerToken is 0, either no price for this token on or before 2026-11-21 or a price of 0 in the export',
      );
      assert.match(
        (await page.textContent('.overview [data-unpriced-note]')) ?? '',
        '1 position has no price or a price of $0 on 2026-11-21',
      );
      // One click shows every amount's exact text in place, and back.
      await page.check('#exact-values');
      assert.is(await page.textContent('[data-headline]'), '1234567.8912340000000000025');
      assert.equal(
        (await rows(page, 'positions')).map((row) => row[2]),
        ['1234567.891234', '2.5e-18', '0', '0.0048'],
      );
      await page.uncheck('#exact-values');
      assert.is(await page.textContent('[data-headline]'), '$1,234,567.89');
      // The day with no position says its total is zero.
      await pickDay(page, 0, '2026-11-18');
      assert.match((await page.textContent('[data-day="2026-11-18"]')) ?? '', 'total value $0.00');
      // Axis labels from $0 to $140B, then (two days of 123 billion dollars, a few dollars apart) ten
      // characters and more: each drawn whole inside the canvas, and no two ticks reading the same.
      for (const range of [null, ['2026-11-19', '2026-11-20']]) {
        if (range) {
          await page.fill('#range-from', range[0]!);
          await page.fill('#range-to', range[1]!);
          await page.click('text=Show range');
          await page.waitForFunction(() => document.querySelector('[data-range]')?.textContent?.startsWith('2 days'));
        }
        const drawn = await axisLabels(page, 'portfolio');
        const texts = drawn.labels.map((label) => label.text);
        assert.ok(drawn.labels.length >= 2, 'the axis has labels');
        if (range)
          assert.ok(
            texts.some((label) => label.length >= 10),
            `a label of ten characters or more: ${texts}`,
          );
        for (const label of drawn.labels)
          assert.ok(label.left >= 0 && label.right <= drawn.width, `${label.text} spans ${label.left}..${label.right} of ${drawn.width}px`);
        if (drawn.inkAtEdges) await screenshot(page, `explorer-ink-${runtime}`);
        assert.is(drawn.inkAtEdges, 0, `no label ink at the canvas edges (${range ? 'narrow range' : 'whole'}: ${texts})`);
        assert.equal([...new Set(texts)].length, texts.length, `no two ticks read the same: ${texts}`);
      }
      // Its points: a day without a rank (no points yet) says so, in the legend and in the table.
      await page.waitForSelector('[data-chart="points-s2"] canvas');
      assert.equal(await legend(page, 'points-s2'), ['Day: 2026-11-21', 'Total points: 1,500.5 (12.25 that day)', 'Rank (1 = top): 3']);
      await page.click('[data-points-days="2"] summary');
      assert.equal(
        (await rows(page, 'points-history-s2')).map((row) => row[3]),
        ['3', '7', '12', 'no rank'],
      );
      const over = (await (await page.$('[data-chart="points-s2"] .u-over'))!.boundingBox())!;
      await page.mouse.click(over.x + 2, over.y + over.height / 2);
      await page.mouse.move(0, 0);
      assert.equal(
        await legend(page, 'points-s2'),
        ['Day: 2026-11-18', 'Total points: 0 (0 that day)', 'Rank (1 = top): no rank (no points yet)'],
        'a click keeps the legend on its day',
      );
      await screenshot(page, `explorer-made-up-${runtime}`);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer(
    "totals beyond 2^53 cents: the headline and its change exact, chains by name, the chosen day kept across the lines' switch",
    async () => {
      const { page, errors, close } = await openPage(browser, DESKTOP);
      try {
        await page.route(new RegExp(`/v1/address/${BIG_WALLET}/`), (route) => {
          const { pathname } = new URL(route.request().url());
          return route.fulfill({
            contentType: 'application/json',
            body: pathname.includes('/portfolio/daily') ? BIG_DAILY : pathname.endsWith('/portfolio') ? '{}' : '{"seasons":[]}',
          });
        });
        await page.goto(`${host.url}/#address=${BIG_WALLET}`);
        await page.waitForSelector('[data-chart="portfolio"] canvas');
        assert.is(await page.textContent('[data-headline]'), '$8,881,646,217,412,596,567.89');
        assert.is(await page.textContent('[data-change] strong'), 'Up $8,869,300,538,511,362,000.00 (+71,841.3%)');
        assert.is(await page.getAttribute('[data-change] strong [data-exact]', 'data-exact'), '8869300538511362000');
        assert.is(
          (await page.textContent('[data-change]'))?.replace(/\s+/g, ' '),
          'Up $8,869,300,538,511,362,000.00 (+71,841.3%) from 2026-11-19 to 2026-11-21 ($12,345,678,901,234,567.89 to $8,881,646,217,412,596,567.89).',
        );
        // The first two days: down, by an amount doubles made $3,338,479,646,493,570.92.
        await page.fill('#range-to', '2026-11-20');
        await page.click('text=Show range');
        await page.waitForFunction(() => document.querySelector('[data-range]')?.textContent?.startsWith('2 days'));
        assert.is(await page.textContent('[data-change] strong'), 'Down $3,338,479,646,493,570.83 (-27.0%)');
        await page.fill('#range-to', '2026-11-21');
        await page.click('text=Show range');
        await page.waitForFunction(() => document.querySelector('[data-range]')?.textContent?.startsWith('3 days'));
        assert.equal(
          (await rows(page, 'positions')).map((row) => row.slice(0, 3)),
          [
            ['Arbitrum One', 'UTY', '$8,881,646,217,412,596,567.88'],
            ['Arbitrum One', 'yUTY', '$0.01'],
          ],
        );
        // The chosen day stays when the lines switch from tokens to chains and back.
        await pickDay(page, 1, '2026-11-20');
        for (const lines of ['chain', 'token']) {
          await page.check(`input[name="breakdown"][value="${lines}"]`);
          await page.waitForFunction(
            (label) => document.querySelectorAll('[data-chart="portfolio"] .legend li')[2]?.textContent?.startsWith(label),
            lines === 'chain' ? 'Arbitrum One' : 'UTY',
          );
          assert.is(await page.textContent('[data-day-shown]'), '2026-11-20', `per ${lines}`);
          assert.is(await page.getAttribute('#day-slider', 'aria-valuetext'), '2026-11-20');
          assert.is((await legend(page))[0], 'Day: 2026-11-20');
          assert.ok(await page.$('[data-day="2026-11-20"]'), 'the positions of the chosen day');
        }
        // Per chain, a chain's tokens are summed exactly: two positions of Arbitrum One on the last day.
        await page.check('input[name="breakdown"][value="chain"]');
        await pickDay(page, 2, '2026-11-21');
        assert.equal((await legend(page)).slice(1), [
          'Total: $8,881,646,217,412,596,567.89',
          'Arbitrum One: $8,881,646,217,412,596,567.89',
          'Linea: $0.00',
        ]);
        assert.equal(errors, []);
      } finally {
        await close();
      }
    },
  );

  Explorer('phone width: the legend reads without a pointer; dates are ISO in every control', async () => {
    const { page, errors, close } = await openPage(browser, PHONE);
    try {
      const days = exact(`v1/address/${STORY_WALLET}/portfolio/daily.json`).days;
      const latest = days.at(-1);
      await page.goto(`${host.url}/#address=${STORY_WALLET}`);
      await page.waitForSelector('[data-chart="portfolio"] canvas');
      const items = await page.$$('[data-chart="portfolio"] .legend li');
      assert.ok(items.length >= 2);
      for (const item of items) {
        assert.ok(await item.isVisible(), 'legend item visible');
        const box = (await item.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `legend item within the screen: ${box.x}..${box.x + box.width}`);
      }
      const shown = await legend(page);
      assert.is(shown[0], `Day: ${latest.date}`);
      assert.ok(shown[1]!.startsWith(`Total: ${formatUsd(text(latest.totalValueUsd)!)}`), shown[1]);
      // ISO days in every date control, and no browser date input (its format follows the locale).
      assert.is(await page.$$eval('input[type="date"]', (inputs) => inputs.length), 0);
      for (const [selector, value] of [
        ['#range-from', days[0].date],
        ['#range-to', latest.date],
      ]) {
        assert.is(await page.inputValue(selector!), value);
        assert.is(await page.getAttribute(selector!, 'type'), 'text');
        assert.is(await page.getAttribute(selector!, 'pattern'), '\\d{4}-\\d{2}-\\d{2}');
      }
      assert.match((await page.textContent('[data-day-shown]')) ?? '', /^\d{4}-\d{2}-\d{2}$/);
      await page.fill('#range-from', '11/05/2025');
      await page.click('text=Show range');
      assert.match(
        (await page.textContent('[role="alert"]')) ?? '',
        'Not a date: "from" is "11/05/2025"; write a calendar day as YYYY-MM-DD',
      );
      // A preset range: the last 30 days.
      await page.click('[data-preset="30"]');
      await page.waitForFunction(() => document.querySelector('[data-range]')?.textContent?.startsWith('30 days'));
      assert.is(await page.inputValue('#range-from'), days.at(-30).date);
      assert.match((await page.textContent('[data-change]')) ?? '', `from ${days.at(-30).date} to ${latest.date}`);
      await screenshot(page, `explorer-phone-legend-${runtime}`);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer('a host whose tree predates the points history (404): the standings, without charts', async () => {
    const { page, close } = await openPage(browser, DESKTOP);
    try {
      const leader = exact('v1/leaderboard/s2.json').entries[0].user as string;
      await page.route(/\/points\/history/, (route) =>
        route.fulfill({ status: 404, contentType: 'text/html', body: '<h1>Not Found</h1>' }),
      );
      await page.goto(`${host.url}/#address=${leader}`);
      await page.waitForSelector('[data-chart="portfolio"] canvas');
      const points = exact(`v1/address/${leader}/points.json`);
      assert.is((await rows(page, 'points')).length, points.seasons.length);
      assert.is(await page.$('[data-points-history]'), null);
      assert.is(await page.$('#wallet-body [role="alert"]'), null);
    } finally {
      await close();
    }
  });

  Explorer('the nav jumps to each section (by click and by keyboard) and keeps the wallet in the URL', async () => {
    const { page, errors, close } = await openPage(browser, PHONE);
    try {
      await page.goto(`${host.url}/#address=${STORY_WALLET}`);
      await page.waitForSelector('[data-chart="portfolio"] canvas');
      const links = await page.$$eval('#sections a', (anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
      assert.equal(links, [
        '#wallet',
        '#wallet-value',
        '#wallet-positions',
        '#wallet-points',
        '#wallet-history',
        '#leaderboards',
        '#freshness',
      ]);
      const navHeight = (await (await page.$('#sections'))!.boundingBox())!.height;
      for (const [index, href] of links.entries()) {
        const id = href!.slice(1);
        if (index % 2 === 0) {
          await page.click(`#sections a[href="${href}"]`);
        } else {
          await page.focus(`#sections a[href="${href}"]`);
          await page.keyboard.press('Enter');
        }
        await page.waitForFunction((target) => document.activeElement?.id === target, id);
        const { top, atBottom } = await page.$eval(`#${id}`, (section) => ({
          top: section.getBoundingClientRect().top,
          atBottom: Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight,
        }));
        // At the top, just below the sticky nav (or as high as it goes, for the page's last section).
        assert.ok(
          top >= navHeight - 2 && (top <= navHeight + 60 || (atBottom && top < 844)),
          `#${id} starts below the nav (${top}px, nav ${navHeight}px)`,
        );
        assert.is(await page.evaluate(() => location.hash), `#address=${STORY_WALLET}`);
      }
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer.run();
}
