/**
 * The floor of an incremental night (bench/incremental.ts): one DuckDB scan that hashes every row
 * of the seven files of `process.argv[2]`, on the threads the prepares use (`process.argv[3]`,
 * default 2, prepare's own default). Prints the rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { literalPathSql } from '../build/database.ts';

const input = process.argv[2]!;
const threads = process.argv[3] ?? '2';
const instance = await DuckDBInstance.create(':memory:', { threads, memory_limit: '1GB' });
const db = await instance.connect();
const scans = fs
  .readdirSync(input)
  .filter((name) => name.endsWith('.parquet'))
  .map((name) => `SELECT count(*) AS rows, sum(hash(t)) AS digest FROM read_parquet(${literalPathSql(path.join(input, name))}) t`);
// The digests are printed: a digest nothing reads would be left out of the plan, and with it every hash.
const reader = await db.runAndReadAll(
  `SELECT sum(rows)::BIGINT AS rows, sum(digest)::VARCHAR AS digest FROM (${scans.join(' UNION ALL ')})`,
);
const [result] = reader.getRowObjects();
process.stdout.write(`rows ${String(result!.rows)} digest ${String(result!.digest)}\n`);
db.disconnectSync();
instance.closeSync();
