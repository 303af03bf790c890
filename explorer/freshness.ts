/**
 * How fresh the snapshot is: the last closed day (written into the page by the build), the asOf
 * of the daily documents (any daily answer carries it: the page asks for an address that has no
 * history) and each season's asOf, status and participants (`GET /v1/seasons`).
 */
import { getDaily } from './api.ts';
import { element, table } from './dom.ts';
import type { ExactSeasons, SnapshotFacts } from './documents.ts';

/** A well-formed address no wallet has: its daily answer is the no-history one, which carries the asOf. */
const NO_HISTORY_ADDRESS = '0x0000000000000000000000000000000000000000';

export async function renderFreshness(target: HTMLElement, facts: SnapshotFacts, seasons: ExactSeasons): Promise<void> {
  const daily = await getDaily(NO_HISTORY_ADDRESS);
  target.replaceChildren(
    element(
      'dl',
      { class: 'facts' },
      element(
        'div',
        {},
        element('dt', {}, 'Last closed New York day'),
        element('dd', { 'data-fact': 'last-closed-day' }, facts.lastClosedDay),
      ),
      element(
        'div',
        {},
        element('dt', {}, 'Daily portfolios as of'),
        element('dd', { 'data-fact': 'daily-as-of' }, daily.asOf ?? 'none (no closed day has a balance)'),
      ),
      element(
        'div',
        {},
        element('dt', {}, 'Known seasons'),
        element('dd', { 'data-fact': 'season-count' }, String(seasons.seasons.length)),
      ),
    ),
    table(
      'seasons',
      "Seasons: leaderboards and points standings are as of their season's day",
      [
        { heading: 'Season', cell: (row) => `Season ${row.season.value}` },
        { heading: 'Status', cell: (row) => (row.frozen ? 'frozen' : 'live') },
        { heading: 'As of', cell: (row) => row.asOf ?? 'none (no points yet)' },
        { heading: 'Participants', cell: (row) => row.totalParticipants.value, numeric: true },
      ],
      seasons.seasons,
    ),
  );
}
