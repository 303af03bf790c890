/**
 * A points history cut to the days from `from` to `to` in every season; a season whose days all
 * fall outside keeps its entry with `days: []`. Parsed and written again: every number of the
 * document is a double the build wrote as JSON.stringify does, so it comes back byte for byte
 * (unlike the daily portfolio's exact balances, see tree/daily-rows.ts).
 */
import type { PointsHistory } from '../schemas/points-history.ts';

export function filterPointsHistory(document: Uint8Array, from: string | null, to: string | null): Uint8Array<ArrayBuffer> {
  const history = JSON.parse(new TextDecoder().decode(document)) as PointsHistory;
  const inRange = (date: string) => (from === null || date >= from) && (to === null || date <= to);
  const filtered: PointsHistory = {
    seasons: history.seasons.map((season) => ({ ...season, days: season.days.filter((day) => inRange(day.date)) })),
  };
  return new TextEncoder().encode(JSON.stringify(filtered)) as Uint8Array<ArrayBuffer>;
}
