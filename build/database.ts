import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBMaterializedResult, type DuckDBValue } from '@duckdb/node-api';

export interface Database {
  connection: DuckDBConnection;
  /** Runs statements for their effect. */
  run(sql: string, values?: Record<string, DuckDBValue>): Promise<void>;
  /** Runs a query whose result is small (a few hundred rows at most) and returns row objects. */
  rows<T = Record<string, unknown>>(sql: string, values?: Record<string, DuckDBValue>): Promise<T[]>;
  /** Another connection to the same database, for a second result read alongside the first. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

/**
 * A run's own database (`build`'s or `prepare`'s): `NAME.duckdb` in its scratch folder, spilling
 * into `spill/` beside it, with the run's threads and memory limit.
 */
export function openScratchDatabase(scratch: string, name: string, settings: { threads: number; memoryLimit: string }): Promise<Database> {
  return openDatabase({
    file: path.join(scratch, `${name}.duckdb`),
    tempDir: path.join(scratch, 'spill'),
    threads: settings.threads,
    memoryLimit: settings.memoryLimit,
  });
}

/**
 * One DuckDB instance per build, backed by a database file so that tables larger than `memoryLimit`
 * spill to disk instead of growing the process (the build's memory stays bounded whatever the
 * input's size).
 */
export async function openDatabase(options: { file: string; threads: number; memoryLimit: string; tempDir: string }): Promise<Database> {
  const instance = await DuckDBInstance.create(options.file, {
    threads: String(options.threads),
    memory_limit: options.memoryLimit,
    temp_directory: options.tempDir,
    // Row order is always fixed by an explicit ORDER BY where it matters.
    preserve_insertion_order: 'false',
    // The allocator hands freed memory back to the system on a thread of its own: without it,
    // prepare at 1,000,000 wallets came close to its 2 GB (docs/decisions.md, "Memory").
    allocator_background_threads: 'true',
  });
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  // WALLET_SNAPSHOT_PROFILE=1 prints each statement's wall and CPU seconds (the process's CPU, DuckDB's
  // threads included), to find where a build's time goes.
  const profile = process.env.WALLET_SNAPSHOT_PROFILE
    ? async <T>(sql: string, work: () => Promise<T>): Promise<T> => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        const result = await work();
        const used = process.cpuUsage(cpu);
        process.stderr.write(
          `[sql ${((performance.now() - started) / 1000).toFixed(2)}s ${((used.user + used.system) / 1e6).toFixed(2)} CPU-s] ${sql.replace(/\s+/g, ' ').trim().slice(0, 110)}\n`,
        );
        return result;
      }
    : <T>(_sql: string, work: () => Promise<T>) => work();
  return {
    connection,
    async run(sql, values) {
      await profile(sql, () => connection.run(sql, values));
    },
    async rows<T>(sql: string, values?: Record<string, DuckDBValue>) {
      const reader: DuckDBMaterializedResult = await profile(sql, () => connection.run(sql, values));
      const result = await reader.getRowObjectsJS();
      return result as T[];
    },
    connect() {
      return instance.connect();
    },
    close() {
      connection.disconnectSync();
      instance.closeSync();
    },
  };
}

/** Quotes a string as a SQL literal (file paths cannot be bound as parameters of read_parquet). */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * A file path as a SQL literal that DuckDB's file readers take as that one path. They expand `*`,
 * `?` and `[...]` as a glob, so `--input exports[1]` read `exports1/` when both existed; a
 * bracket class holding the one character is the escape their glob knows.
 */
export function literalPathSql(file: string): string {
  return sqlString(file.replace(/[*?[]/g, (character) => `[${character}]`));
}
