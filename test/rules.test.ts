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
import { openDatabase, type Database } from '../build/database.ts';
import { isParticipant, isParticipantSql } from '../core/participant.ts';
import { NO_PRICE, totalValueUsd, usdPerTokenSql, valueUsd, valueUsdSql } from '../core/position-value.ts';
import { shardFilterSql, shardNumberSql, shardOf } from '../core/shard.ts';
import { Miniflare } from 'miniflare';
import { bundleWorkerSources } from '../preview/worker-from-sources.ts';
import { COMPATIBILITY_DATE } from '../preview/workerd.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The product's source: everything but the tests, the benchmark and the sample data's generator. */
const FOLDERS = ['core', 'build', 'server', 'publish', 'preview', 'tree', 'schemas', 'cli', 'explorer', 'assembly', 'bin', 'scripts'];

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
      'publish/pack-shard.ts': "an archive's MD5, which S3 gives as its ETag, to skip archives stored whole",
      'publish/stage-shard.ts': "the stored archives' ETags (their MD5), read for pack-shard.ts",
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
    spellings: [/coalesce\(\s*[\w.]*owner_id/i, /account_id\s*=\s*[\w.]*\.account\b/i, /\.account\s*=\s*[\w.]*account_id/i],
    copies: [
      'LEFT JOIN venue_b_accounts v ON v.chain_id = b.chain_id AND v.account_id = b.account',
      'JOIN address_shards s ON s.id = coalesce(v.owner_id, b.account)',
      'JOIN owners o ON b.account = o.account_id',
    ],
  },
  {
    name: "a daily position's value (valueUsd = balance * usdPerToken, 0 without a price)",
    places: ['core/position-value.ts', 'assembly/document-bytes.ts'],
    spellings: [/usd_price\s*,\s*0\s*\)/i, /balance\s*\*\s*[\w.]*usd_?per_?token/i, /usd_?per_?token\s*\*/i, /usdPerToken\\?"?:0/],
    told: ["'balance * usdPerToken'", 'is not balance * usdPerToken`'],
    copies: [
      'q.raw::DOUBLE / pow(10::DOUBLE, q.decimals) * coalesce(p.usd_price, 0) AS value',
      'position.valueUsd !== position.balance * position.usdPerToken',
      'const NO_PRICE = constant(\',"usdPerToken":0,"valueUsd":\');',
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

test.run();
