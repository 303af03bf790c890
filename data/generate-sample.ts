/**
 * Regenerates data/sample/ (the bundled exports `npm start` builds): `npm run sample`.
 * Same seed, same bytes. Besides the random wallets it holds one hand-written story wallet,
 * 0xa11ce..., that walks through the rules a reader most wants to see:
 * - events at 23:30 and 00:30 New York time around both DST changes (2025-03-09, 2025-11-02);
 * - a raw balance above 2^64 (123456.789012345678901234 uty at 18 decimals);
 * - a same-transaction move into its own venue-B sub-account (no snapshot: the sum is unchanged);
 * - a row that repeats the previous balance (no snapshot), and mixed-case addresses.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDataset, type DatasetOptions } from './generate.ts';

export const STORY_WALLET = '0xa11ce00000000000000000000000000000000001';
export const STORY_SUB_ACCOUNT = '0xa11ce000000000000000000000000000000000b1';
const STORY_MIXED_CASE = '0xA11CE00000000000000000000000000000000001';

// (chain_id, block_number, log_index, tx_hash, timestamp, address, token, balance)
const storyRows = `VALUES
  (1::BIGINT, 900::BIGINT, 0, '0xsample01', 1741494600::BIGINT, '${STORY_MIXED_CASE}', 'uty', '1000000000000000000000'),
  (1, 901, 3, '0xsample02', 1741498200, '${STORY_WALLET}', 'uty', '123456789012345678901234'),
  (1, 902, 1, '0xsample03', 1741501800, '${STORY_WALLET}', 'uty', '123456789012345678901234'),
  (1, 903, 5, '0xsample04', 1762054200, '${STORY_WALLET}', 'uty', '100000000000000000000000'),
  (1, 903, 6, '0xsample04', 1762054200, '${STORY_SUB_ACCOUNT}', 'uty', '23456789012345678901234'),
  (1, 904, 2, '0xsample05', 1762061400, '${STORY_SUB_ACCOUNT}', 'venueBUsdc', '2500000000'),
  (8453, 905, 0, '0xsample06', 1762065000, '${STORY_WALLET}', 'venueALp', '5000000000000000000')`;

export const SAMPLE_OPTIONS: Omit<DatasetOptions, 'outDir'> = {
  wallets: 40,
  seed: 20251105,
  startDate: '2025-08-01',
  days: 120,
  seasonOneEnd: '2025-11-05',
  rowsPerWallet: 25,
  extraBalances: storyRows,
  extraSubAccounts: `VALUES (1::BIGINT, '${STORY_SUB_ACCOUNT}', '${STORY_WALLET}')`,
  threads: 1,
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sample');
  await generateDataset({ ...SAMPLE_OPTIONS, outDir });
  process.stdout.write(`wrote ${outDir}\n`);
}
