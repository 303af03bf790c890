/**
 * The wallet's daily value as a uPlot time series: the total, and one line per token or per
 * chain. Each line has its own dash pattern and a label in the legend, so the chart reads without
 * colour; the legend shows the values of the day under the cursor.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ExactDayRow } from './documents.ts';
import { TOKEN_KEYS } from '../schemas/token-keys.ts';

export type Breakdown = 'token' | 'chain';

/** The total's line; tests look for its colour among the canvas pixels. */
export const TOTAL_STROKE = '#1d4ed8';
const STROKES = ['#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490', '#4d7c0f', '#475569'];
const DASHES = [[8, 4], [2, 3], [12, 3, 2, 3], [4, 4], [1, 5], [16, 4], [6, 2, 2, 2]];
/** The legend marker's border style closest to each dash pattern (CSS has no dash-dot). */
const MARKER_STYLES = ['dashed', 'dotted', 'dashed', 'dashed', 'dotted', 'dashed', 'dotted'];

const DAY_SECONDS = 86_400;

function daySeconds(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

/** The day's value per token key or per chain, summed for drawing (the tables show exact text). */
function seriesOf(days: ExactDayRow[], breakdown: Breakdown): { label: string; values: number[] }[] {
  const keys = new Set<string>();
  for (const day of days) for (const position of day.positions) keys.add(breakdown === 'token' ? position.token : position.chainId.value);
  const ordered = [...keys].sort(breakdown === 'token' ? (a, b) => TOKEN_KEYS.indexOf(a as never) - TOKEN_KEYS.indexOf(b as never) : (a, b) => Number(a) - Number(b));
  return ordered.map((key) => ({
    label: breakdown === 'token' ? `${key} (USD)` : `chain ${key} (USD)`,
    values: days.map((day) =>
      day.positions
        .filter((position) => (breakdown === 'token' ? position.token : position.chainId.value) === key)
        .reduce((sum, position) => sum + Number(position.valueUsd.value), 0),
    ),
  }));
}

export interface PortfolioChart {
  destroy(): void;
}

/**
 * Draws the chart into `container`, as wide as the container (redrawn when it resizes).
 * `onPickDay` gets the index of the day clicked on.
 */
export function drawPortfolioChart(container: HTMLElement, days: ExactDayRow[], breakdown: Breakdown, onPickDay: (index: number) => void): PortfolioChart {
  const parts = seriesOf(days, breakdown);
  const data: uPlot.AlignedData = [
    days.map((day) => daySeconds(day.date)),
    days.map((day) => Number(day.totalValueUsd.value)),
    ...parts.map((part) => part.values),
  ];
  const usd = (value: number | null) => (value === null ? '' : value.toLocaleString('en-US', { maximumFractionDigits: 2 }));
  const height = () => (container.clientWidth < 560 ? 240 : 320);
  const options: uPlot.Options = {
    width: Math.max(container.clientWidth, 280),
    height: height(),
    // Dates are calendar days; drawn in UTC so that the axis shows the JSON's dates whatever the viewer's zone.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    scales: { x: { time: true, range: (_u, min, max) => (min === max ? [min - DAY_SECONDS, max + DAY_SECONDS] : [min, max]) } },
    axes: [{}, { values: (_u, ticks) => ticks.map((tick) => usd(tick)), size: 80 }],
    series: [
      { label: 'Day', value: (_u, seconds) => (seconds === null ? '' : new Date(seconds * 1000).toISOString().slice(0, 10)) },
      { label: 'Total (USD)', stroke: TOTAL_STROKE, width: 3, value: (_u, value) => usd(value) },
      ...parts.map((part, index) => ({
        label: part.label,
        stroke: STROKES[index % STROKES.length],
        dash: DASHES[index % DASHES.length],
        width: 1.5,
        value: (_u: uPlot, value: number | null) => usd(value),
      })),
    ],
    legend: {
      live: true,
      markers: { width: 3, dash: (_u, index) => (index <= 1 ? 'solid' : MARKER_STYLES[(index - 2) % MARKER_STYLES.length]!) },
    },
    cursor: { points: { show: true } },
  };
  const plot = new uPlot(options, data, container);
  const firstCanvas = plot.root.querySelector('canvas');
  firstCanvas?.setAttribute('role', 'img');
  firstCanvas?.setAttribute(
    'aria-label',
    days.length === 0
      ? 'No days to draw.'
      : `Daily value in US dollars from ${days[0]!.date} to ${days[days.length - 1]!.date}; the same values are in the table of positions below.`,
  );
  plot.over.addEventListener('click', () => {
    if (plot.cursor.idx !== null && plot.cursor.idx !== undefined) onPickDay(plot.cursor.idx);
  });
  const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(container.clientWidth, 280), height: height() }));
  resize.observe(container);
  return {
    destroy() {
      resize.disconnect();
      plot.destroy();
    },
  };
}
