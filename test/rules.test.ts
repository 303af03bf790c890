/**
 * Each rule of the product lives in one place (docs/architecture.md, "Where each rule lives"): no
 * other module of the product spells it, and the forms the place keeps it in (SQL for the build,
 * JavaScript for `verify`, `publish` and the Worker) give the same answers. The spellings are found
 * in the code with its comments left out, so that a comment may still name a rule.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { openDatabase, type Database } from '../build/database.ts';
import { isParticipant, isParticipantSql } from '../core/participant.ts';
import {
  NO_PRICE,
  isWithoutPrice,
  isWithoutPriceSql,
  lastDayWithoutPriceSql,
  priceOnOrBeforeDaySql,
  pricesOnDays,
  totalValueUsd,
  usdPerTokenSql,
  valueUsd,
  valueUsdSql,
} from '../core/position-value.ts';
import { shardFilterSql, shardNumberSql, shardOf } from '../core/shard.ts';
import {
  newYorkDayFromTableSql,
  newYorkDayOf,
  newYorkDayOfSql,
  newYorkDaysTableSql,
  newYorkDayStart,
  newYorkDayStartSql,
} from '../core/new-york-day.ts';
import { competitionRankSql, competitionRanks } from '../core/competition-rank.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { loadPriceBook } from '../build/compute/daily.ts';
import { dayNumber } from '../build/compute/days.ts';
import { DocumentBytes } from '../build/write/document-bytes.ts';
import type { TokenSeries } from '../build/compute/wallet-series.ts';
import { Miniflare } from 'miniflare';
import { bundleWorkerSources } from '../preview/worker-from-sources.ts';
import { COMPATIBILITY_DATE } from '../preview/workerd.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The product's source: everything but the tests, the benchmark and the sample data's generator. */
const FOLDERS = [
  'core',
  'build',
  'server',
  'publish',
  'preview',
  'tree',
  'schemas',
  'cli',
  'client',
  'init',
  'explorer',
  'assembly',
  'bin',
  'scripts',
];

interface Rule {
  name: string;
  /** The modules that hold the rule (docs/architecture.md's table names them). */
  places: string[];
  /** Text that spells the rule: found in no other module. */
  spellings: RegExp[];
  /** Modules that match a spelling for another reason, with that reason. */
  unrelated?: Record<string, string>;
  /** The rule told to a user in words (an OpenAPI description, `verify`'s message): taken out before the search. */
  told?: string[];
  /** Copies of the rule as they were once written outside its place: the spellings must find them. */
  copies: string[];
}

export const RULES: Rule[] = [
  {
    name: "a double's text as JavaScript writes it (Ryu's shortest digits; the build's documents and verify's pass share one writer)",
    places: ['assembly/number-text.ts'],
    spellings: [/\bPOW5_(?:INV_)?SPLIT\b/, /\bfunction\s+(?:shortest|mulShiftAll)\s*\(/],
    unrelated: {
      'assembly/compile.ts': 'computes the tables of powers of five that the writer imports (./powers-of-five)',
    },
    copies: [
      "import { POW5_INV_SPLIT, POW5_SPLIT, POW5_INV_BITS, POW5_BITS } from './powers-of-five';",
      'function shortest(ieeeMantissa: u64, ieeeExponent: u32): void {',
      'function mulShiftAll(m2: u64, table: usize, j: i32, mmShift: u64): u64 {',
    ],
  },
  {
    name: 'who counts as a participant (total points above 0)',
    places: ['core/participant.ts'],
    spellings: [/total_?points\s*(?:>|<=|>=|<)\s*0(?![.\d])/i],
    told: ['null when totalPoints <= 0', 'null exactly when totalPoints <= 0'],
    copies: ['WHERE t.total_points > 0 AND', 'CASE WHEN t.total_points > 0 THEN rank()', '(day.rank === null) !== (day.totalPoints <= 0)'],
  },
  {
    name: 'the shard of a wallet (md5 of its address, mod N, plus 1)',
    places: ['core/shard.ts'],
    spellings: [/\bmd5\b/i],
    unrelated: {
      'publish/archive-sender.ts': "an archive's MD5, which S3 gives as its ETag, to skip archives stored whole",
      'publish/stage-shard.ts': "the stored archives' ETags (their MD5), read for archive-sender.ts",
      'publish/version-store.ts': "an object's ETag, the MD5 of its bytes",
    },
    copies: [
      "((('0x' || left(md5(address), 8))::BIGINT % 4) + 1)",
      "crypto.createHash('md5').update(address)",
      "await crypto.subtle.digest('MD5', bytes)",
    ],
  },
  {
    name: "attribution (a venue-B sub-account's rows count for its owner on that chain)",
    places: ['build/compute/attribution.ts'],
    spellings: [
      /coalesce\(\s*[\w.]*owner_id/i,
      /account_id\s*=\s*[\w.]*\.account\b/i,
      /\.account\s*=\s*[\w.]*account_id/i,
      /\b(?:FROM|JOIN)\s+venue_b_accounts\b/i,
    ],
    unrelated: {
      'build/input/check.ts':
        "the export contract's checks of venue_b_accounts.parquet's own rows (an account named twice, an owner that is a sub-account)",
    },
    copies: [
      'LEFT JOIN venue_b_accounts v ON v.chain_id = b.chain_id AND v.account_id = b.account',
      'JOIN address_shards s ON s.id = coalesce(v.owner_id, b.account)',
      'JOIN owners o ON b.account = o.account_id',
      'WITH owners AS (SELECT DISTINCT chain_id, owner_id FROM venue_b_accounts)',
      'a.id IN (SELECT account_id FROM venue_b_accounts UNION ALL SELECT owner_id FROM venue_b_accounts) AS keeps_tx_hash',
      'SELECT a.address, a.id, s.shard FROM venue_b_accounts v JOIN addresses a ON a.id = v.account_id',
      'SELECT chain_id, owner_id, count(DISTINCT account_id) AS n FROM venue_b_accounts GROUP BY chain_id, owner_id',
    ],
  },
  {
    name: "a daily position's value and which positions are without a price (the price dated latest on or before the day, else usdPerToken 0)",
    places: ['core/position-value.ts', 'assembly/document-bytes.ts'],
    spellings: [
      /usd_price\s*,\s*0\s*\)/i,
      /balance\s*\*\s*[\w.]*usd_?per_?token/i,
      /usd_?per_?token\s*\*/i,
      /usdPerToken\\?"?:0/,
      /\bASOF\s+(?:LEFT\s+)?JOIN\b/i,
      /NOT\s+EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+prices\b/i,
      /coalesce\(\s*[\w.]*first_day\b/i,
      /\.digits\s*===\s*0n/,
      /\bfor\s*\(\s*let\s+day\s*=\s*[\w.]*day\s*;\s*day\s*<\s*until\b/,
    ],
    told: ["'balance * usdPerToken'", 'is not balance * usdPerToken`'],
    copies: [
      'q.raw::DOUBLE / pow(10::DOUBLE, q.decimals) * coalesce(p.usd_price, 0) AS value',
      'position.valueUsd !== position.balance * position.usdPerToken',
      'const NO_PRICE = constant(\',"usdPerToken":0,"valueUsd":\');',
      'ASOF LEFT JOIN (SELECT chain_id, token_index, date, usd_price FROM prices) p',
      'count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM prices p WHERE p.chain_id = c.chain_id',
      'least(h.to_day, coalesce(p.first_day - 1, h.to_day)) AS to_day',
      'return parseDecimal(text).digits === 0n;',
      'for (let day = row.day; day < until; day++) {',
    ],
  },
  {
    name: 'the New York day (a day is a New York calendar day; floor division, never truncation)',
    places: ['core/new-york-day.ts'],
    spellings: [
      /America\/New_York/,
      /\btimezone\s*\(/i,
      /\b\d+\s*\*\s*3600\b/,
      /\/\/\s*3600\b/,
      /\.setZone\s*\(/,
      // A zone given to luxon or Intl, unless UTC or the zone of core/new-york-day.ts.
      /(?<![A-Za-z])(?:time)?zone:(?!\s*(?:['"]utc['"]|NEW_YORK_ZONE\b))/i,
    ],
    copies: [
      "epoch(timezone('America/New_York', (DATE '1970-01-01' + day::INTEGER)::TIMESTAMP))::BIGINT AS starts_at",
      'JOIN new_york_days d ON d.day = floor((s.ts - 4 * 3600) / 86400)::BIGINT',
      "balances: { sql: (column) => `(${column('timestamp')} // 3600)`, hourly: true },",
      "return now.setZone(NEW_YORK).startOf('day').minus({ days: 1 }).toISODate()!;",
      'const day = (date: string) => DateTime.fromISO(date, { zone: NEW_YORK }).toSeconds();',
      "const NEW_YORK_TIME = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York' });",
    ],
  },
  {
    name: 'competition rank (1 + those with strictly more points)',
    places: ['core/competition-rank.ts'],
    spellings: [/\brank\s*\(\s*\)\s*OVER\b/i, /\?\s*[\w.]*\.rank\s*:\s*\w+\s*\+\s*1\b/, /!==\s*higher\s*\+\s*1\b/, /\bdense_rank\s*\(/i],
    copies: [
      'rank() OVER (PARTITION BY w.season ORDER BY t.total_points DESC) AS rank',
      'const expectedRank = previous && previous.totalPoints === entry.totalPoints ? previous.rank : i + 1;',
      'if (tally.ranks[i] !== higher + 1) {',
    ],
  },
  {
    name: 'the token keys (listed once, in their order)',
    places: ['schemas/token-keys.ts'],
    spellings: [new RegExp(`(?<![\\w$])(?:${TOKEN_KEYS.join('|')})(?![\\w$])`)],
    copies: [
      'const empty = { uty: [], yuty: [], venueASy: [], venueBYuty: [], venueBUsdc: [], venueAYt: [], venueALp: [] };',
      "const TOKEN_NAMES: Record<TokenKey, string> = { uty: 'UTY', yuty: 'yUTY' };",
      "['uty', 'yuty', 'venueASy', 'venueBYuty', 'venueBUsdc', 'venueAYt', 'venueALp'].map((token) => ({",
    ],
  },
  {
    name: 'the balance held at the end of a day (the latest snapshot dated on or before it)',
    places: ['build/compute/daily-positions.ts'],
    spellings: [/coalesce\(\s*lead\(\s*day\s*\)\s*OVER\s+\w+\s*-\s*1/i, /arg_max\(\s*raw\s*,\s*number\s*\)\s*OVER/i],
    copies: [
      'coalesce(lead(day) OVER in_days - 1, $last) AS to_day',
      'arg_max(raw, number) OVER (in_days ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)',
    ],
  },
];

/** Each module of the product (path from the repository root) with its text, comments left out. */
function productCode(): Map<string, string> {
  const code = new Map<string, string>();
  for (const folder of FOLDERS) {
    for (const entry of fs.readdirSync(path.join(ROOT, folder), { recursive: true })) {
      const file = path.join(folder, String(entry));
      if (!/\.(ts|js|mjs)$/.test(file) || file.includes('node_modules')) continue;
      code.set(file, withoutComments(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    }
  }
  return code;
}

/** The text with every comment replaced by a space (TypeScript's own scanner tells them apart from strings). */
export function withoutComments(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let kept = '';
  // The brace depth at which each open template substitution started: its `}` resumes the template.
  const substitutions: number[] = [];
  let depth = 0;
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      kept += ' ';
      continue;
    }
    if (kind === ts.SyntaxKind.OpenBraceToken) depth++;
    if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (substitutions.at(-1) === depth) {
        substitutions.pop();
        kind = scanner.reScanTemplateToken(false);
      } else {
        depth--;
      }
    }
    if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle) substitutions.push(depth);
    // A slash where an expression starts is a regular expression, whose text may hold quotes.
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_AN_EXPRESSION.has(previous)) {
      kind = scanner.reScanSlashToken();
    }
    if (kind !== ts.SyntaxKind.WhitespaceTrivia && kind !== ts.SyntaxKind.NewLineTrivia) previous = kind;
    kept += scanner.getTokenText();
  }
  return kept;
}

/** Tokens after which a slash divides. */
const ENDS_AN_EXPRESSION = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

test('each rule is spelled in its places only', () => {
  const code = productCode();
  const found: string[] = [];
  for (const rule of RULES) {
    for (const place of rule.places) assert.ok(code.has(place), `${rule.name}: its place ${place} exists`);
    for (const [file, text] of code) {
      if (rule.places.includes(file) || rule.unrelated?.[file]) continue;
      const searched = (rule.told ?? []).reduce((remaining, words) => remaining.replaceAll(words, ' '), text);
      for (const spelling of rule.spellings) {
        const match = spelling.exec(searched);
        if (match) found.push(`${file} spells "${rule.name}" ("${match[0]}"): use ${rule.places[0]}`);
      }
    }
  }
  assert.equal(found, []);
});

test('each spelling finds the copies a reader found of its rule', () => {
  for (const rule of RULES) {
    for (const example of rule.copies) {
      assert.ok(
        rule.spellings.some((spelling) => spelling.test(example)),
        `${rule.name}: "${example}" is found`,
      );
    }
  }
});

test('comments are left out, strings and templates are kept', () => {
  const text =
    "const a = 'x > 0'; // total_points > 0\n/* md5 */ const b = `SELECT ${{ a }.a} AS c WHERE total_points > 0`;" +
    " const r = /'/; // md5\nconst d = 1 / 2; // md5";
  const kept = withoutComments(text);
  assert.not.match(kept, /md5/);
  assert.match(kept, /WHERE total_points > 0/);
  assert.is(kept.match(/total_points > 0/g)!.length, 1);
});

let db: Database;
test.before(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ws-rules-'));
  db = await openDatabase({ file: ':memory:', threads: 1, memoryLimit: '256MB', tempDir: dir });
});
test.after(() => db.close());

/** Addresses of every shape the build sees: lower-case, 40 hex digits after 0x. */
const ADDRESSES = Array.from({ length: 200 }, (_, i) => `0x${(i * 2654435761 + 97).toString(16).padStart(8, '0').repeat(5)}`);

test('the shard of a wallet: the SQL and the Node forms agree, and the shards are 1 to N', async () => {
  for (const count of [1, 2, 3, 7, 64]) {
    const rows = await db.rows<{ address: string; shard: number }>(
      `SELECT address, ${shardNumberSql(count, 'address')} AS shard FROM unnest($addresses::VARCHAR[]) t(address)`,
      { addresses: `[${ADDRESSES.join(',')}]` },
    );
    assert.is(rows.length, ADDRESSES.length);
    for (const row of rows) assert.is(row.shard, shardOf(row.address, count), `${row.address} of ${count}`);
    assert.ok(rows.every((row) => row.shard >= 1 && row.shard <= count));
  }
  // The values the rule gives, fixed: a change to the rule is a change to every published sharded version.
  // md5 of 0xabab...ab starts c7016fc9 (3,338,760,137), of 0xaa...aa 6e88dbba (1,854,462,906).
  assert.equal(
    [1, 2, 3, 7, 64].map((count) => shardOf(`0x${'ab'.repeat(20)}`, count)),
    [1, 2, 3, 7, 10],
  );
  assert.equal(
    [1, 2, 3, 7, 64].map((count) => shardOf(`0x${'a'.repeat(40)}`, count)),
    [1, 1, 1, 3, 59],
  );
  const address = `'${ADDRESSES[0]}'`;
  const [one] = await db.rows<{ kept: boolean; all: boolean }>(
    `SELECT ${shardFilterSql({ index: shardOf(ADDRESSES[0]!, 4), count: 4 }, address)} AS kept, ${shardFilterSql(null, address)} AS all`,
  );
  assert.equal(one, { kept: true, all: true });
});

test("the shard of a wallet: the Worker's form, through workerd's Web Crypto, agrees with Node's", async () => {
  // Bundled as the Worker is (preview/worker-from-sources.ts), so that the module is what the Worker imports.
  const entry = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ws-rules-worker-')), 'entry.ts');
  fs.writeFileSync(
    entry,
    `import { shardOfWithWebCrypto } from ${JSON.stringify(path.join(ROOT, 'core/shard.ts'))};
    export default { async fetch(request) {
      const { addresses, counts } = await request.json();
      const shards = [];
      for (const count of counts) for (const address of addresses) shards.push(await shardOfWithWebCrypto(address, count));
      return Response.json(shards);
    } };`,
  );
  const miniflare = new Miniflare({ modules: true, script: await bundleWorkerSources(entry), compatibilityDate: COMPATIBILITY_DATE });
  try {
    const counts = [1, 3, 7, 64];
    const body = JSON.stringify({ addresses: ADDRESSES, counts });
    const response = await miniflare.dispatchFetch('http://worker/', { method: 'POST', body });
    assert.equal(
      await response.json(),
      counts.flatMap((count) => ADDRESSES.map((address) => shardOf(address, count))),
    );
  } finally {
    await miniflare.dispose();
  }
});

test('who counts as a participant: above 0, in SQL as in JavaScript', async () => {
  const totals = [-1, -0, 0, 5e-324, 0.5, 1e300];
  assert.equal(totals.map(isParticipant), [false, false, false, true, true, true]);
  for (const total of totals) {
    const literal = `CAST('${Object.is(total, -0) ? '-0.0' : total}' AS DOUBLE)`;
    const [row] = await db.rows<{ participant: boolean }>(`SELECT ${isParticipantSql(literal)} AS participant`);
    assert.is(row!.participant, isParticipant(total), String(total));
  }
});

test("a daily position's value: balance times usdPerToken, 0 without a price; the day's total adds them in order", async () => {
  assert.is(NO_PRICE, 0);
  assert.is(valueUsd(0.1, 3), 0.30000000000000004);
  assert.is(totalValueUsd([{ valueUsd: 1e16 }, { valueUsd: 1 }, { valueUsd: 1 }]), 1e16);
  assert.is(totalValueUsd([]), 0);
  for (const [balance, price] of [
    [0.1, 3],
    [12.5, null],
    [1e-18, 2500.75],
  ] as const) {
    const usdPerToken = usdPerTokenSql(price === null ? 'NULL::DOUBLE' : `CAST('${price}' AS DOUBLE)`);
    const [row] = await db.rows<{ value: number }>(`SELECT ${valueUsdSql(`CAST('${balance}' AS DOUBLE)`, usdPerToken)} AS value`);
    assert.is(row!.value, valueUsd(balance, price ?? NO_PRICE), `${balance} at ${price}`);
  }
});

test('which positions are without a price, and their usdPerToken: the SQL forms as the TypeScript ones, a price of 0 a price', async () => {
  assert.equal(
    pricesOnDays(
      [
        { day: 3, usdPrice: 2 },
        { day: 5, usdPrice: 0 },
        { day: 6, usdPrice: 1.5 },
      ],
      8,
    ),
    {
      firstDay: 3,
      usdPerToken: Float64Array.from([2, 2, 0, 1.5, 1.5, 1.5]),
    },
  );
  assert.equal(
    [2, 3, 9].map((day) => isWithoutPrice(day, 3)),
    [true, false, false],
  );
  assert.ok(isWithoutPrice(9, null));
  const priceDays = fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 6 });
  const usdPrices = fc.array(fc.constantFrom(0, 0.1, 1.5, 2500.75, 1e-9), { minLength: 6, maxLength: 6 });
  await fc.assert(
    fc.asyncProperty(
      priceDays,
      usdPrices,
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: 0, max: 30 }),
      async (days, values, from, span) => {
        const last = 30;
        const prices = days.sort((a, b) => a - b).map((day, i) => ({ day, usdPrice: values[i]! }));
        const firstDay = prices[0]?.day ?? null;
        const book = prices.length > 0 ? pricesOnDays(prices, last) : null;
        const to = Math.min(last, from + span);
        const price = priceOnOrBeforeDaySql('q', 'prices_of_test', 'p');
        const rows = await db.rows<{
          day: number;
          usd_per_token: number;
          without_price: boolean;
          by_first_day: boolean;
          last_without: number;
        }>(
          `WITH prices_of_test AS (
           SELECT 1 AS chain_id, 0 AS token_index, DATE '1970-01-01' + p.day AS date, p.price AS usd_price
           FROM (SELECT unnest($days::INTEGER[]) AS day, unnest($prices::DOUBLE[]) AS price) p
         )
         SELECT q.day, ${price.usdPerToken} AS usd_per_token, ${price.withoutPrice} AS without_price,
                ${isWithoutPriceSql('q.day', '$first::INTEGER')} AS by_first_day,
                ${lastDayWithoutPriceSql('$to::INTEGER', '$first::INTEGER')} AS last_without
         FROM (SELECT 1 AS chain_id, 0 AS token_index, day::INTEGER AS day, DATE '1970-01-01' + day::INTEGER AS date FROM range($from, $to + 1) r(day)) q
         ${price.join}
         ORDER BY q.day`,
          {
            days: `[${prices.map((one) => one.day).join(',')}]`,
            prices: `[${prices.map((one) => one.usdPrice).join(',')}]`,
            first: firstDay,
            from,
            to,
          },
        );
        for (const row of rows) {
          const day = Number(row.day);
          const without = isWithoutPrice(day, firstDay);
          const usdPerToken = without ? NO_PRICE : book!.usdPerToken[day - book!.firstDay]!;
          assert.equal([row.usd_per_token, row.without_price, row.by_first_day], [usdPerToken, without, without], `day ${day}`);
          // The days from..to without a price are those up to the last of them.
          assert.is(day <= row.last_without, without, `day ${day} of ${from}..${to}`);
        }
      },
    ),
    { numRuns: 100 },
  );
});

test("the documents' WebAssembly writes the value rule of core/position-value.ts: every price, value, total and count on hostile wallets", async () => {
  const last = dayNumber('2025-11-20');
  const chains = ['1', '10'];
  const balanceText = fc.constantFrom('0', '1', '0.1', '2.5', '0.000000000000000001', '123456789012345678901234.5', '7');
  const snapshots = fc.array(fc.tuple(fc.integer({ min: last - 12, max: last }), balanceText), { minLength: 1, maxLength: 5 });
  const series = fc.uniqueArray(fc.tuple(fc.constantFrom(...chains), fc.integer({ min: 0, max: TOKEN_KEYS.length - 1 }), snapshots), {
    minLength: 1,
    maxLength: 6,
    selector: ([chain, token]) => `${chain}:${token}`,
  });
  const prices = fc.array(
    fc.record({
      chain: fc.constantFrom(...chains),
      token: fc.integer({ min: 0, max: TOKEN_KEYS.length - 1 }),
      day: fc.integer({ min: last - 15, max: last + 2 }),
      usdPrice: fc.constantFrom(0, 0.5, 1, 3, 1e-7, 2500.75, 0.30000000000000004),
    }),
    { maxLength: 12 },
  );
  await fc.assert(
    fc.asyncProperty(series, prices, async (wallet, priceRows) => {
      // The price book as the build loads it (build/compute/daily.ts, from a prices table).
      const unique = new Map(priceRows.map((row) => [`${row.chain}:${row.token}:${row.day}`, row]));
      const values = [...unique.values()].map(
        (row) => `(${row.chain}, '${TOKEN_KEYS[row.token]}', DATE '1970-01-01' + ${row.day}, ${row.usdPrice})`,
      );
      await db.run(
        `CREATE OR REPLACE TABLE prices (chain_id BIGINT, token VARCHAR, date DATE, usd_price DOUBLE)${values.length > 0 ? `; INSERT INTO prices VALUES ${values.join(', ')}` : ''}`,
      );
      const book = await loadPriceBook(db, '2025-11-20');
      const ordered: TokenSeries[] = wallet
        .map(([chainId, tokenIndex, rows]) => {
          const sorted = [...rows].sort((a, b) => a[0] - b[0]);
          return {
            chainId,
            tokenIndex,
            days: sorted.map(([day]) => day),
            timestamps: sorted.map(() => 0),
            balances: sorted.map(([, text]) => text),
          };
        })
        .sort((a, b) => Number(a.chainId) - Number(b.chainId) || a.tokenIndex - b.tokenIndex);
      const writer = new DocumentBytes(book, chains);
      writer.startWallet(ordered);
      const firstDay = Math.min(...ordered.flatMap((one) => one.days));
      const written = writer.dayRows(ordered, firstDay, last);
      assert.ok('rows' in written);
      const days = JSON.parse(`[${Buffer.from(written.rows).toString('latin1')}]`);
      let withoutPrice = 0;
      assert.is(days.length, last - firstDay + 1);
      for (const [d, row] of days.entries()) {
        const day = firstDay + d;
        const expected = ordered.flatMap((one) => {
          let k = -1;
          while (k + 1 < one.days.length && one.days[k + 1]! <= day) k++;
          if (k < 0 || one.balances[k] === '0') return [];
          const prices = book.get(`${one.chainId}:${one.tokenIndex}`);
          const without = isWithoutPrice(day, prices?.firstDay ?? null);
          if (without) withoutPrice++;
          const usdPerToken = without ? NO_PRICE : prices!.values[day - prices!.firstDay]!;
          const balance = Number(one.balances[k]);
          return [
            {
              token: TOKEN_KEYS[one.tokenIndex],
              chainId: Number(one.chainId),
              balance,
              usdPerToken,
              valueUsd: valueUsd(balance, usdPerToken),
            },
          ];
        });
        assert.equal(row, {
          date: new Date(day * 86_400_000).toISOString().slice(0, 10),
          totalValueUsd: totalValueUsd(expected),
          positions: expected,
        });
      }
      assert.is(written.withoutPrice, withoutPrice);
    }),
    { numRuns: 150 },
  );
  await db.run('DROP TABLE prices');
});

/** Instants (Unix seconds) where the New York day is easy to get wrong. */
const NEW_YORK_INSTANTS = [
  // Daylight saving starts (02:00 EST is 03:00 EDT) and ends (02:00 EDT is 01:00 EST), and the midnights around them.
  1710054000, 1710053999, 1710046800, 1710046799, 1710129600, 1710129599, 1730613600, 1730613599, 1730606400, 1730606399, 1730696400,
  1730696399,
  // 1974's daylight time from 6 January; 1945's war time ending.
  126687600, 126687599, -765396000, -765396001,
  // Around 1970: New York's midnight of 1969-12-31 at 05:00 UTC, and the instants truncation gets wrong.
  -68400, -68401, -1, 0, 1, -70200, -3599, -3600, -86400,
  // Local mean time (UTC-4:56:02) until 1883-11-18 12:03:58 local: its midnight, and the change.
  -2717694238, -2717694239, -2717650800, -2717650801,
  // The first and last instants of the years the input holds.
  -62135596800, 253402300799,
];

test('the New York day: TypeScript, SQL and the table form agree around daylight-saving changes, before 1970 and 1883', async () => {
  assert.equal([-1, 0, -68400, -68401, 1710046800, 1710046799].map(newYorkDayOf), [-1, -1, -1, -2, 19792, 19791]);
  assert.is(newYorkDayStart(-1), -68400);
  assert.is(newYorkDayStart(dayNumber('1883-11-18')), -2717694238);
  const instants = [...NEW_YORK_INSTANTS, ...fc.sample(fc.integer({ min: -62135596800, max: 253402300799 }), { numRuns: 300, seed: 57 })];
  await db.run(`CREATE OR REPLACE TABLE instants AS SELECT unnest($instants::BIGINT[]) AS ts`, { instants: `[${instants.join(',')}]` });
  await db.run(`CREATE OR REPLACE TABLE instant_days AS ${newYorkDaysTableSql('instants', 'ts')}`);
  const table = newYorkDayFromTableSql('i.ts', 'instant_days');
  const rows = await db.rows<{ ts: bigint; by_zone: number; by_table: number }>(
    `SELECT i.ts, ${newYorkDayOfSql('i.ts')} AS by_zone, ${table.day} AS by_table FROM instants i ${table.join} ORDER BY i.ts`,
  );
  assert.is(rows.length, instants.length);
  for (const row of rows) {
    const seconds = Number(row.ts);
    assert.equal([row.by_zone, row.by_table], [newYorkDayOf(seconds), newYorkDayOf(seconds)], `instant ${seconds}`);
  }
  const days = [...new Set(instants.map(newYorkDayOf))];
  const starts = await db.rows<{ day: number; starts_at: bigint }>(
    `SELECT day, ${newYorkDayStartSql('day')} AS starts_at FROM unnest($days::INTEGER[]) t(day)`,
    { days: `[${days.join(',')}]` },
  );
  for (const row of starts) {
    const start = newYorkDayStart(row.day);
    assert.is(Number(row.starts_at), start, `day ${row.day}`);
    assert.equal([newYorkDayOf(start), newYorkDayOf(start - 1)], [row.day, row.day - 1], `day ${row.day}`);
  }
  await db.run('DROP TABLE instant_days; DROP TABLE instants');
});

test('competition rank: SQL and JavaScript give every total the same rank, ties sharing one', async () => {
  assert.equal(competitionRanks([5, 3, 5, 1, 3]), [1, 3, 1, 5, 3]);
  assert.equal(competitionRanks([]), []);
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(-1, 0, 5e-324, 0.5, 1, 1.5, 1e300), { maxLength: 40 }), fc.nat(3), async (totals, groups) => {
      if (totals.length === 0) return;
      const rows = await db.rows<{ i: number; rank: bigint }>(
        `SELECT i, ${competitionRankSql('total', 'season')} AS rank
         FROM (SELECT unnest(range(len($totals::DOUBLE[])))::INTEGER AS i, unnest($totals::DOUBLE[]) AS total) t, (SELECT 1 AS season) s
         WHERE i % ${groups + 1} >= 0
         ORDER BY i`,
        { totals: `[${totals.join(',')}]` },
      );
      assert.equal(
        rows.map((row) => Number(row.rank)),
        competitionRanks(totals),
      );
    }),
    { numRuns: 100 },
  );
});

test.run();
