/**
 * Line charts over days (uPlot): a wallet's daily value (the total, and one line per token or per
 * chain) and a season's points and rank. Read without colour and without a pointer:
 * - each line has its own dash pattern, drawn the same in its legend swatch, and a name;
 * - the legend is part of the page, always visible at any width: it shows the values of the
 *   chosen day (the last one at first), or of the day under the pointer while it moves;
 * - axis labels are short (`$1.2M`) and the axis is as wide as its widest label, so no label is
 *   cut whatever the magnitude; the exact values are in the legend and the tables.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { element } from './dom.ts';

const DAY_SECONDS = 86_400;
/** The axes' font, also used to measure their labels. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
const TICK_SIZE = 10;
const LABEL_GAP = 5;

/** Colours and dash patterns of the lines after the first; tests look for the first line's colour. */
const FIRST_STROKE = '#1d4ed8';
export const STROKES = ['#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490', '#4d7c0f', '#475569'];
export const DASHES = [
  [8, 4],
  [2, 3],
  [12, 3, 2, 3],
  [4, 4],
  [1, 5],
  [16, 4],
  [6, 2, 2, 2],
];

export interface Line {
  label: string;
  /** One value per day, null where there is nothing to draw (a gap in the line). */
  values: (number | null)[];
  /** What the legend says of day `index`: a node (an amount with its exact text) or text. */
  legend: (index: number) => Node | string;
  /** The scale (and axis) the line is drawn against. */
  scale: string;
  stroke?: string;
  dash?: number[];
  width?: number;
  /** Draw a marker at each day (a line of few days, or where a reader compares single days). */
  points?: boolean;
}

interface Axis {
  scale: string;
  /** Left or right of the plot. */
  side: 'left' | 'right';
  /** The ticks' labels. */
  labels: (ticks: number[], increment: number) => string[];
  /** Drawn upside down: a smaller value higher (a rank, where 1 is best). */
  inverted?: boolean;
  /** Only whole numbers on the axis (ranks, counts). */
  integer?: boolean;
  /** The axis's title, drawn beside it. */
  title?: string;
}

export interface ChartSpec {
  dates: string[];
  lines: Line[];
  axes: Axis[];
  /** What a screen reader hears for the drawing; the values are in the legend and the tables. */
  description: string;
  /** The day shown in the legend when no pointer is over the chart. */
  selected: number;
  onPickDay?: (index: number) => void;
}

export interface LineChart {
  /** Shows day `index` in the legend (when the pointer is not over the chart). */
  select(index: number): void;
  destroy(): void;
}

function daySeconds(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

function isoDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

let measuring: CanvasRenderingContext2D | null = null;
function textWidth(text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d')!;
  measuring.font = AXIS_FONT;
  return measuring.measureText(text).width;
}

/** A legend swatch: the line's own colour, width and dash pattern, so that it matches without colour. */
function swatch(line: Line): SVGElement {
  const stroke = line.stroke ?? FIRST_STROKE;
  const svg = svgElement('svg', { width: '36', height: '12', 'aria-hidden': 'true', class: 'swatch' });
  const path = svgElement('line', { x1: '1', y1: '6', x2: '35', y2: '6', stroke, 'stroke-width': String(line.width ?? 2) });
  if (line.dash) path.setAttribute('stroke-dasharray', line.dash.join(' '));
  svg.append(path);
  if (line.points) svg.append(svgElement('circle', { cx: '18', cy: '6', r: '3', fill: '#fff', stroke, 'stroke-width': '1.5' }));
  return svg;
}

/** An SVG element with its attributes. */
function svgElement(tag: string, attributes: Record<string, string>): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

/** Draws the chart into `container` as wide as it is (redrawn when it resizes), its legend below. */
export function drawLineChart(container: HTMLElement, spec: ChartSpec): LineChart {
  const { dates, lines, axes } = spec;
  let selected = spec.selected;
  const data: uPlot.AlignedData = [dates.map(daySeconds), ...lines.map((line) => line.values)];
  const height = () => (container.clientWidth < 560 ? 240 : 300);
  const width = () => Math.max(container.clientWidth, 260);

  // The labels of the last drawing of each y axis, for sizing the axis and for the tests.
  const drawn = new Map<number, { splits: number[]; labels: string[] }>();
  const labelWidth = (axisIndex: number) => Math.max(0, ...(drawn.get(axisIndex)?.labels ?? []).map(textWidth));

  const scales: uPlot.Scales = {
    x: { time: true, range: (_u, min, max) => (min === max ? [min - DAY_SECONDS, max + DAY_SECONDS] : [min, max]) },
  };
  for (const axis of axes) {
    scales[axis.scale] = {
      auto: true,
      dir: axis.inverted ? -1 : 1,
      // Whole numbers (ranks) get half a step of room around them, and never go below 0.
      ...(axis.integer
        ? {
            range: (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => [
              Math.max(0.5, min - Math.max(0.5, (max - min) * 0.05)),
              max + Math.max(0.5, (max - min) * 0.05),
            ],
          }
        : {}),
    };
  }

  const plotCanvas = element('div', { class: 'chart-canvas' });
  const legend = element('ul', { class: 'legend', 'data-legend': '', 'aria-live': 'off' });
  container.replaceChildren(plotCanvas, legend);

  const legendRows = lines.map((line) => {
    const value = element('span', { class: 'legend-value' });
    legend.append(
      element('li', { 'data-line': line.label }, swatch(line), element('span', { class: 'legend-label' }, `${line.label}:`), value),
    );
    return value;
  });
  const dayRow = element('span', { class: 'legend-value', 'data-legend-day': '' });
  legend.prepend(element('li', { class: 'legend-day' }, element('span', { class: 'legend-label' }, 'Day:'), dayRow));

  let shownIndex = -1;
  const showLegend = (index: number) => {
    if (index === shownIndex || index < 0 || index >= dates.length) return;
    shownIndex = index;
    dayRow.textContent = dates[index]!;
    lines.forEach((line, lineIndex) => legendRows[lineIndex]!.replaceChildren(line.legend(index)));
  };

  const options: uPlot.Options = {
    width: width(),
    height: height(),
    // Dates are calendar days: drawn in UTC so that the axis shows the JSON's dates whatever the viewer's zone.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    scales,
    legend: { show: false },
    // Room beside the plot for half a date label, so that the first and last days' labels are whole.
    padding: [12, axes.some((axis) => axis.side === 'right') ? 0 : Math.ceil(textWidth('0000-00-00') / 2) + 4, 0, 0],
    axes: [
      {
        font: AXIS_FONT,
        // Whole days, a date label's width and more apart: as many ticks as fit, evenly spaced.
        splits: (u, _axisIndex, min, max) => {
          const room = u.bbox.width / uPlot.pxRatio;
          const fit = Math.max(1, Math.floor(room / (textWidth('0000-00-00') + 28)));
          const first = Math.ceil(min / DAY_SECONDS);
          const last = Math.floor(max / DAY_SECONDS);
          const step = Math.max(1, Math.ceil((last - first) / fit));
          const ticks: number[] = [];
          if (step < 28) {
            for (let day = first; day <= last; day += step) ticks.push(day * DAY_SECONDS);
            return ticks;
          }
          // A month or more apart: the first day of every Nth month, which reads as a round date.
          const months = Math.ceil(step / 30.44);
          const start = new Date(first * DAY_SECONDS * 1000);
          let month = start.getUTCFullYear() * 12 + start.getUTCMonth() + (start.getUTCDate() === 1 ? 0 : 1);
          month = Math.ceil(month / months) * months;
          for (; ; month += months) {
            const seconds = Date.UTC(Math.floor(month / 12), month % 12, 1) / 1000;
            if (seconds > last * DAY_SECONDS) return ticks.length > 0 ? ticks : [first * DAY_SECONDS];
            ticks.push(seconds);
          }
        },
        // ISO days, as every date of the page; a day's tick is at midnight UTC.
        values: (_u, ticks) => ticks.map((tick) => isoDay(tick)),
      },
      ...axes.map(
        (axis, index): uPlot.Axis => ({
          scale: axis.scale,
          side: axis.side === 'left' ? 3 : 1,
          font: AXIS_FONT,
          ticks: { size: TICK_SIZE },
          gap: LABEL_GAP,
          ...(axis.title ? { label: axis.title, labelFont: AXIS_FONT, labelSize: 18 } : {}),
          grid: { show: index === 0 },
          ...(axis.integer ? { incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 100_000, 1_000_000] } : {}),
          values: (_u, ticks, _axisIndex, _space, increment) => {
            const labels = axis.labels(ticks, increment);
            drawn.set(index + 1, { splits: ticks, labels });
            return labels;
          },
          // As wide as the widest label (measured in the axis's font), plus the tick and the gap.
          size: (_u, values) =>
            Math.ceil(Math.max(labelWidth(index + 1), ...(values ?? []).map(textWidth))) +
            TICK_SIZE +
            LABEL_GAP +
            6 +
            (axis.title ? 18 : 0),
        }),
      ),
    ],
    series: [
      { label: 'Day' },
      ...lines.map((line, index) => ({
        label: line.label,
        scale: line.scale,
        stroke: line.stroke ?? (index === 0 ? FIRST_STROKE : STROKES[(index - 1) % STROKES.length]),
        dash: line.dash,
        width: line.width ?? 2,
        points: { show: line.points ?? false, size: 6, fill: '#fff' },
        spanGaps: false,
      })),
    ],
    cursor: { points: { show: true } },
    hooks: {
      setCursor: [(u) => showLegend(u.cursor.idx ?? selected)],
      draw: [(u) => reportLabels(u)],
    },
  };

  /**
   * Where each y axis label sits, in CSS pixels of the canvas (`data-axis-labels`): each label is
   * drawn right-aligned against a left axis's ticks, left-aligned after a right axis's.
   */
  const reportLabels = (u: uPlot) => {
    const ratio = uPlot.pxRatio;
    const plotLeft = u.bbox.left / ratio;
    const plotRight = (u.bbox.left + u.bbox.width) / ratio;
    const plotTop = u.bbox.top / ratio;
    const boxes = axes.flatMap((axis, index) => {
      const labels = drawn.get(index + 1);
      if (!labels) return [];
      return labels.labels.map((text, labelIndex) => {
        const measured = textWidth(text);
        const y = plotTop + u.valToPos(labels.splits[labelIndex]!, axis.scale);
        const left = axis.side === 'left' ? plotLeft - TICK_SIZE - LABEL_GAP - measured : plotRight + TICK_SIZE + LABEL_GAP;
        return { axis: axis.scale, text, left, right: left + measured, top: y - 7, bottom: y + 7 };
      });
    });
    container.dataset.axisLabels = JSON.stringify({ width: u.width, height: u.height, labels: boxes });
  };

  const plot = new uPlot(options, data, plotCanvas);
  const firstCanvas = plot.root.querySelector('canvas');
  firstCanvas?.setAttribute('role', 'img');
  firstCanvas?.setAttribute('aria-label', spec.description);
  plot.over.addEventListener('click', () => {
    const index = plot.cursor.idx;
    if (index !== null && index !== undefined) spec.onPickDay?.(index);
  });
  showLegend(selected);
  const resize = new ResizeObserver(() => {
    if (plot.width !== width() || plot.height !== height()) plot.setSize({ width: width(), height: height() });
  });
  resize.observe(container);
  return {
    select(index) {
      selected = index;
      if (plot.cursor.idx === null || plot.cursor.idx === undefined) showLegend(index);
    },
    destroy() {
      resize.disconnect();
      plot.destroy();
      container.replaceChildren();
    },
  };
}
