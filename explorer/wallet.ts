/**
 * One wallet: its points standing, its daily value as a chart (total and per token or chain)
 * over a chosen range of days, the positions of a chosen day, and its balance history per chain
 * and token. Every number in a table is the JSON's own text.
 */
import { ADDRESS_PATTERN } from '../schemas/patterns.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { getDaily, getHistory, getPoints, type DayRange } from './api.ts';
import { drawPortfolioChart, type Breakdown, type PortfolioChart } from './chart.ts';
import { element, message, table } from './dom.ts';
import type { ExactDayRow, ExactPointsStanding, ExactPortfolioHistory } from './documents.ts';

// Each search gets a number; answers that arrive after a newer search began are dropped.
let latestSearch = 0;

export async function renderWallet(target: HTMLElement, typed: string): Promise<void> {
  const search = ++latestSearch;
  const text = typed.trim();
  if (!ADDRESS_PATTERN.test(text)) {
    target.replaceChildren(
      message('error', 'Not an address', `"${text.length > 80 ? `${text.slice(0, 77)}...` : text}" is not 0x followed by 40 hexadecimal digits (0-9, a-f, any case).`),
    );
    return;
  }
  const address = text.toLowerCase();
  target.setAttribute('aria-busy', 'true');
  target.replaceChildren(element('p', { role: 'status' }, `Loading ${address}...`));
  try {
    const [history, daily, points] = await Promise.all([getHistory(address), getDaily(address), getPoints(address)]);
    if (search !== latestSearch) return;
    const heading = element('h3', { class: 'address', 'data-wallet': address }, address);
    if (Object.keys(history).length === 0 && daily.days.length === 0 && points.seasons.length === 0) {
      target.replaceChildren(
        heading,
        message('notice', 'No history', `this snapshot has no balance, no daily value and no points for ${address}.`),
      );
      return;
    }
    target.replaceChildren(
      heading,
      pointsView(points),
      daily.days.length === 0
        ? message('notice', 'No balance history', `${address} held no token in this snapshot; it only has points.`)
        : dailyView(address, daily.days),
      historyView(history),
    );
  } catch (error) {
    if (search === latestSearch) target.replaceChildren(message('error', 'Error', (error as Error).message));
  } finally {
    if (search === latestSearch) target.removeAttribute('aria-busy');
  }
}

function pointsView(points: ExactPointsStanding): HTMLElement {
  return element(
    'section',
    { 'aria-labelledby': 'points-heading' },
    element('h4', { id: 'points-heading' }, 'Points standing'),
    points.seasons.length === 0
      ? message('notice', 'No points', 'this wallet takes part in no season.')
      : table(
          'points',
          'Rank and points per season',
          [
            { heading: 'Season', cell: (row) => `s${row.season.value}` },
            { heading: 'asOf', cell: (row) => row.asOf ?? 'none' },
            { heading: 'Rank', cell: (row) => row.rank.value, numeric: true },
            { heading: 'Participants', cell: (row) => row.totalParticipants.value, numeric: true },
            { heading: 'Total points', cell: (row) => row.totalPoints.value, numeric: true },
            { heading: 'Daily rate', cell: (row) => row.dailyRate.value, numeric: true },
          ],
          points.seasons,
        ),
  );
}

/** The chart and the positions of one day, over a range of days the reader can narrow. */
function dailyView(address: string, allDays: ExactDayRow[]): HTMLElement {
  const firstDay = allDays[0]!.date;
  const lastDay = allDays[allDays.length - 1]!.date;
  let days = allDays;
  let breakdown: Breakdown = 'token';
  let chart: PortfolioChart | null = null;

  const chartBox = element('div', { class: 'chart', 'data-chart': 'portfolio' });
  const rangeNote = element('p', { class: 'summary', 'data-range': '' });
  const rangeMessage = element('div');
  const daySelect = element('select', { id: 'day-select', onchange: () => showDay(daySelect.value) });
  const positionsBox = element('div');

  const redraw = () => {
    chart?.destroy();
    chartBox.replaceChildren();
    chart = days.length === 0 ? null : drawPortfolioChart(chartBox, days, breakdown, (index) => showDay(days[index]!.date));
    if (days.length === 0) chartBox.replaceChildren(message('notice', 'No days', 'no day of this wallet falls in the chosen range.'));
    rangeNote.textContent = days.length === 0 ? 'No day in the range.' : `${days.length} days, ${days[0]!.date} to ${days[days.length - 1]!.date}.`;
    daySelect.replaceChildren(...[...days].reverse().map((day) => element('option', { value: day.date }, day.date)));
    if (days.length > 0) showDay(days[days.length - 1]!.date);
    else positionsBox.replaceChildren();
  };
  const showDay = (date: string) => {
    const day = days.find((row) => row.date === date);
    if (!day) return;
    daySelect.value = date;
    positionsBox.replaceChildren(positionsView(day));
  };

  const fromInput = element('input', { type: 'date', id: 'range-from', name: 'from', min: firstDay, max: lastDay, value: firstDay });
  const toInput = element('input', { type: 'date', id: 'range-to', name: 'to', min: firstDay, max: lastDay, value: lastDay });
  const applyRange = async (range: DayRange) => {
    if (range.from && range.to && range.from > range.to) {
      rangeMessage.replaceChildren(message('error', 'Empty range', `"from" (${range.from}) is later than "to" (${range.to}).`));
      return;
    }
    rangeMessage.replaceChildren();
    try {
      days = (await getDaily(address, range)).days;
      redraw();
    } catch (error) {
      rangeMessage.replaceChildren(message('error', 'Error', (error as Error).message));
    }
  };
  const rangeForm = element(
    'form',
    {
      class: 'range',
      'aria-label': 'Range of days',
      onsubmit: (event) => {
        event.preventDefault();
        void applyRange({ from: fromInput.value || null, to: toInput.value || null });
      },
    },
    element('label', { for: 'range-from' }, 'From '),
    fromInput,
    element('label', { for: 'range-to' }, 'To '),
    toInput,
    element('button', { type: 'submit' }, 'Show range'),
    element(
      'button',
      {
        type: 'button',
        onclick: () => {
          fromInput.value = firstDay;
          toInput.value = lastDay;
          void applyRange({ from: null, to: null });
        },
      },
      'Whole history',
    ),
  );
  const breakdownChoice = element(
    'fieldset',
    { class: 'breakdown' },
    element('legend', {}, 'Lines besides the total'),
    (['token', 'chain'] as const).map((choice) =>
      element(
        'label',
        {},
        element('input', {
          type: 'radio',
          name: 'breakdown',
          value: choice,
          checked: choice === breakdown,
          onchange: () => {
            breakdown = choice;
            redraw();
          },
        }),
        ` per ${choice}`,
      ),
    ),
  );

  const view = element(
    'section',
    { 'aria-labelledby': 'daily-heading' },
    element('h4', { id: 'daily-heading' }, 'Daily value (USD)'),
    rangeForm,
    rangeMessage,
    breakdownChoice,
    rangeNote,
    chartBox,
    element('h4', {}, 'Positions of one day'),
    element('p', { class: 'control' }, element('label', { for: 'day-select' }, 'Day '), daySelect, ' (or click a day on the chart)'),
    positionsBox,
  );
  // The chart measures its container, so it is drawn once the view is in the page.
  queueMicrotask(redraw);
  return view;
}

function positionsView(day: ExactDayRow): HTMLElement {
  if (day.positions.length === 0) {
    return element('div', { 'data-day': day.date }, message('notice', 'No positions', `every balance was zero at the end of ${day.date}; total value ${day.totalValueUsd.value} USD.`));
  }
  return element(
    'div',
    { 'data-day': day.date },
    table(
      'positions',
      `Positions at the end of ${day.date}`,
      [
        { heading: 'Chain', cell: (row) => row.chainId.value, numeric: true },
        { heading: 'Token', cell: (row) => row.token },
        { heading: 'Balance', cell: (row) => row.balance.value, numeric: true },
        { heading: 'USD per token', cell: (row) => row.usdPerToken.value, numeric: true },
        { heading: 'Value (USD)', cell: (row) => row.valueUsd.value, numeric: true },
      ],
      day.positions,
      ['Total value (USD)', element('span', { 'data-total': '' }, day.totalValueUsd.value)],
    ),
  );
}

/** Every chain and token with snapshots, one collapsible table each, in the JSON's order. */
function historyView(history: ExactPortfolioHistory): HTMLElement {
  const chains = Object.keys(history);
  return element(
    'section',
    { 'aria-labelledby': 'history-heading' },
    element('h4', { id: 'history-heading' }, 'Balance history per chain and token'),
    chains.length === 0
      ? message('notice', 'No balance history', 'no balance of this wallet ever changed.')
      : chains.map((chain) => {
          const tokens = history[chain]!;
          const held = TOKEN_KEYS.filter((token) => tokens[token].length > 0);
          const never = TOKEN_KEYS.filter((token) => tokens[token].length === 0);
          return element(
            'div',
            { class: 'chain-history', 'data-chain': chain },
            element('h5', {}, `Chain ${chain}`),
            held.map((token) => {
              const snapshots = tokens[token];
              const latest = snapshots[snapshots.length - 1]!;
              return element(
                'details',
                { 'data-history': `${chain}/${token}` },
                element('summary', {}, `${token}: ${snapshots.length} ${snapshots.length === 1 ? 'change' : 'changes'}, latest balance ${latest.balance.value} on ${latest.date}`),
                table(
                  `history-${chain}-${token}`,
                  `Chain ${chain}, ${token}: balance after each change`,
                  [
                    { heading: 'Date', cell: (row) => row.date },
                    { heading: 'Timestamp (Unix s)', cell: (row) => row.timestamp.value, numeric: true },
                    { heading: 'Balance', cell: (row) => row.balance.value, numeric: true },
                  ],
                  snapshots,
                ),
              );
            }),
            never.length > 0 ? element('p', { class: 'summary' }, `Never held on chain ${chain}: ${never.join(', ')}.`) : null,
          );
        }),
  );
}
