/**
 * Which daily positions have no price (`usdPerToken` 0 when no price of its chain and token is
 * dated on or before the day: core/position-value.ts), told per chain and token with the first and
 * last day it happens, so that the build's warning says where to look. The documents themselves
 * count the same positions as they write them (build/write/daily-document.ts), and every build
 * compares the two counts (build/stages/find-unpriced.ts); this query finds where they are, with the
 * end of day and the first prices of daily-positions.ts.
 */
import type { Database } from '../database.ts';
import { TOKEN_KEYS } from '../../schemas/token-keys.ts';
import { type Shard, shardFilterSql } from '../../core/shard.ts';
import { dayNumber } from './days.ts';
import { chainIndexOfSeriesSql, tokenIndexOfSeriesSql, walletOfSeriesSql } from './series-key.ts';
import { FIRST_PRICE_DAYS_SQL, heldBalancesSql, lastSnapshotOfDaySql } from './daily-positions.ts';
import { isWithoutPriceSql, lastDayWithoutPriceSql } from '../../core/position-value.ts';

export interface UnpricedSeries {
  chainId: string;
  token: string;
  positions: number;
  firstDay: string;
  lastDay: string;
}

export async function findUnpricedPositions(db: Database, lastClosedDay: string, shard: Shard | null): Promise<UnpricedSeries[]> {
  const rows = await db.rows<{ chain_id: string; token_index: number; positions: number; first_day: number; last_day: number }>(
    `
    WITH
    -- The first price of each chain (by its index) and token dated on or before L: days before it have none.
    first_price_days AS (${FIRST_PRICE_DAYS_SQL}),
    -- The balances held at the days' ends (daily-positions.ts). Only the snapshots dated before
    -- their token's first price can hold an unpriced day, and the days before a cut depend only
    -- on the snapshots before it: the rest are left out before the window, which over every
    -- snapshot of a 1,000,000-wallet shard outgrew 1 GB.
    days AS (${lastSnapshotOfDaySql(
      `snapshots s JOIN addresses a ON a.id = ${walletOfSeriesSql('s.series')}
       LEFT JOIN first_price_days p
         ON p.chain_index = ${chainIndexOfSeriesSql('s.series')} AND p.token_index = ${tokenIndexOfSeriesSql('s.series')}`,
      `s.day <= $last AND ${isWithoutPriceSql('s.day', 'p.first_day')} AND ${shardFilterSql(shard, 'a.address')}`,
    )}),
    held AS (${heldBalancesSql('days')}),
    unpriced AS (
      SELECT c.chain_id, ${tokenIndexOfSeriesSql('h.series')} AS token_index, h.from_day,
             ${lastDayWithoutPriceSql('h.to_day', 'p.first_day')} AS to_day
      FROM held h
      JOIN chains c ON c.chain_index = ${chainIndexOfSeriesSql('h.series')}
      LEFT JOIN first_price_days p ON p.chain_index = c.chain_index AND p.token_index = ${tokenIndexOfSeriesSql('h.series')}
      WHERE h.raw <> 0
    )
    SELECT chain_id::VARCHAR AS chain_id, token_index, sum(to_day - from_day + 1)::DOUBLE AS positions,
           min(from_day) AS first_day, max(to_day) AS last_day
    FROM unpriced WHERE from_day <= to_day
    GROUP BY chain_id, token_index
    ORDER BY chain_id, token_index`,
    { last: dayNumber(lastClosedDay), last_date: lastClosedDay },
  );
  return rows.map((row) => ({
    chainId: row.chain_id,
    token: TOKEN_KEYS[row.token_index]!,
    positions: Number(row.positions),
    firstDay: dayText(row.first_day),
    lastDay: dayText(row.last_day),
  }));
}

/** `chain 10 venueALp from 2024-11-21 to 2025-01-14 (120 positions); ...`, the first few and how many more. */
export function describeUnpriced(series: UnpricedSeries[], shown = 5): string {
  const listed = series
    .slice(0, shown)
    .map((one) => `chain ${one.chainId} ${one.token} from ${one.firstDay} to ${one.lastDay} (${one.positions})`);
  const more = series.length - listed.length;
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more chain and token${more === 1 ? '' : 's'}` : ''}`;
}

function dayText(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}
