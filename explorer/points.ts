/**
 * A wallet's points: its standing in each season (`GET /v1/address/{a}/points`) and, where the host
 * serves it (`GET /v1/address/{a}/points/history`, v1.3), each season's total points and rank day
 * by day as a chart. The rank has its own axis, drawn upside down so that a better rank is higher,
 * and the days are also a table, one click away: folded, latest first, a fortnight a page, so that
 * a season of hundreds of days never makes the page hundreds of rows long.
 */
import { drawLineChart, type Line, type LineChart } from './chart.ts';
import { amount, element, message, table, type Column } from './dom.ts';
import type { ExactPointsHistory, ExactPointsStanding } from './documents.ts';
import { formatAmount, formatCompactTicks } from './format.ts';

type SeasonHistory = ExactPointsHistory['seasons'][number];
type PointsDay = SeasonHistory['days'][number];

const points = (text: string) => amount(formatAmount(text, 2), text);

export function pointsView(standing: ExactPointsStanding, history: ExactPointsHistory): HTMLElement {
  if (standing.seasons.length === 0) return message('notice', 'No points', 'this wallet takes part in no season.');
  return element(
    'div',
    {},
    table(
      'points',
      'Rank and points per season',
      [
        { heading: 'Season', cell: (row) => `Season ${row.season.value}` },
        { heading: 'As of', cell: (row) => row.asOf ?? 'none' },
        { heading: 'Rank', cell: (row) => row.rank.value, numeric: true },
        { heading: 'Participants', cell: (row) => row.totalParticipants.value, numeric: true },
        { heading: 'Total points', cell: (row) => points(row.totalPoints.value), numeric: true },
        { heading: 'Daily rate', cell: (row) => points(row.dailyRate.value), numeric: true },
      ],
      standing.seasons,
    ),
    history.seasons.map((season) => seasonView(season)),
  );
}

function seasonView(season: SeasonHistory): HTMLElement {
  const number = season.season.value;
  const { days } = season;
  const chartBox = element('div', { class: 'chart', 'data-chart': `points-s${number}` });
  const view = element(
    'div',
    { class: 'season-history', 'data-points-history': number },
    element('h5', {}, `Season ${number}, day by day`),
    days.length === 0
      ? message('notice', 'No days', `no day of season ${number} to draw.`)
      : element(
          'p',
          { class: 'summary' },
          `${days.length} ${days.length === 1 ? 'day' : 'days'}, ${days[0]!.date} to ${days[days.length - 1]!.date} (as of ${season.asOf}). Total points on the left axis; rank on the right axis, 1 at the top.`,
        ),
    chartBox,
    days.length === 0 ? null : daysView(number, days),
  );
  if (days.length > 0) {
    const lines: Line[] = [
      {
        label: 'Total points',
        scale: 'points',
        width: 3,
        points: days.length < 40,
        values: days.map((day) => Number(day.totalPoints.value)),
        legend: (index) =>
          element('span', {}, points(days[index]!.totalPoints.value), ' (', points(days[index]!.points.value), ' that day)'),
      },
      {
        label: 'Rank (1 = top)',
        scale: 'rank',
        stroke: '#b45309',
        dash: [6, 3],
        width: 2,
        points: days.length < 40,
        values: days.map((day) => (day.rank === null ? null : Number(day.rank.value))),
        legend: (index) => {
          const rank = days[index]!.rank;
          return rank === null ? 'no rank (no points yet)' : rank.value;
        },
      },
    ];
    // The chart measures its container, so it is drawn once the view is in the page.
    queueMicrotask(() => {
      const chart: LineChart = drawLineChart(chartBox, {
        dates: days.map((day) => day.date),
        lines,
        axes: [
          { scale: 'points', side: 'left', title: 'Total points', labels: (ticks, increment) => formatCompactTicks(ticks, increment) },
          {
            scale: 'rank',
            side: 'right',
            title: 'Rank',
            inverted: true,
            integer: true,
            labels: (ticks) => ticks.map((tick) => String(Math.round(tick))),
          },
        ],
        description: `Season ${number}: total points and rank each day from ${days[0]!.date} to ${days[days.length - 1]!.date}. The legend below gives the values of one day; the table under it gives every day.`,
        selected: days.length - 1,
        // A click (a tap on a phone) keeps the legend on that day.
        onPickDay: (index) => chart.select(index),
      });
    });
  }
  return view;
}

/** Days a page of a season's table shows: two weeks, the latest first. */
const DAYS_A_PAGE = 14;

const DAY_COLUMNS: Column<PointsDay>[] = [
  { heading: 'Date', cell: (row) => row.date },
  { heading: 'Points that day', cell: (row) => points(row.points.value), numeric: true },
  { heading: 'Total points', cell: (row) => points(row.totalPoints.value), numeric: true },
  { heading: 'Rank', cell: (row) => row.rank?.value ?? 'no rank', numeric: true },
];

/** A season's days as a table, folded; opened, the latest fortnight first, earlier ones a click away. */
function daysView(number: string, days: PointsDay[]): HTMLElement {
  const latestFirst = [...days].reverse();
  const pages = Math.ceil(latestFirst.length / DAYS_A_PAGE);
  let page = 0;
  const tableBox = element('div');
  const shown = element('p', { class: 'summary', 'data-days-shown': '', 'aria-live': 'polite' });
  const later = element(
    'button',
    { type: 'button', class: 'step', 'data-days-page': 'later', onclick: () => show(page - 1) },
    'Later days',
  );
  const earlier = element(
    'button',
    { type: 'button', class: 'step', 'data-days-page': 'earlier', onclick: () => show(page + 1) },
    'Earlier days',
  );
  const show = (wanted: number) => {
    page = Math.min(pages - 1, Math.max(0, wanted));
    const rows = latestFirst.slice(page * DAYS_A_PAGE, (page + 1) * DAYS_A_PAGE);
    const first = page * DAYS_A_PAGE + 1;
    shown.textContent = `Days ${first} to ${first + rows.length - 1} of ${latestFirst.length}, latest first: ${rows[0]!.date} back to ${rows[rows.length - 1]!.date}.`;
    later.disabled = page === 0;
    earlier.disabled = page === pages - 1;
    tableBox.replaceChildren(
      table<PointsDay>(
        `points-history-s${number}`,
        `Season ${number}: points, total and rank of each day (latest first)`,
        DAY_COLUMNS,
        rows,
      ),
    );
  };
  show(0);
  return element(
    'details',
    { 'data-points-days': number },
    element(
      'summary',
      {},
      `Season ${number}: every day as a table (${latestFirst.length} ${latestFirst.length === 1 ? 'day' : 'days'}, latest first)`,
    ),
    shown,
    pages > 1
      ? element('div', { class: 'days-pager', role: 'group', 'aria-label': `Pages of season ${number}'s days` }, later, earlier)
      : null,
    tableBox,
  );
}
