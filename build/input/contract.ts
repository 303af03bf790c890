/**
 * The export contract (docs/input.md), as data: the seven Parquet files, their columns and what
 * each value must be. read.ts checks files, columns and types against it; check.ts checks every
 * value.
 */
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';

/**
 * How a column is read. Every kind accepts the types that cast to it without losing anything:
 * - `integer`: any integer width, DECIMAL(p,0), or decimal-integer text;
 * - `amount`: a non-negative raw integer below 10^38 (decimal-integer text, DECIMAL(p,0) or integers);
 * - `number`: any numeric type or numeric text, finite;
 * - `date`: DATE or `YYYY-MM-DD` text;
 * - `address`, `token`, `text`: text.
 */
type ColumnKind = 'integer' | 'amount' | 'number' | 'date' | 'address' | 'token' | 'text';

export interface ColumnContract {
  name: string;
  kind: ColumnKind;
  /** Only `seasons.as_of` may be null. */
  nullable?: boolean;
  /** A `number` column must be >= 0. */
  nonNegative?: boolean;
  /** The inclusive range of an integer column. */
  range?: readonly [bigint, bigint];
  /** What the value must be, as the error message words it. */
  expected: string;
}

export interface FileContract {
  /** The DuckDB table name the checked, normalised rows land in. */
  table: string;
  file: string;
  columns: ColumnContract[];
}

const INT32: readonly [bigint, bigint] = [-(2n ** 31n), 2n ** 31n - 1n];
const INT64: readonly [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];
/** Unix seconds whose date DuckDB and luxon can represent (years 1 to 9999). */
const UNIX_SECONDS: readonly [bigint, bigint] = [-62135596800n, 253402300799n];

const chainId: ColumnContract = { name: 'chain_id', kind: 'integer', range: INT64, expected: 'an integer chain ID' };
const token: ColumnContract = { name: 'token', kind: 'token', expected: `one of the token keys ${TOKEN_KEYS.join(', ')}` };
const season: ColumnContract = { name: 'season', kind: 'integer', range: [1n, INT32[1]], expected: 'a season number >= 1' };
const address = (name: string): ColumnContract => ({ name, kind: 'address', expected: '0x followed by 40 hex digits' });
const date = (name: string): ColumnContract => ({ name, kind: 'date', expected: 'a real date (DATE or YYYY-MM-DD text)' });

export const INPUT_FILES: FileContract[] = [
  {
    table: 'balances',
    file: 'balances.parquet',
    columns: [
      chainId,
      { name: 'block_number', kind: 'integer', range: INT64, expected: 'an integer block number' },
      { name: 'log_index', kind: 'integer', range: INT32, expected: 'an integer log index' },
      { name: 'tx_hash', kind: 'text', expected: 'a transaction hash' },
      { name: 'timestamp', kind: 'integer', range: UNIX_SECONDS, expected: 'Unix seconds between years 1 and 9999' },
      address('address'),
      token,
      { name: 'balance', kind: 'amount', expected: 'a non-negative integer below 10^38 (raw token units)' },
    ],
  },
  {
    table: 'tokens',
    file: 'tokens.parquet',
    columns: [chainId, token, { name: 'decimals', kind: 'integer', range: [0n, 36n], expected: 'an integer from 0 to 36' }],
  },
  {
    table: 'venue_b_accounts',
    file: 'venue_b_accounts.parquet',
    columns: [chainId, address('account'), address('owner')],
  },
  {
    table: 'prices',
    file: 'prices.parquet',
    columns: [chainId, token, date('date'), { name: 'usd_price', kind: 'number', nonNegative: true, expected: 'a finite number >= 0' }],
  },
  {
    table: 'points',
    file: 'points.parquet',
    columns: [season, date('date'), address('address'), { name: 'points', kind: 'number', expected: 'a finite number' }],
  },
  {
    table: 'multipliers',
    file: 'multipliers.parquet',
    columns: [
      season,
      { name: 'position', kind: 'text', expected: 'a position key' },
      { name: 'multiplier', kind: 'number', expected: 'a finite number' },
      date('first_day'),
      date('last_day'),
    ],
  },
  {
    table: 'seasons',
    file: 'seasons.parquet',
    columns: [season, { ...date('as_of'), nullable: true, expected: 'a real date (DATE or YYYY-MM-DD text) or null' }],
  },
];
