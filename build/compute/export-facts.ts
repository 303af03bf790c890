/**
 * The two facts of the whole export that every wallet's documents and `_snapshot/meta.json` share:
 * the daily table's `asOf` (SPEC 3.3: the last closed day `L` when at least one wallet has a row,
 * that is a snapshot dated <= L, else null) and the explorer's example wallet (one with venue-B
 * sub-accounts when there is one, else the first by address, among the wallets with a snapshot).
 *
 * A whole build reads both off its `snapshots`. A shard's build holds the snapshots of its own
 * wallets only (build/input/load.ts), yet must write the same bytes as every other shard; it
 * finds both facts by running the history rule itself on a few wallets of the whole export, in
 * the order the example is chosen in:
 * - a wallet has a snapshot only if one of its rows (up to now) has a raw balance > 0: balances
 *   are non-negative (the contract), so a non-zero sum needs an account whose balance is > 0;
 * - the converse fails (5 then 0 in one transaction emits nothing), so the candidates are taken in
 *   batches, each batch's snapshots computed exactly (history.ts), until both facts are known.
 * The first batch decides in any real export; an export where it does not costs more batches,
 * each 16 times larger, never a wrong answer.
 */
import type { Database } from '../database.ts';
import { dayNumber } from './days.ts';
import { walletOfSeriesSql } from './series-key.ts';
import { computeSnapshotsOf } from './history.ts';
import { balanceRowsOfWalletsSql, walletsWithPositiveRowsSql } from '../input/load.ts';

export interface ExportFacts {
  dailyAsOf: string | null;
  exampleWallet: string | null;
}

/** The first batch of candidates; later batches are 16 times the one before. */
const FIRST_BATCH = 64;

/** Both facts read off a table of snapshots: the example is the first of its wallets in `exampleOrderSql`. */
export async function factsOfSnapshots(db: Database, snapshots: string, lastClosedDay: string): Promise<ExportFacts> {
  const [row] = await db.rows<{ any_closed: boolean; example: string | null }>(`
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
  return `EXISTS (SELECT 1 FROM venue_b_accounts v WHERE v.owner_id = ${wallet}) DESC, ${address}`;
}

/** Both facts for a night split among shards, found by probing candidate wallets of the whole export. */
export async function probeExportFacts(db: Database, nowSeconds: number, lastClosedDay: string): Promise<ExportFacts> {
  // Every wallet with a row > 0 up to now, numbered in the example's order.
  await db.run(
    `CREATE TABLE probe_candidates AS
     SELECT w.wallet, (row_number() OVER (ORDER BY ${exampleOrderSql('w.wallet', 'a.address')}))::INTEGER AS position
     FROM (${walletsWithPositiveRowsSql()}) w
     JOIN addresses a ON a.id = w.wallet`,
    { now: nowSeconds },
  );
  const [{ candidates } = { candidates: 0 }] = await db.rows<{ candidates: number }>('SELECT count(*)::INTEGER AS candidates FROM probe_candidates');
  let exampleWallet: string | null = null;
  let dailyAsOf: string | null = null;
  for (let first = 1, size = FIRST_BATCH; first <= candidates; first += size, size *= 16) {
    for (const table of ['probe_rows', 'probe_days', 'probe_snapshots']) await db.run(`DROP TABLE IF EXISTS ${table}`);
    await db.run(`CREATE TABLE probe_rows AS ${balanceRowsOfWalletsSql(`SELECT wallet AS id FROM probe_candidates WHERE position BETWEEN ${first} AND ${first + size - 1}`)}`);
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
