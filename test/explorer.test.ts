/**
 * The explorer page in headless Chromium, against a host serving a tree built from the bundled
 * sample: it loads without a console error, shows every number exactly as the JSON writes it,
 * draws the chart, asks the host for a range of days (and still cuts it on a host that ignores
 * the query), says clearly when an address is malformed or has no history, and is usable at
 * phone width and by keyboard. Screenshots go to test/screenshots/.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { parse, type LosslessNumber } from 'lossless-json';
import type { Browser, Page } from 'playwright-core';
import { buildSnapshot } from '../build/index.ts';
import { resolveBuildConfig } from '../build/config.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { PINNED_NOW, tempDir } from './helpers/fixtures.ts';
import { DESKTOP, PHONE, launchBrowser, openPage, screenshot } from './helpers/browser.ts';
import { RUNTIMES, startHost, type Host } from './helpers/hosts.ts';

const STORY_WALLET = '0xa11ce00000000000000000000000000000000001';
const UNKNOWN_WALLET = '0x' + '12'.repeat(20);
/** TOTAL_STROKE of explorer/chart.ts (which imports a stylesheet, so Node cannot load it). */
const TOTAL_STROKE_RGB = [0x1d, 0x4e, 0xd8];

type Exact = LosslessNumber;
const text = (value: Exact | string | null) => (value === null ? null : typeof value === 'string' ? value : value.value);

let tree: string;
let setUp: Promise<void> | null = null;
/** The sample built once for every runtime's suite. */
function buildTree(): Promise<void> {
  return (setUp ??= (async () => {
    tree = path.join(tempDir('ws-explorer-'), 'public');
    await buildSnapshot(resolveBuildConfig({ input: 'data/sample', out: tree, now: PINNED_NOW, progress: 'quiet' }));
  })());
}
const exact = (file: string): any => parse(fs.readFileSync(path.join(tree, file), 'utf8'));
const meta = () => JSON.parse(fs.readFileSync(path.join(tree, '_snapshot/meta.json'), 'utf8'));

/** The text of every body cell of a table, row by row. */
function rows(page: Page, name: string): Promise<string[][]> {
  return page.$$eval(`table[data-table="${name}"] tbody tr`, (trs) => trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((cell) => cell.textContent ?? '')));
}

/** Pixels of the total's colour on the chart's canvas (anti-aliased edges aside). */
function totalLinePixels(page: Page): Promise<number> {
  return page.$eval(
    '[data-chart] canvas',
    (canvas, rgb) => {
      const { data } = (canvas as HTMLCanvasElement).getContext('2d')!.getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i]! - rgb[0]!) < 8 && Math.abs(data[i + 1]! - rgb[1]!) < 8 && Math.abs(data[i + 2]! - rgb[2]!) < 8 && data[i + 3]! > 200) count++;
      }
      return count;
    },
    TOTAL_STROKE_RGB,
  );
}

async function openWallet(page: Page, address: string): Promise<void> {
  await page.fill('#address', address);
  await page.press('#address', 'Enter');
  await page.waitForSelector(`[data-wallet="${address.toLowerCase()}"]`);
}

/** Everything the page shows of one wallet, compared with its three documents. */
async function checkWallet(page: Page, address: string): Promise<void> {
  const daily = exact(`v1/address/${address}/portfolio/daily.json`);
  const history = exact(`v1/address/${address}/portfolio.json`);
  const pointsFile = `v1/address/${address}/points.json`;
  const points = fs.existsSync(path.join(tree, pointsFile)) ? exact(pointsFile) : { seasons: [] };

  await page.waitForSelector('[data-chart] canvas');
  assert.ok((await totalLinePixels(page)) > 100, 'the total is drawn on the chart');
  const legend = await page.$$eval('.u-legend .u-series .u-label', (labels) => labels.map((label) => label.textContent));
  const tokens = TOKEN_KEYS.filter((token) => daily.days.some((day: any) => day.positions.some((position: any) => position.token === token)));
  assert.equal(legend, ['Day', 'Total (USD)', ...tokens.map((token) => `${token} (USD)`)]);

  const days: any[] = daily.days;
  assert.is(await page.inputValue('#day-select'), days[days.length - 1].date, 'the last day is shown first');
  const busiest = days.reduce((best, day) => (day.positions.length > best.positions.length ? day : best), days[0]);
  for (const day of [days[days.length - 1], days[0], days[Math.floor(days.length / 2)], busiest]) {
    await page.selectOption('#day-select', day.date);
    await page.waitForSelector(`[data-day="${day.date}"]`);
    if (day.positions.length === 0) continue;
    assert.equal(
      await rows(page, 'positions'),
      day.positions.map((p: any) => [text(p.chainId), p.token, text(p.balance), text(p.usdPerToken), text(p.valueUsd)]),
      `positions of ${day.date}`,
    );
    assert.is(await page.textContent('[data-total]'), text(day.totalValueUsd));
  }

  for (const [chain, tokens] of Object.entries<any>(history)) {
    for (const token of TOKEN_KEYS) {
      const snapshots: any[] = tokens[token];
      const shown = await rows(page, `history-${chain}-${token}`);
      assert.equal(shown, snapshots.map((s) => [s.date, text(s.timestamp), text(s.balance)]), `history of chain ${chain}, ${token}`);
    }
  }

  assert.equal(
    await rows(page, 'points'),
    points.seasons.map((s: any) => [`s${text(s.season)}`, s.asOf ?? 'none', text(s.rank), text(s.totalParticipants), text(s.totalPoints), text(s.dailyRate)]),
  );
}

// The runner picks the runtimes of each test tier (test/run.ts); alone, the suite covers both.
const runtimes = process.env.TEST_RUNTIMES ? (process.env.TEST_RUNTIMES.split(',') as typeof RUNTIMES) : RUNTIMES;
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
        exact('v1/seasons.json').seasons.map((s: any) => [`s${text(s.season)}`, s.frozen ? 'frozen' : 'live', s.asOf ?? 'none (no points yet)', text(s.totalParticipants)]),
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
          assert.equal(await rows(page, `multipliers-s${season}`), board.multipliers.map((m: any) => [m.position, text(m.multiplier), m.firstDay, m.lastDay]));
        }
        if (board.entries.length === 0) {
          assert.match(await page.textContent(`[data-season="${season}"]`) ?? '', `No entries: no wallet has points in season ${season} yet.`);
        } else {
          assert.equal(await rows(page, `entries-s${season}`), board.entries.map((e: any) => [text(e.rank), e.user, text(e.totalPoints), text(e.dailyRate)]));
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
      const chains = [...new Set<string>(daily.days.flatMap((day: any) => day.positions.map((p: any) => text(p.chainId))))].sort((a, b) => Number(a) - Number(b));
      await page.check('input[name="breakdown"][value="chain"]');
      assert.equal(await page.$$eval('.u-legend .u-series .u-label', (labels) => labels.map((label) => label.textContent)), ['Day', 'Total (USD)', ...chains.map((chain) => `chain ${chain} (USD)`)]);
      // A click on the chart shows the positions of the day under the cursor.
      const box = (await (await page.$('.u-over'))!.boundingBox())!;
      await page.mouse.click(box.x + 2, box.y + box.height / 2);
      await page.waitForSelector(`[data-day="${daily.days[0].date}"]`);
      assert.is(await page.inputValue('#day-select'), daily.days[0].date);
      await page.selectOption('#day-select', daily.days.at(-1).date);
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
      assert.match(await page.textContent('[data-history="1/uty"]') ?? '', '123456.789012345678901234');
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
    const expected = daily.days.filter((day: any) => day.date >= from && day.date <= to).map((day: any) => day.date).reverse();
    for (const staticHost of [false, true]) {
      const { page, errors, close } = await openPage(browser, DESKTOP);
      try {
        const asked: string[] = [];
        page.on('request', (request) => asked.push(request.url()));
        if (staticHost) {
          // A static host answers the whole file whatever the query says.
          await page.route(/\/portfolio\/daily\?/, (route) => route.fulfill({ contentType: 'application/json', body: fs.readFileSync(path.join(tree, `v1/address/${STORY_WALLET}/portfolio/daily.json`)) }));
        }
        await page.goto(`${host.url}/#address=${STORY_WALLET}`);
        await page.waitForSelector('[data-chart] canvas');
        await page.fill('#range-from', from);
        await page.fill('#range-to', to);
        await page.click('text=Show range');
        await page.waitForFunction((first) => document.querySelector('[data-range]')?.textContent?.includes(first), `31 days, ${from} to ${to}.`);
        assert.ok(asked.some((url) => url.endsWith(`/portfolio/daily?from=${from}&to=${to}`)), 'from/to sent to the host');
        assert.equal(await page.$$eval('#day-select option', (options) => options.map((option) => (option as HTMLOptionElement).value)), expected);
        assert.ok((await totalLinePixels(page)) > 50);
        await page.fill('#range-from', to);
        await page.fill('#range-to', from);
        await page.click('text=Show range');
        assert.match(await page.textContent('[role="alert"]') ?? '', `Empty range: "from" (${to}) is later than "to" (${from}).`);
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
        if (!pathname.endsWith('.json') || !fs.existsSync(file)) return route.fulfill({ status: 404, contentType: 'text/html', body: '<h1>Not Found</h1>' });
        return route.fulfill({ contentType: 'application/json', body: fs.readFileSync(file) });
      });
      await page.goto(`${host.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.is(await page.textContent('[data-fact="season-count"]'), String(meta().seasons.length));
      assert.equal(await rows(page, 'entries-s2'), exact('v1/leaderboard/s2.json').entries.map((e: any) => [text(e.rank), e.user, text(e.totalPoints), text(e.dailyRate)]));
      await openWallet(page, STORY_WALLET);
      await checkWallet(page, STORY_WALLET);
      await openWallet(page, UNKNOWN_WALLET);
      assert.is(await page.textContent('#wallet-body .message'), `No history: this snapshot has no balance, no daily value and no points for ${UNKNOWN_WALLET}.`);
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
        await page.waitForSelector('#wallet-body [role="alert"]');
        assert.is(await page.textContent('#wallet-body [role="alert"]'), `Not an address: "${typed}" is not 0x followed by 40 hexadecimal digits (0-9, a-f, any case).`);
      }
      await openWallet(page, UNKNOWN_WALLET);
      assert.is(await page.textContent('#wallet-body .message'), `No history: this snapshot has no balance, no daily value and no points for ${UNKNOWN_WALLET}.`);
      assert.is(await page.$('[data-chart]'), null);
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
      await page.waitForSelector('[data-chart] canvas');
      const days = exact(`v1/address/${STORY_WALLET}/portfolio/daily.json`).days;
      await page.focus('#day-select');
      await page.keyboard.press('ArrowDown');
      await page.waitForSelector(`[data-day="${days.at(-2).date}"]`);
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        screen: window.innerWidth,
        chart: document.querySelector('[data-chart] canvas')!.getBoundingClientRect().right,
      }));
      assert.ok(widths.page <= widths.screen, `page ${widths.page}px wide on a ${widths.screen}px screen`);
      assert.ok(widths.chart <= widths.screen, `chart ends at ${widths.chart}px`);
      await screenshot(page, `explorer-phone-${runtime}`);
      assert.equal(errors, []);
    } finally {
      await close();
    }
  });

  Explorer.run();
}
