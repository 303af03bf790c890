/**
 * One wallet, in sections a reader can jump between: what it is worth (the latest total and its
 * change over the shown range), its value over time as a chart over a chosen range of days, the
 * positions of a chosen day, its points, and its balance history per chain and token. Amounts
 * are rounded for reading; each keeps the JSON's exact text (see dom.ts `amount`).
 */
import { NEW_YORK_ZONE } from '../core/new-york-day.ts';
import { ADDRESS_PATTERN } from '../schemas/patterns.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';
import { getDaily, getHistory, getPoints, getPointsHistory, type DayRange } from './api.ts';
import { DASHES, STROKES, drawLineChart, type LineChart, type Line } from './chart.ts';
import { amount, element, message, table } from './dom.ts';
import type { ExactDayRow, ExactPortfolioHistory } from './documents.ts';
import {
  chainName,
  formatAmount,
  formatCompactTicks,
  formatPrice,
  formatUsd,
  hasZeroPrice,
  sumDecimals,
  tokenName,
  usdChange,
  ZERO_PRICE,
  ZERO_PRICE_NOTE,
} from './format.ts';
import { pointsView } from './points.ts';

type Breakdown = 'token' | 'chain';
type Position = ExactDayRow['positions'][number];

// Each search gets a number; answers that arrive after a newer search began are dropped.
let latestSearch = 0;

/** The wallet's sections, in page order, with the nav's names for them. */
const WALLET_SECTIONS = [
  { id: 'wallet-value', name: 'Value' },
  { id: 'wallet-positions', name: 'Positions' },
  { id: 'wallet-points', name: 'Points' },
  { id: 'wallet-history', name: 'Balance history' },
] as const;

/** Renders the wallet into `target` and its section links into `links` (emptied when there is no wallet). */
export async function renderWallet(target: HTMLElement, links: HTMLElement, typed: string): Promise<void> {
  const search = ++latestSearch;
  const text = typed.trim();
  links.replaceChildren();
  if (!ADDRESS_PATTERN.test(text)) {
    target.replaceChildren(
      message(
        'error',
        'Not an address',
        `"${text.length > 80 ? `${text.slice(0, 77)}...` : text}" is not 0x followed by 40 hexadecimal digits (0-9, a-f, any case).`,
      ),
    );
    return;
  }
  const address = text.toLowerCase();
  target.setAttribute('aria-busy', 'true');
  target.replaceChildren(element('p', { role: 'status' }, `Loading ${address}...`));
  try {
    // A wallet without points has no points history: it is asked for only when there are seasons to draw.
    const pointsAndHistory = getPoints(address).then(async (points) => ({
      points,
      pointsHistory: points.seasons.length > 0 ? await getPointsHistory(address) : { seasons: [] },
    }));
    const [history, daily, { points, pointsHistory }] = await Promise.all([getHistory(address), getDaily(address), pointsAndHistory]);
    if (search !== latestSearch) return;
    const heading = element('h3', { class: 'address', 'data-wallet': address }, address);
    if (Object.keys(history).length === 0 && daily.days.length === 0 && points.seasons.length === 0) {
      target.replaceChildren(
        heading,
        message('notice', 'No history', `this snapshot has no balance, no daily value and no points for ${address}.`),
      );
      return;
    }
    const overview = element('div', { class: 'overview' });
    const sections =
      daily.days.length === 0
        ? [
            overview,
            message('notice', 'No balance history', `${address} held no token in this snapshot; it only has points.`),
            section('wallet-points', 'Points', pointsView(points, pointsHistory)),
            section('wallet-history', 'Balance history per chain and token', historyView(history)),
          ]
        : [
            overview,
            ...dailyView(address, daily.days, overview),
            section('wallet-points', 'Points', pointsView(points, pointsHistory)),
            section('wallet-history', 'Balance history per chain and token', historyView(history)),
          ];
    target.replaceChildren(heading, ...sections);
    const present = WALLET_SECTIONS.filter(({ id }) => target.querySelector(`#${id}`));
    links.replaceChildren(...present.map(({ id, name }) => element('a', { href: `#${id}` }, name)));
  } catch (error) {
    if (search === latestSearch) target.replaceChildren(message('error', 'Error', (error as Error).message));
  } finally {
    if (search === latestSearch) target.removeAttribute('aria-busy');
  }
}

/** A section of the wallet that the nav can jump to (focusable, so the keyboard lands there too). */
function section(id: string, title: string, ...body: (Node | null)[]): HTMLElement {
  return element(
    'section',
    { id, tabindex: -1, 'aria-labelledby': `${id}-heading`, class: 'jump-target' },
    element('h4', { id: `${id}-heading` }, title),
    ...body,
  );
}

/** How many of the day's positions have usdPerToken 0, no price or a price of 0 (their value counts as 0 in the total). */
function unpricedCount(day: ExactDayRow): number {
  return day.positions.filter(hasZeroPrice).length;
}

/**
 * The headline: the latest day's total, and how it changed between the first and the last day of
 * the range shown below.
 */
function renderOverview(target: HTMLElement, latest: ExactDayRow, shown: ExactDayRow[]): void {
  const unpriced = unpricedCount(latest);
  const change = (() => {
    if (shown.length < 2)
      return element(
        'p',
        { class: 'change', 'data-change': '' },
        shown.length === 1 ? `One day shown (${shown[0]!.date}): no change to show.` : 'No day in the chosen range.',
      );
    const first = shown[0]!;
    const last = shown[shown.length - 1]!;
    // Exact decimal arithmetic on the JSON's text: a double loses cents beyond 2^53 of them.
    const { direction, size, exact, percent } = usdChange(first.totalValueUsd.value, last.totalValueUsd.value);
    return element(
      'p',
      { class: 'change', 'data-change': direction },
      direction === 'unchanged'
        ? element('strong', {}, 'Unchanged')
        : element('strong', {}, `${direction === 'up' ? 'Up' : 'Down'} `, amount(size, exact), percent === null ? '' : ` (${percent})`),
      ' from ',
      element('span', { class: 'date' }, first.date),
      ' to ',
      element('span', { class: 'date' }, last.date),
      ' (',
      amount(formatUsd(first.totalValueUsd.value), first.totalValueUsd.value),
      ' to ',
      amount(formatUsd(last.totalValueUsd.value), last.totalValueUsd.value),
      ').',
    );
  })();
  target.replaceChildren(
    element(
      'p',
      { class: 'headline' },
      element('span', { class: 'headline-label' }, `Worth on ${latest.date}, the latest day`),
      element(
        'span',
        { class: 'headline-value', 'data-headline': '' },
        amount(formatUsd(latest.totalValueUsd.value), latest.totalValueUsd.value),
      ),
    ),
    change,
    ...(unpriced > 0
      ? [
          element(
            'p',
            { class: 'summary', 'data-unpriced-note': '' },
            `${unpriced} ${unpriced === 1 ? 'position has' : 'positions have'} no price or a price of $0 on ${latest.date} and ${unpriced === 1 ? 'counts' : 'count'} as $0 in this total.`,
          ),
        ]
      : []),
  );
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `text` is a real calendar day written YYYY-MM-DD. */
function isCalendarDay(text: string): boolean {
  if (!ISO_DAY.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}

function addDays(date: string, count: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + count * 86_400_000).toISOString().slice(0, 10);
}

/** The value of a day's positions that belong to `key` (a token or a chain), for the chart and its legend. */
function partOf(day: ExactDayRow, breakdown: Breakdown, key: string): { value: number; exact: string[]; held: number; unpriced: number } {
  const positions = day.positions.filter((position) => (breakdown === 'token' ? position.token : position.chainId.value) === key);
  const priced = positions.filter((position) => !hasZeroPrice(position));
  return {
    value: priced.reduce((sum, position) => sum + Number(position.valueUsd.value), 0),
    exact: priced.map((position) => position.valueUsd.value),
    held: positions.length,
    unpriced: positions.length - priced.length,
  };
}

/** The chart's lines: the total, then one per token or per chain held in the range. */
function chartLines(days: ExactDayRow[], breakdown: Breakdown): Line[] {
  const keys = new Set<string>();
  for (const day of days) for (const position of day.positions) keys.add(breakdown === 'token' ? position.token : position.chainId.value);
  const ordered = [...keys].sort(
    breakdown === 'token' ? (a, b) => TOKEN_KEYS.indexOf(a as never) - TOKEN_KEYS.indexOf(b as never) : (a, b) => Number(a) - Number(b),
  );
  const total: Line = {
    label: 'Total',
    scale: 'usd',
    width: 3,
    values: days.map((day) => Number(day.totalValueUsd.value)),
    legend: (index) => {
      const day = days[index]!;
      const unpriced = unpricedCount(day);
      const shown = amount(formatUsd(day.totalValueUsd.value), day.totalValueUsd.value);
      return unpriced === 0 ? shown : element('span', {}, shown, ` (${unpriced} at ${ZERO_PRICE})`);
    },
  };
  const parts = ordered.map(
    (key, index): Line => ({
      label: breakdown === 'token' ? tokenName(key) : chainName(key),
      scale: 'usd',
      stroke: STROKES[index % STROKES.length],
      dash: DASHES[index % DASHES.length],
      width: 1.5,
      // A day whose positions all have usdPerToken 0 is a gap, not a drop to zero.
      values: days.map((day) => {
        const part = partOf(day, breakdown, key);
        return part.held > 0 && part.unpriced === part.held ? null : part.value;
      }),
      legend: (index) => {
        const part = partOf(days[index]!, breakdown, key);
        if (part.held > 0 && part.unpriced === part.held) return amount(ZERO_PRICE, '0', ZERO_PRICE_NOTE);
        const exact = part.exact.length === 1 ? part.exact[0]! : part.exact.length === 0 ? '0' : `${part.exact.join(' + ')}`;
        // Several positions (a chain's tokens) are summed exactly before rounding, like a single amount.
        const shown = amount(formatUsd(part.exact.length === 0 ? '0' : sumDecimals(part.exact)), exact);
        return part.unpriced > 0 ? element('span', {}, shown, ` + ${part.unpriced} at ${ZERO_PRICE}`) : shown;
      },
    }),
  );
  return [total, ...parts];
}

/** The value section (range, chart with its legend) and the positions section (a day and its table). */
function dailyView(address: string, allDays: ExactDayRow[], overview: HTMLElement): HTMLElement[] {
  const firstDay = allDays[0]!.date;
  const lastDay = allDays[allDays.length - 1]!.date;
  let days = allDays;
  let dayIndex = days.length - 1;
  let breakdown: Breakdown = 'token';
  let chart: LineChart | null = null;

  const chartBox = element('div', { class: 'chart', 'data-chart': 'portfolio' });
  const rangeNote = element('p', { class: 'summary', 'data-range': '' });
  const rangeMessage = element('div');
  const positionsBox = element('div');
  const positionsHeading = element('span', {}, 'Positions');

  const slider = element('input', {
    type: 'range',
    id: 'day-slider',
    min: 0,
    step: 1,
    oninput: () => showDay(Number(slider.value)),
  });
  const sliderDay = element('output', { for: 'day-slider', 'data-day-shown': '', class: 'day-shown' });
  const step = (by: number) => () => showDay(Math.min(days.length - 1, Math.max(0, dayIndex + by)));
  const previous = element('button', { type: 'button', class: 'step', 'aria-label': 'Previous day', onclick: step(-1) }, 'Previous');
  const next = element('button', { type: 'button', class: 'step', 'aria-label': 'Next day', onclick: step(1) }, 'Next');

  /** Draws the range; `keepDay`: the day shown stays (a switch of the lines), else the range's last day. */
  const redraw = (keepDay = false) => {
    chart?.destroy();
    chart = null;
    renderOverview(overview, allDays[allDays.length - 1]!, days);
    if (days.length === 0) {
      chartBox.replaceChildren(message('notice', 'No days', 'no day of this wallet falls in the chosen range.'));
      rangeNote.textContent = 'No day in the range.';
      positionsBox.replaceChildren();
      slider.disabled = true;
      return;
    }
    slider.disabled = false;
    rangeNote.textContent = `${days.length} ${days.length === 1 ? 'day' : 'days'}, ${days[0]!.date} to ${days[days.length - 1]!.date}.`;
    slider.max = String(days.length - 1);
    const lines = chartLines(days, breakdown);
    const chosen = keepDay && dayIndex < days.length ? dayIndex : days.length - 1;
    chart = drawLineChart(chartBox, {
      dates: days.map((day) => day.date),
      lines,
      axes: [{ scale: 'usd', side: 'left', labels: (ticks, increment) => formatCompactTicks(ticks, increment, '$') }],
      description: `Daily value in US dollars from ${days[0]!.date} to ${days[days.length - 1]!.date}: ${lines.map((line) => line.label).join(', ')}. The legend below gives the values of the chosen day; the positions table gives each position.`,
      selected: chosen,
      onPickDay: (index) => showDay(index),
    });
    showDay(chosen);
  };
  const showDay = (index: number) => {
    const day = days[index];
    if (!day) return;
    dayIndex = index;
    slider.value = String(index);
    slider.setAttribute('aria-valuetext', day.date);
    sliderDay.textContent = day.date;
    previous.disabled = index === 0;
    next.disabled = index === days.length - 1;
    positionsHeading.textContent = `Positions on ${day.date}`;
    positionsBox.replaceChildren(positionsView(day));
    chart?.select(index);
  };

  const dateInput = (id: string, name: string, value: string) =>
    element('input', {
      type: 'text',
      id,
      name,
      value,
      size: 10,
      maxlength: 10,
      inputmode: 'numeric',
      pattern: '\\d{4}-\\d{2}-\\d{2}',
      placeholder: 'YYYY-MM-DD',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-describedby': 'range-hint',
    });
  const fromInput = dateInput('range-from', 'from', firstDay);
  const toInput = dateInput('range-to', 'to', lastDay);
  const applyRange = async (range: DayRange) => {
    for (const [name, value] of [
      ['from', range.from],
      ['to', range.to],
    ] as const) {
      if (value && !isCalendarDay(value)) {
        rangeMessage.replaceChildren(
          message('error', 'Not a date', `"${name}" is "${value}"; write a calendar day as YYYY-MM-DD, e.g. ${lastDay}.`),
        );
        return;
      }
    }
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
  const preset = (label: string, count: number | null) =>
    element(
      'button',
      {
        type: 'button',
        'data-preset': count ?? 'all',
        onclick: () => {
          const from = count === null ? firstDay : [addDays(lastDay, -(count - 1)), firstDay].sort().at(-1)!;
          fromInput.value = from;
          toInput.value = lastDay;
          void applyRange(count === null ? { from: null, to: null } : { from, to: lastDay });
        },
      },
      label,
    );
  const rangeForm = element(
    'form',
    {
      class: 'range',
      'aria-label': 'Range of days',
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        void applyRange({ from: fromInput.value.trim() || null, to: toInput.value.trim() || null });
      },
    },
    element(
      'span',
      { class: 'presets', role: 'group', 'aria-label': 'Last days' },
      preset('Last 30 days', 30),
      preset('90 days', 90),
      preset('1 year', 365),
      preset('All', null),
    ),
    element(
      'span',
      { class: 'dates' },
      element('label', { for: 'range-from' }, 'From'),
      fromInput,
      element('label', { for: 'range-to' }, 'to'),
      toInput,
      element('button', { type: 'submit' }, 'Show range'),
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
            redraw(true);
          },
        }),
        ` per ${choice}`,
      ),
    ),
  );

  const value = section(
    'wallet-value',
    'Value over time (US dollars)',
    rangeForm,
    element('p', { id: 'range-hint', class: 'hint' }, `Days from ${firstDay} to ${lastDay}, written YYYY-MM-DD.`),
    rangeMessage,
    breakdownChoice,
    rangeNote,
    chartBox,
  );
  const positions = element(
    'section',
    { id: 'wallet-positions', tabindex: -1, 'aria-labelledby': 'wallet-positions-heading', class: 'jump-target' },
    element('h4', { id: 'wallet-positions-heading' }, positionsHeading),
    element('p', { class: 'day-label' }, element('label', { for: 'day-slider' }, 'Day '), sliderDay),
    element('div', { class: 'day-picker' }, previous, slider, next),
    element('p', { class: 'hint' }, 'Arrow keys move the slider a day; a click on the chart picks its day too.'),
    positionsBox,
  );
  // The chart measures its container, so it is drawn once the view is in the page.
  queueMicrotask(() => redraw());
  return [value, positions];
}

function positionsView(day: ExactDayRow): HTMLElement {
  if (day.positions.length === 0) {
    return element(
      'div',
      { 'data-day': day.date },
      message('notice', 'No positions', `every balance was zero at the end of ${day.date}; total value $0.00.`),
    );
  }
  const unpriced = unpricedCount(day);
  return element(
    'div',
    { 'data-day': day.date },
    table<Position>(
      'positions',
      `Positions at the end of ${day.date}`,
      [
        {
          heading: 'Chain',
          cell: (row) =>
            element('span', { title: `chain ID ${row.chainId.value}`, 'data-key': row.chainId.value }, chainName(row.chainId.value)),
        },
        {
          heading: 'Token',
          cell: (row) => element('span', { title: `token key ${row.token}`, 'data-key': row.token }, tokenName(row.token)),
        },
        // The value first: on a phone it is the column still in view.
        {
          heading: 'Value (USD)',
          cell: (row) =>
            hasZeroPrice(row)
              ? amount(ZERO_PRICE, row.valueUsd.value, ZERO_PRICE_NOTE)
              : amount(formatUsd(row.valueUsd.value), row.valueUsd.value),
          numeric: true,
        },
        { heading: 'Balance', cell: (row) => amount(formatAmount(row.balance.value), row.balance.value), numeric: true },
        {
          heading: 'Price (USD)',
          cell: (row) =>
            hasZeroPrice(row)
              ? amount(ZERO_PRICE, row.usdPerToken.value, ZERO_PRICE_NOTE)
              : amount(formatPrice(row.usdPerToken.value), row.usdPerToken.value),
          numeric: true,
        },
      ],
      day.positions,
      ['Total value', element('span', { 'data-total': '' }, amount(formatUsd(day.totalValueUsd.value), day.totalValueUsd.value)), '', ''],
    ),
    unpriced > 0
      ? element(
          'p',
          { class: 'summary', 'data-unpriced-note': '' },
          `"${ZERO_PRICE}": usdPerToken is 0, either no price for this token on or before ${day.date} or a price of 0 in the export, so ${unpriced === 1 ? 'its value counts' : 'their values count'} as $0 in the total.`,
        )
      : null,
  );
}

const NEW_YORK_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: NEW_YORK_ZONE,
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** Every chain and token with snapshots, one collapsible table each, in the JSON's order. */
function historyView(history: ExactPortfolioHistory): HTMLElement {
  const chains = Object.keys(history);
  return chains.length === 0
    ? message('notice', 'No balance history', 'no balance of this wallet ever changed.')
    : element(
        'div',
        {},
        chains.map((chain) => {
          const tokens = history[chain]!;
          const held = TOKEN_KEYS.filter((token) => tokens[token].length > 0);
          const never = TOKEN_KEYS.filter((token) => tokens[token].length === 0);
          return element(
            'div',
            { class: 'chain-history', 'data-chain': chain },
            element('h5', { title: `chain ID ${chain}` }, chainName(chain)),
            held.map((token) => {
              const snapshots = tokens[token];
              const latest = snapshots[snapshots.length - 1]!;
              return element(
                'details',
                { 'data-history': `${chain}/${token}` },
                element(
                  'summary',
                  {},
                  `${tokenName(token)}: ${snapshots.length} ${snapshots.length === 1 ? 'change' : 'changes'}, latest balance `,
                  amount(formatAmount(latest.balance.value), latest.balance.value),
                  ` on ${latest.date}`,
                ),
                table(
                  `history-${chain}-${token}`,
                  `${chainName(chain)}, ${tokenName(token)}: balance after each change`,
                  [
                    { heading: 'Date', cell: (row) => row.date },
                    {
                      heading: 'Time (New York)',
                      cell: (row) =>
                        amount(
                          NEW_YORK_TIME.format(new Date(Number(row.timestamp.value) * 1000)),
                          row.timestamp.value,
                          'Unix time in seconds',
                        ),
                      numeric: true,
                    },
                    { heading: 'Balance', cell: (row) => amount(formatAmount(row.balance.value), row.balance.value), numeric: true },
                  ],
                  snapshots,
                ),
              );
            }),
            never.length > 0
              ? element('p', { class: 'summary' }, `Never held on ${chainName(chain)}: ${never.map(tokenName).join(', ')}.`)
              : null,
          );
        }),
      );
}
