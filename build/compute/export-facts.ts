/**
 * The two facts of the whole export that every wallet's documents and `_snapshot/meta.json` share:
 * the daily table's `asOf` (docs/semantics.md#daily-portfolio: the last closed day `L` when at least one wallet has a row,
 * that is a snapshot dated <= L, else null) and the explorer's example wallet (one with venue-B
 * sub-accounts when there is one, else the first by address, among the wallets with a snapshot).
 *
 * They are found on the night's side of every build, before any shard's side: a shard holds the
 * snapshots of its own wallets only, yet must write the same bytes as every other shard. The
 * night finds both facts by running the history rule itself on a few wallets of the whole export, in
 * the order the example is chosen in: every address is a candidate, taken in batches, each batch's
 * snapshots computed exactly (history.ts), until both facts are known. A batch is a prefix of the
 * order, so the first wallet with a snapshot in it is the first of the whole export. The first
 * batch decides in any real export; an export where it does not (its first addresses without a
 * snapshot: sub-accounts, wallets with points only, balances that come back to 0) costs more
 * batches, each 16 times larger, never a wrong answer. Candidates are not narrowed to the wallets
 * with a balance above 0: finding those read every balance row, for a batch that decides anyway.
 */
import type { Database } from '../database.ts';
import { dayNumber } from './days.ts';
import { walletOfSeriesSql } from './series-key.ts';
import { hasSubAccountsSql } from './attribution.ts';
import { computeSnapshotsOf } from './history.ts';
import { balanceRowsOfWalletsSql, type NightBalanceRows } from '../input/load.ts';

export interface ExportFacts {
  dailyAsOf: string | null;
  exampleWallet: string | null;
}

/** The first batch of candidates; later batches are 16 times the one before. */
const FIRST_BATCH = 64;

/** Both facts read off a table of snapshots: the example is the first of its wallets in `exampleOrderSql`. */
async function factsOfSnapshots(db: Database, snapshots: string, lastClosedDay: string): Promise<ExportFacts> {
  const [row] = await db.rows<{ any_closed: boolean; example: string | null }>(
    `
    SELECT (SELECT coalesce(min(day) <= $last, false) FROM ${snapshots}) AS any_closed,
           (SELECT a.address
            FROM (SELECT DISTINCT ${walletOfSeriesSql('series')} AS wallet FROM ${snapshots}) w
            JOIN addresses a ON a.id = w.wallet
            ORDER BY ${exampleOrderSql('w.wallet', 'a.address')}
            LIMIT 1) AS example`,
    { last: dayNumber(lastClosedDay) },
  );
  return { dailyAsOf: row!.any_closed ? lastClosedDay : null, exampleWallet: row!.example };
}

/** The example's order: wallets that own venue-B sub-accounts first, then by address. */
function exampleOrderSql(wallet: string, address: string): string {
  return `${hasSubAccountsSql(wallet)} DESC, ${address}`;
}

/** Both facts of the night, found by probing candidate wallets of the whole export. */
export async function probeExportFacts(
  db: Database,
  nowSeconds: number,
  lastClosedDay: string,
  rowsFrom: NightBalanceRows,
): Promise<ExportFacts> {
  // Every address of the export, numbered in the example's order.
  await db.run(
    `CREATE TABLE probe_candidates AS
     SELECT a.id AS wallet, (row_number() OVER (ORDER BY ${exampleOrderSql('a.id', 'a.address')}))::INTEGER AS position
     FROM addresses a`,
  );
  const [{ candidates } = { candidates: 0 }] = await db.rows<{ candidates: number }>(
    'SELECT count(*)::INTEGER AS candidates FROM probe_candidates',
  );
  let exampleWallet: string | null = null;
  let dailyAsOf: string | null = null;
  for (let first = 1, size = FIRST_BATCH; first <= candidates; first += size, size *= 16) {
    for (const table of ['probe_rows', 'probe_days', 'probe_snapshots']) await db.run(`DROP TABLE IF EXISTS ${table}`);
    await db.run(
      `CREATE TABLE probe_rows AS ${balanceRowsOfWalletsSql(`SELECT wallet AS id FROM probe_candidates WHERE position BETWEEN ${first} AND ${first + size - 1}`, rowsFrom)}`,
    );
    await computeSnapshotsOf(db, nowSeconds, { rows: 'probe_rows', days: 'probe_days', snapshots: 'probe_snapshots' });
    const found = await factsOfSnapshots(db, 'probe_snapshots', lastClosedDay);
    // Batches come in the example's order: the first batch with a snapshot holds the example.
    exampleWallet ??= found.exampleWallet;
    dailyAsOf ??= found.dailyAsOf;
    if (exampleWallet !== null && dailyAsOf !== null) break;
  }
  for (const table of ['probe_candidates', 'probe_rows', 'probe_days', 'probe_snapshots']) await db.run(`DROP TABLE IF EXISTS ${table}`);
  return { dailyAsOf, exampleWallet };
}
