/**
 * `verify` in threads: the wallet folders checked in batches by verify's threads find what the
 * main thread finds (a tampered document, an extra file in a wallet folder, a rank that only all
 * wallets together disprove); the fast schema test never accepts what zod refuses; the one-pass
 * number check says what writing each number back says; and progress goes to stderr.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { balance, build, tempDir } from './helpers/fixtures.ts';
import { verifyTree } from '../tree/verify.ts';
import { fastAcceptor } from '../tree/verify-schema.ts';
import fc from 'fast-check';
import { pairWithParsed, readNumberTexts, scanNumberTexts } from '../tree/verify-exact.ts';
import { Progress } from '../core/progress.ts';
import { DailyPortfolioSchema } from '../schemas/daily-portfolio.ts';
import { PortfolioHistorySchema } from '../schemas/portfolio-history.ts';
import { PointsStandingSchema } from '../schemas/points.ts';
import { PointsHistorySchema } from '../schemas/points-history.ts';
import { LeaderboardSchema } from '../schemas/leaderboard.ts';
import { SnapshotMetaSchema } from '../schemas/meta.ts';
import { SeasonsIndexSchema } from '../schemas/seasons.ts';

const WALLETS = Array.from({ length: 12 }, (_, i) => `0x${(i + 1).toString(16).padStart(2, '0').repeat(20)}`);
const LAST = WALLETS.at(-1)!;
let tree = '';

test.before(async () => {
  const built = await build({
    balances: WALLETS.map((address, i) =>
      balance({ address, block_number: i + 1, timestamp: 1_763_400_000 + i * 3_600, balance: `${i + 1}234567890123456789012` }),
    ),
    prices: [{ chain_id: 1, token: 'uty', date: '2025-11-17', usd_price: 1.25 }],
    seasons: [{ season: 1, as_of: null }],
    points: WALLETS.map((address, i) => ({ season: 1, date: '2025-11-20', address, points: 10 + i })),
  });
  tree = built.out;
});

/** A copy of the tree changed by `tamper`, verified by two threads, one wallet per batch. */
async function failuresInThreads(tamper: (dir: string) => void): Promise<string> {
  const dir = path.join(tempDir(), 'tree');
  fs.cpSync(tree, dir, { recursive: true, dereference: true });
  tamper(dir);
  const result = await verifyTree(dir, { threads: 2, batchSize: 1 });
  return result.failures.join('\n');
}

const edit = (dir: string, file: string, change: (text: string) => string) => {
  const target = path.join(dir, file);
  const before = fs.readFileSync(target, 'utf8');
  const after = change(before);
  assert.is.not(after, before, `the tampering did not change ${file}`);
  fs.writeFileSync(target, after);
};

/** The record rewritten to match the edited file. */
const rewriteRecord = (dir: string, file: string) => {
  const hash = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(dir, file)))
    .digest('hex');
  edit(dir, '_snapshot/manifests/1-of-1.sha256', (text) => text.replace(new RegExp(`^[0-9a-f]{64}  ${file}$`, 'm'), `${hash}  ${file}`));
  const list = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(dir, '_snapshot/manifests/1-of-1.sha256')))
    .digest('hex');
  edit(dir, '_snapshot/manifests/1-of-1.json', (text) => text.replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${list}"`));
};

test('in threads, the tree as built verifies, and every document is counted', async () => {
  const threaded = await verifyTree(tree, { threads: 2, batchSize: 1 });
  const inline = await verifyTree(tree, { threads: 0 });
  assert.equal(threaded.failures, []);
  assert.equal([threaded.files, threaded.wallets, threaded.coverage], [inline.files, inline.wallets, inline.coverage]);
  assert.is(threaded.wallets, WALLETS.length);
});

test("in threads: a digit beyond a double's in the last wallet, record rewritten", async () => {
  const daily = `v1/address/${LAST}/portfolio/daily.json`;
  const failures = await failuresInThreads((dir) => {
    edit(dir, daily, (text) => text.replace('12234.567890123456789012', '12234.567890123456789013'));
    rewriteRecord(dir, daily);
  });
  assert.match(
    failures,
    `${daily}: the positions of 2025-11-17 are not the end-of-day balances of portfolio.json (expected 1 uty 12234.567890123456789012; found 1 uty 12234.567890123456789013)`,
  );
});

test('in threads: an edited byte, an extra file in a wallet folder, a wallet folder deleted', async () => {
  const failures = await failuresInThreads((dir) => {
    edit(dir, `v1/address/${WALLETS[5]}/portfolio.json`, (text) => text.replace('"timestamp":', '"timestamp":1'));
    fs.writeFileSync(path.join(dir, `v1/address/${WALLETS[7]}/portfolio/weekly.json`), '{}');
    fs.rmSync(path.join(dir, `v1/address/${WALLETS[9]}`), { recursive: true });
  });
  assert.match(failures, `v1/address/${WALLETS[5]}/portfolio.json: edited (its bytes are not the ones the build wrote)`);
  assert.match(failures, `v1/address/${WALLETS[7]}/portfolio/weekly.json: extra file (not written by the build)`);
  assert.match(failures, `v1/address/${WALLETS[9]}/portfolio.json: missing`);
});

test('in threads: a rank that only all the wallets together disprove, record rewritten', async () => {
  // The wallet with the fewest points is first in the folder order and outside no leaderboard
  // (12 participants are all listed): its rank is checked against its entry, and across all files.
  const points = `v1/address/${WALLETS[0]}/points.json`;
  const failures = await failuresInThreads((dir) => {
    edit(dir, points, (text) => text.replace('"rank":12', '"rank":11'));
    rewriteRecord(dir, points);
  });
  assert.match(failures, 'season 1: a participant with totalPoints 10 has rank 11, expected 12');
});

test('the fast schema test accepts no document zod refuses (every document of a tree, and changes to them)', () => {
  const schemas: [string, z.ZodType][] = [
    [`v1/address/${WALLETS[0]}/portfolio/daily.json`, DailyPortfolioSchema],
    [`v1/address/${WALLETS[0]}/portfolio.json`, PortfolioHistorySchema],
    [`v1/address/${WALLETS[0]}/points.json`, PointsStandingSchema],
    [`v1/address/${WALLETS[0]}/points/history.json`, PointsHistorySchema],
    ['v1/leaderboard/s1.json', LeaderboardSchema],
    ['_snapshot/meta.json', SnapshotMetaSchema],
    ['v1/seasons.json', SeasonsIndexSchema],
  ];
  const replacements: unknown[] = [null, -1, 0, 0.5, 1e300, '', 'x', '2025-02-30', '2025-11-20', 'uty', [], {}, true, 2 ** 53, -0];
  let changes = 0;
  for (const [file, schema] of schemas) {
    const accept = fastAcceptor(schema);
    assert.ok(accept, `${file}: its schema compiles`);
    const document = JSON.parse(fs.readFileSync(path.join(tree, file), 'utf8'));
    assert.ok(accept!(document), `${file} as built`);
    // Every value of the document replaced in turn by each replacement, and every key removed or doubled.
    const paths: (string | number)[][] = [];
    const walk = (value: unknown, at: (string | number)[]) => {
      paths.push(at);
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...at, i]));
      else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, [...at, key]);
    };
    walk(document, []);
    for (const at of paths.slice(1)) {
      const variants = [
        ...replacements.map((replacement) => (holder: any, key: string | number) => void (holder[key] = replacement)),
        (holder: any, key: string | number) => (Array.isArray(holder) ? void holder.splice(Number(key), 1) : void delete holder[key]),
        (holder: any, key: string | number) =>
          Array.isArray(holder) ? void holder.push(holder[key as number]) : void (holder[`${key}2`] = holder[key]),
      ];
      for (const change of variants) {
        const copy = structuredClone(document);
        const holder = at.slice(0, -1).reduce((value: any, key) => value[key], copy);
        change(holder, at.at(-1)!);
        changes++;
        if (accept!(copy)) assert.ok(schema.safeParse(copy).success, `${file}: accepted ${JSON.stringify(at)} changed, which zod refuses`);
      }
    }
  }
  assert.ok(changes > 500, `${changes} changes`);
});

const numberTextsOf = (document: string) => readNumberTexts('f', Buffer.from(document), document, JSON.parse(document));

test('the one-pass number check says what writing each number back says; texts that cannot be paired go the slow way', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const digits = (n: number) => Array.from({ length: n }, (_, i) => String(i === 0 ? 1 + random(9) : random(10))).join('');
  for (let k = 0; k < 20_000; k++) {
    const kind = random(5);
    const text =
      kind === 0
        ? String((random(1e9) / 1e9) * 10 ** (random(30) - 10))
        : kind === 1
          ? `${random(2) ? '-' : ''}${random(3) ? digits(1 + random(22)) : '0'}${random(2) ? `.${digits(1 + random(19))}` : ''}`
          : kind === 2
            ? `0.${'0'.repeat(random(9))}${digits(1 + random(17))}`
            : kind === 3
              ? `${digits(1 + random(17))}${'0'.repeat(random(8))}`
              : `${digits(1 + random(3))}.${digits(1 + random(17))}0`;
    const document = `{"valueUsd":${text},"balance":1}`;
    const result = numberTextsOf(document);
    assert.is(result.problem === null, String(Number(text)) === text, text);
  }
  const unpaired = 'f: its numbers cannot be read in document order (keys out of order?)';
  for (const document of ['{"10":{"balance":1},"2":{"balance":2}}', '{"a":1,"3":2}', '{"balance":1.5,"balance":2}']) {
    assert.is(numberTextsOf(document).problem, unpaired, document);
  }
  assert.equal(
    numberTextsOf('{"2":{"balance":1.10},"10":{"balance":2}}').problem,
    'f: balance 1.10 is not an exact decimal as the build writes it',
  );
  assert.equal(numberTextsOf('{"2":{"balance":1.25},"10":{"b\\u0061lance":2}}').balances, ['1.25', '2']);
});

test('the one pass over the bytes finds what pairing every text with its parsed number finds, on any document', () => {
  // Keys that matter to the pass: the balances', array-index keys (enumerated first by V8), a
  // non-ASCII one (its offsets in bytes differ from the text's), an escaped one, duplicates.
  const key = fc.constantFrom('balance', 'valueUsd', 'a', '0', '1', '10', '007', 'é', 'b\\u0061lance', '4294967296');
  const numberText = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
    fc.constantFrom(
      '1.10',
      '-0',
      '0',
      '1e21',
      '1E-7',
      '12345678901234567890',
      '0.1000000000000000055511151231257827',
      '-1.5',
      '2.50',
      '9007199254740993',
    ),
    fc.tuple(fc.nat(), fc.nat({ max: 99_999 })).map(([whole, fraction]) => `${whole}.${fraction}`),
  );
  const value: fc.Arbitrary<string> = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      numberText,
      fc.constantFrom('"x"', '"é\\"1.5"', 'null', 'true'),
      fc.array(tie('value') as fc.Arbitrary<string>, { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
      fc
        .array(fc.tuple(key, tie('value') as fc.Arbitrary<string>), { maxLength: 5 })
        .map((entries) => `{${entries.map(([name, item]) => `"${name}" : ${item}`).join(',')}}`),
    ),
  })).value;
  fc.assert(
    fc.property(value, (document) => {
      const bytes = Buffer.from(document, 'utf8');
      const parsed = JSON.parse(document);
      assert.equal(readNumberTexts('f', bytes, document, parsed), pairWithParsed('f', document, parsed), document);
    }),
    { numRuns: 3_000, seed: 20261129 },
  );
});

/** What the number pass (tree/number-texts.wasm) leaves to JavaScript in a document: its record count. */
function recordsLeft(document: string): number {
  const found = scanNumberTexts(Buffer.from(document));
  assert.ok(found !== null, 'the texts pair with the parsed numbers');
  return found.count;
}

test('the pass accepts the long texts JavaScript writes by writing them back, and leaves to JavaScript every text it does not accept', () => {
  let seed = 11;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 4_294_967_296;
  // Values like valueUsd: a balance times a price, most of them 16 or 17 digits long.
  const texts = Array.from({ length: 20_000 }, () =>
    String((Math.floor(next() * 1e12) / 10 ** Math.floor(next() * 12)) * (Math.round(next() * 1e8) / 1e6) * (next() < 0.5 ? -1 : 1)),
  ).filter((text) => text.replace(/[-.]/g, '').replace(/^0+/, '').length > 15);
  assert.ok(texts.length > 15_000, `${texts.length} long texts`);
  // None is left to JavaScript: each is settled by writing a double back (no record, no balance).
  assert.is(recordsLeft(`{"valueUsd":[${texts.join(',')}]}`), 0);
  // Altered by a digit, each is judged as converting and writing it back judges it.
  const altered = texts.flatMap((text) => {
    const last = Number(text.at(-1));
    return [`${text.slice(0, -1)}${(last + 1) % 10 || 1}`, `${text.slice(0, -1)}${(last + 9) % 10 || 9}`, `${text}1`, text.slice(0, -1)];
  });
  let wrong = 0;
  for (const text of altered) {
    const document = `{"valueUsd":${text},"balance":1}`;
    assert.is(numberTextsOf(document).problem === null, String(Number(text)) === text, text);
    if (String(Number(text)) !== text) wrong++;
  }
  assert.ok(wrong > altered.length / 3, `${wrong} of ${altered.length} altered texts are not JavaScript's`);
});

test('the one pass over the bytes holds on documents beyond its first room and its depth: more records than it first makes room for, nesting past its stack', () => {
  const long = Array.from({ length: 5_000 }, (_, i) => String(0.1 * (i + 3))).join(',');
  const balances = Array.from({ length: 3_000 }, (_, i) => `{"balance":${i + 1}.5}`).join(',');
  const deep = `${'['.repeat(600)}1.25${']'.repeat(600)}`;
  for (const document of [`{"valueUsd":[${long}],"rows":[${balances}]}`, `{"rows":[${balances}],"x":1.50}`, deep]) {
    const parsed = JSON.parse(document);
    assert.equal(readNumberTexts('f', Buffer.from(document), document, parsed), pairWithParsed('f', document, parsed));
  }
  assert.is(numberTextsOf(`{"rows":[${balances}]}`).balances!.length, 3_000);
});

test('progress: the stages and the wallets checked, with an ETA, on the stream given', async () => {
  let written = '';
  // A terminal's self-updating line: every tick shows (a plain line comes every 5 s only).
  const stream = { isTTY: true, write: (text: string) => ((written += text), true) } as unknown as NodeJS.WriteStream;
  const result = await verifyTree(tree, { threads: 0, batchSize: 1, progress: new Progress('tty', stream) });
  assert.equal(result.failures, []);
  assert.match(written, 'check records...');
  assert.match(written, 'check wallets...');
  assert.match(written, /check wallets: 12\/12 wallets \(100%\), \d+\/s, ETA /);
  assert.ok(result.stageSeconds['check wallets']! >= 0);
});

test.run();
