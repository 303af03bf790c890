/** Each season's leaderboard (`GET /v1/leaderboard/s{N}`): its multiplier schedule and its top entries. */
import { getLeaderboard } from './api.ts';
import { amount, element, message, table } from './dom.ts';
import { formatAmount } from './format.ts';
import type { ExactLeaderboard, ExactSeasons } from './documents.ts';

export function renderLeaderboards(target: HTMLElement, seasons: ExactSeasons): void {
  const board = element('div', { 'aria-live': 'polite' });
  const numbers = seasons.seasons.map((row) => row.season.value);
  // The latest season with participants is the one people look at; the others are one keypress away.
  const withEntries = seasons.seasons.filter((row) => row.totalParticipants.value !== '0');
  const initial = (withEntries[withEntries.length - 1] ?? seasons.seasons[seasons.seasons.length - 1])?.season.value;
  const select = element(
    'select',
    { id: 'season-select', onchange: () => void show(select.value) },
    numbers.map((season) => element('option', { value: season, selected: season === initial }, `Season ${season}`)),
  );
  const show = async (season: string) => {
    board.setAttribute('aria-busy', 'true');
    let view: HTMLElement;
    try {
      view = leaderboardView(await getLeaderboard(season));
    } catch (error) {
      view = message('error', 'Error', (error as Error).message);
    }
    // A season chosen while this one loaded wins.
    if (select.value !== season) return;
    board.replaceChildren(view);
    board.removeAttribute('aria-busy');
  };
  target.replaceChildren(
    numbers.length === 0
      ? message('notice', 'No seasons', 'this snapshot knows no season.')
      : element('p', { class: 'control' }, element('label', { for: 'season-select' }, 'Season '), select),
    board,
  );
  if (initial !== undefined) void show(initial);
}

function leaderboardView(leaderboard: ExactLeaderboard): HTMLElement {
  const season = `s${leaderboard.season.value}`;
  return element(
    'div',
    { 'data-season': leaderboard.season.value },
    element(
      'p',
      { class: 'summary' },
      `Season ${leaderboard.season.value}: as of ${leaderboard.asOf ?? 'none (no points yet)'}, ${leaderboard.totalParticipants.value} participants, top ${leaderboard.entries.length} shown.`,
    ),
    leaderboard.multipliers.length === 0
      ? message('notice', 'No multipliers', `season ${leaderboard.season.value} has no multiplier schedule.`)
      : table(
          `multipliers-${season}`,
          `Season ${leaderboard.season.value} multipliers`,
          [
            { heading: 'Position', cell: (row) => row.position },
            {
              heading: 'Multiplier',
              cell: (row) => amount(`\u00d7${formatAmount(row.multiplier.value)}`, row.multiplier.value),
              numeric: true,
            },
            { heading: 'First day', cell: (row) => row.firstDay },
            { heading: 'Last day', cell: (row) => row.lastDay },
          ],
          leaderboard.multipliers,
        ),
    leaderboard.entries.length === 0
      ? message('notice', 'No entries', `no wallet has points in season ${leaderboard.season.value} yet.`)
      : table(
          `entries-${season}`,
          `Season ${leaderboard.season.value} leaderboard`,
          [
            { heading: 'Rank', cell: (row) => row.rank.value, numeric: true },
            { heading: 'Wallet', cell: (row) => element('a', { href: `#address=${row.user}`, class: 'address' }, row.user) },
            {
              heading: 'Total points',
              cell: (row) => amount(formatAmount(row.totalPoints.value, 2), row.totalPoints.value),
              numeric: true,
            },
            { heading: 'Daily rate', cell: (row) => amount(formatAmount(row.dailyRate.value, 2), row.dailyRate.value), numeric: true },
          ],
          leaderboard.entries,
        ),
  );
}
