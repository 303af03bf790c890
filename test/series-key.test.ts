/** The series key (build/compute/series-key.ts): exact round trips at its bounds, and the documents' order. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DuckDBInstance } from '@duckdb/node-api';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import {
  checkTokenKeysFit,
  chainIndexOfSeriesSql,
  seriesKeySql,
  TOKEN_BITS,
  tokenIndexOfSeriesSql,
  walletChainKeySql,
  walletChainOfSeriesSql,
  walletOfSeriesSql,
} from '../build/compute/series-key.ts';

const MAX_WALLET = 2 ** 31 - 1;
const MAX_CHAIN = 2 ** 29 - 1;
const triples: [number, number, number][] = [];
for (const wallet of [1, 2, 255, 256, 2 ** 24, MAX_WALLET]) {
  for (const chain of [0, 1, 7, 8, MAX_CHAIN]) for (const token of [0, 1, 6, 2 ** TOKEN_BITS - 1]) triples.push([wallet, chain, token]);
}

test('wallet, chain and token come back exactly from the key, at the largest values too', async () => {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  const values = triples.map(([w, c, t]) => `(${w}, ${c}, ${t})`).join(', ');
  const reader = await connection.runAndReadAll(`
    WITH t(wallet, chain, token) AS (VALUES ${values}),
         k AS (SELECT *, ${seriesKeySql('wallet', 'chain', 'token')} AS series FROM t)
    SELECT wallet, chain, token,
           ${walletOfSeriesSql('series')} AS wallet_back, ${chainIndexOfSeriesSql('series')} AS chain_back,
           ${tokenIndexOfSeriesSql('series')} AS token_back,
           ${walletChainOfSeriesSql('series')} = ${walletChainKeySql('wallet', 'chain')} AS same_wallet_chain,
           series >= 0 AS non_negative,
           row_number() OVER (ORDER BY series) AS by_key, row_number() OVER (ORDER BY wallet, chain, token) AS by_triple
    FROM k`);
  const rows = reader.getRowObjectsJS() as Record<string, unknown>[];
  assert.is(rows.length, triples.length);
  for (const row of rows) {
    assert.equal([row.wallet_back, row.chain_back, row.token_back], [row.wallet, row.chain, row.token]);
    assert.ok(row.same_wallet_chain);
    assert.ok(row.non_negative);
    // Ordering by the key is ordering by (wallet, chain, token): the order documents are written in.
    assert.is(row.by_key, row.by_triple);
  }
  connection.closeSync();
});

test("the token keys fit the key's token bits: an eighth fits, a ninth fails loudly when the module loads", () => {
  assert.is(TOKEN_BITS, 3);
  assert.ok(TOKEN_KEYS.length <= 2 ** TOKEN_BITS);
  checkTokenKeysFit(8);
  assert.throws(
    () => checkTokenKeysFit(9),
    (error: Error) =>
      error.message ===
      '9 token keys in schemas/token-keys.ts, but a series key holds 8 (TOKEN_BITS 3 in build/compute/series-key.ts): widen the key first',
  );
});

test.run();
