import { countOf } from '@harness-s/core';
import { coordinate as c, escapeHtml } from './html.js';
import type { CurvePoint } from './stats.js';

// Small hand-written SVG charts: the report is one file that must render with no network, and
// three chart shapes do not justify bundling a charting library.

/** One line of a line chart; points with `n > 1` draw a band of ± one spread around the mean. */
export interface LineSeries {
  label: string;
  color: string;
  dashed?: boolean;
  points: CurvePoint[];
}

export interface ChartFrame {
  /** Stable id, also the `data-chart` attribute tests and readers find the chart by. */
  id: string;
  title: string;
  /** One line under the title: what is measured and how. */
  note?: string;
}

const width = 560;
const height = 280;
const margin = { top: 16, right: 18, bottom: 40, left: 52 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;

/** A step of 1, 2, 2.5 or 5 times a power of ten, close to `range / count`. */
function niceStep(range: number, count: number): number {
  const raw = range / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const factor = [1, 2, 2.5, 5, 10].find((candidate) => candidate * power >= raw) ?? 10;
  return factor * power;
}

function ticks(minimum: number, maximum: number, count: number): number[] {
  const step = niceStep(maximum - minimum, count);
  const values: number[] = [];
  for (let value = Math.ceil(minimum / step - 1e-9) * step; value <= maximum + 1e-9; value += step) {
    values.push(Math.round(value * 1e6) / 1e6);
  }
  return values;
}

/** The y range of fractions: the data with some air, at least 20 points wide, inside [0, 1]. */
function fractionDomain(values: readonly number[]): [number, number] {
  if (values.length === 0) return [0, 1];
  let low = Math.min(...values);
  let high = Math.max(...values);
  const pad = Math.max(0.05, (high - low) * 0.15);
  low = Math.max(0, low - pad);
  high = Math.min(1, high + pad);
  if (high - low < 0.2) {
    const middle = (high + low) / 2;
    [low, high] = middle < 0.1 ? [0, 0.2] : middle > 0.9 ? [0.8, 1] : [middle - 0.1, middle + 0.1];
  }
  const step = niceStep(high - low, 4);
  return [Math.max(0, Math.floor(low / step) * step), Math.min(1, Math.ceil(high / step) * step)];
}

const percentLabel = (fraction: number): string => `${Math.round(fraction * 1000) / 10}%`;

function figure(frame: ChartFrame, svg: string, legend: string): string {
  return `<figure class="chart-card" id="chart-${escapeHtml(frame.id)}">
<figcaption><span class="chart-title">${escapeHtml(frame.title)}</span>${frame.note ? `<span class="chart-note">${escapeHtml(frame.note)}</span>` : ''}</figcaption>
${legend}${svg}</figure>`;
}

function legendOf(items: ReadonlyArray<{ label: string; color: string; dashed?: boolean }>): string {
  return `<ul class="legend">${items
    .map(
      (item) =>
        `<li><span class="swatch${item.dashed ? ' dashed' : ''}" style="--swatch:${escapeHtml(item.color)}"></span>${escapeHtml(item.label)}</li>`,
    )
    .join('')}</ul>`;
}

/** A placeholder card where a chart has no data (the folder lacks the part it is drawn from). */
export function emptyChart(frame: ChartFrame, reason: string): string {
  return `<figure class="chart-card empty" id="chart-${escapeHtml(frame.id)}"><figcaption><span class="chart-title">${escapeHtml(frame.title)}</span></figcaption><p class="empty-note">${escapeHtml(reason)}</p></figure>`;
}

/** Lines of fractions over steps, with bands of ± one spread over seeds. */
export function lineChart(frame: ChartFrame, series: readonly LineSeries[], xLabel = 'training step'): string {
  const drawn = series.filter((line) => line.points.length > 0);
  if (drawn.length === 0) return emptyChart(frame, 'No data in this run folder.');
  const xs = drawn.flatMap((line) => line.points.map((point) => point.x));
  let [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  if (xMin === xMax) [xMin, xMax] = [xMin - 1, xMax + 1];
  const [yMin, yMax] = fractionDomain(
    drawn.flatMap((line) => line.points.flatMap((point) => [point.y - point.spread, point.y + point.spread])),
  );
  const x = (value: number) => margin.left + ((value - xMin) / (xMax - xMin)) * plotWidth;
  const y = (value: number) =>
    margin.top + (1 - (Math.min(yMax, Math.max(yMin, value)) - yMin) / (yMax - yMin)) * plotHeight;

  const yTicks = ticks(yMin, yMax, 4);
  const xTicks = ticks(xMin, xMax, Math.min(8, xMax - xMin)).filter((value) => Number.isInteger(value));
  const grid = [
    ...yTicks.map(
      (value) =>
        `<line class="grid" x1="${margin.left}" x2="${width - margin.right}" y1="${c(y(value))}" y2="${c(y(value))}"/><text class="tick" x="${margin.left - 8}" y="${c(y(value) + 4)}" text-anchor="end">${percentLabel(value)}</text>`,
    ),
    ...xTicks.map(
      (value) =>
        `<line class="axis-tick" x1="${c(x(value))}" x2="${c(x(value))}" y1="${height - margin.bottom}" y2="${height - margin.bottom + 5}"/><text class="tick" x="${c(x(value))}" y="${height - margin.bottom + 18}" text-anchor="middle">${value}</text>`,
    ),
    `<line class="axis" x1="${margin.left}" x2="${width - margin.right}" y1="${height - margin.bottom}" y2="${height - margin.bottom}"/>`,
    `<text class="axis-label" x="${margin.left + plotWidth / 2}" y="${height - 6}" text-anchor="middle">${escapeHtml(xLabel)}</text>`,
  ].join('');

  const lines = drawn.map((line) => {
    const band = line.points.some((point) => point.n > 1 && point.spread > 0)
      ? `<path class="band" fill="${escapeHtml(line.color)}" d="M${line.points.map((point) => `${c(x(point.x))},${c(y(point.y + point.spread))}`).join('L')}L${[
          ...line.points,
        ]
          .reverse()
          .map((point) => `${c(x(point.x))},${c(y(point.y - point.spread))}`)
          .join('L')}Z"/>`
      : '';
    const path = `<path class="line${line.dashed ? ' dashed' : ''}" stroke="${escapeHtml(line.color)}" d="M${line.points.map((point) => `${c(x(point.x))},${c(y(point.y))}`).join('L')}"/>`;
    const dots = line.points
      .map(
        (point) =>
          `<circle class="dot" cx="${c(x(point.x))}" cy="${c(y(point.y))}" r="3.2" fill="${escapeHtml(line.color)}"><title>${escapeHtml(
            `${line.label}, step ${point.x}: ${percentLabel(point.y)}${point.n > 1 ? ` ± ${percentLabel(point.spread)} (${point.n} seeds)` : ''}`,
          )}</title></circle>`,
      )
      .join('');
    return `<g class="series">${band}${path}${dots}</g>`;
  });
  const svg = `<svg class="chart" data-chart="${escapeHtml(frame.id)}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(frame.title)}">${grid}${lines.join('')}</svg>`;
  return figure(frame, svg, legendOf(drawn));
}

/** One stack of a stacked bar chart: a part (e.g. a harness) and its share in every bar. */
export interface Stack {
  label: string;
  color: string;
  values: readonly number[];
}

/** Vertical bars of shares that add up to one, one bar per category (e.g. per re-anchoring). */
export function stackedBarChart(frame: ChartFrame, categories: readonly string[], stacks: readonly Stack[]): string {
  if (categories.length === 0 || stacks.length === 0) return emptyChart(frame, 'No data in this run folder.');
  const slot = plotWidth / categories.length;
  const barWidth = Math.min(56, slot * 0.64);
  const y = (value: number) => margin.top + (1 - value) * plotHeight;
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (value) =>
        `<line class="grid" x1="${margin.left}" x2="${width - margin.right}" y1="${c(y(value))}" y2="${c(y(value))}"/><text class="tick" x="${margin.left - 8}" y="${c(y(value) + 4)}" text-anchor="end">${percentLabel(value)}</text>`,
    )
    .join('');
  const bars = categories.map((category, index) => {
    const left = margin.left + slot * index + (slot - barWidth) / 2;
    let base = 0;
    const parts = stacks.map((stack) => {
      const value = Math.max(0, stack.values[index] ?? 0);
      const top = base + value;
      const rect =
        value > 0
          ? `<rect class="bar" x="${c(left)}" y="${c(y(top))}" width="${c(barWidth)}" height="${c(y(base) - y(top))}" fill="${escapeHtml(stack.color)}"><title>${escapeHtml(`${category}: ${stack.label} ${percentLabel(value)}`)}</title></rect>`
          : '';
      base = top;
      return rect;
    });
    return `<g>${parts.join('')}<text class="tick" x="${c(left + barWidth / 2)}" y="${height - margin.bottom + 18}" text-anchor="middle">${escapeHtml(category)}</text></g>`;
  });
  const svg = `<svg class="chart" data-chart="${escapeHtml(frame.id)}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(frame.title)}">${grid}${bars.join('')}<line class="axis" x1="${margin.left}" x2="${width - margin.right}" y1="${height - margin.bottom}" y2="${height - margin.bottom}"/></svg>`;
  return figure(frame, svg, legendOf(stacks));
}

/** One row of a diverging bar chart: counts drawn left (`hurts`) and right (`helps`) of zero. */
export interface DivergingRow {
  label: string;
  /** A second, lighter line under the label (e.g. the repair direction). */
  detail?: string;
  helps: number;
  hurts: number;
}

/**
 * Horizontal bars of tasks a variant solves that H0 does not (right) and loses (left). `largest`
 * sets the scale (default: the largest count drawn), so that charts set side by side compare.
 */
export function divergingBarChart(frame: ChartFrame, rows: readonly DivergingRow[], largest?: number): string {
  if (rows.length === 0) return emptyChart(frame, 'No profiles in this run folder.');
  const rowHeight = rows.some((row) => row.detail) ? 36 : 26;
  const labelWidth = 190;
  const chartHeight = margin.top + rows.length * rowHeight + 34;
  const top = Math.max(1, largest ?? 0, ...rows.flatMap((row) => [row.helps, row.hurts]));
  const half = (width - labelWidth - margin.right - 16) / 2;
  const zero = labelWidth + 8 + half;
  const scale = (value: number) => (value / top) * (half - 24);
  const body = rows
    .map((row, index) => {
      const top = margin.top + index * rowHeight;
      const middle = top + rowHeight / 2;
      const hurt = scale(row.hurts);
      const help = scale(row.helps);
      return `<g class="row"><text class="row-label" x="${labelWidth}" y="${c(row.detail ? middle - 3 : middle + 4)}" text-anchor="end">${escapeHtml(row.label)}</text>${
        row.detail
          ? `<text class="row-detail" x="${labelWidth}" y="${c(middle + 11)}" text-anchor="end">${escapeHtml(row.detail)}</text>`
          : ''
      }<rect class="bar hurts" x="${c(zero - hurt)}" y="${c(middle - 8)}" width="${c(Math.max(hurt, 1.5))}" height="16"><title>${escapeHtml(`${row.label}: hurts on ${countOf(row.hurts, 'task')} H0 solves`)}</title></rect><rect class="bar helps" x="${c(zero)}" y="${c(middle - 8)}" width="${c(Math.max(help, 1.5))}" height="16"><title>${escapeHtml(`${row.label}: helps on ${countOf(row.helps, 'task')} H0 fails`)}</title></rect><text class="value" x="${c(zero - hurt - 5)}" y="${c(middle + 4)}" text-anchor="end">${row.hurts}</text><text class="value" x="${c(zero + help + 5)}" y="${c(middle + 4)}">${row.helps}</text></g>`;
    })
    .join('');
  const axis = `<line class="axis" x1="${c(zero)}" x2="${c(zero)}" y1="${margin.top - 4}" y2="${c(chartHeight - 30)}"/><text class="axis-label" x="${c(zero - 8)}" y="${c(chartHeight - 10)}" text-anchor="end">← hurts: H0 solves, it fails</text><text class="axis-label" x="${c(zero + 8)}" y="${c(chartHeight - 10)}">helps: H0 fails, it solves →</text>`;
  const svg = `<svg class="chart" data-chart="${escapeHtml(frame.id)}" viewBox="0 0 ${width} ${chartHeight}" role="img" aria-label="${escapeHtml(frame.title)}">${body}${axis}</svg>`;
  return figure(frame, svg, '');
}
