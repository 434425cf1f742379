/**
 * The one chart component of the web service (console and portal): grouped bars per point on
 * one scale, server-rendered inline SVG (no script, no library; the CSP allows no inline style,
 * so colours are SVG attributes). Accessible: the SVG is `role="img"` named by its `<title>` and
 * described by a `<desc>` sentence of totals; the legend is text; the exact figures are a table
 * under a `<details>` ("Chart data as a table"), which screen readers and keyboards reach.
 */
import { html, type SafeHtml } from '../../portal/html';

export interface ChartSeries {
  name: string;
  /** Fill colour (contrast ≥ 3:1 on white, WCAG 1.4.11). */
  colour: string;
}

export interface ChartPoint {
  /** The x label (`2026-11-27`). */
  label: string;
  /** One value per series, in the series' order. */
  values: number[];
}

export interface ChartOptions {
  /** Unique on the page: prefixes the title/desc ids. */
  id: string;
  title: string;
  series: ChartSeries[];
  points: ChartPoint[];
  /** How a value reads in the axis, the description and the table (money, say). */
  format?: (value: number) => string;
  /** The first column's header in the data table. */
  pointName?: string;
}

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 56, right: 8, top: 12, bottom: 28 };
const MUTED = '#4b5563';

/** The SVG alone (the portal's dashboard and the console's pages use `chart()`). */
export function chartSvg(o: ChartOptions): SafeHtml {
  const format = o.format ?? String;
  const max = Math.max(1, ...o.points.flatMap((p) => p.values));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, o.points.length);
  const barW = Math.max(1, (slot - 2) / Math.max(1, o.series.length));
  const y = (value: number) => PAD.top + plotH - (Math.max(0, value) / max) * plotH;
  const totals = o.series.map((s, i) => {
    const sum = o.points.reduce((total, p) => total + (p.values[i] ?? 0), 0);
    return `${format(sum)} ${s.name.toLowerCase()}`;
  });
  const first = o.points[0]?.label ?? '';
  const last = o.points.at(-1)?.label ?? '';
  const bars = o.points.map((p, i) => {
    const x = PAD.left + i * slot;
    const tip = o.series.map((s, k) => `${format(p.values[k] ?? 0)} ${s.name.toLowerCase()}`);
    return html`<g
      ><title>${p.label}: ${tip.join(', ')}</title> ${o.series.map(
        (s, k) =>
          html`<rect
            x="${(x + k * barW).toFixed(1)}"
            y="${y(p.values[k] ?? 0).toFixed(1)}"
            width="${Math.max(1, barW - 1).toFixed(1)}"
            height="${(PAD.top + plotH - y(p.values[k] ?? 0)).toFixed(1)}"
            fill="${s.colour}"
          ></rect>`,
      )}</g
    >`;
  });
  return html`<svg
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    role="img"
    aria-labelledby="${o.id}-title ${o.id}-desc"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="${o.id}-title">${o.title}</title>
    <desc id="${o.id}-desc">${totals.join(', ')}${first ? ` from ${first} to ${last}` : ''}.</desc>
    <line
      x1="${PAD.left}"
      y1="${PAD.top + plotH}"
      x2="${WIDTH - PAD.right}"
      y2="${PAD.top + plotH}"
      stroke="#9aa5b1"
    ></line>
    <text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end" font-size="11" fill="${MUTED}">
      ${format(max)}
    </text>
    <text
      x="${PAD.left - 6}"
      y="${PAD.top + plotH}"
      text-anchor="end"
      font-size="11"
      fill="${MUTED}"
    >
      ${format(0)}
    </text>
    ${bars}
    <text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11" fill="${MUTED}">${first}</text>
    <text
      x="${WIDTH - PAD.right}"
      y="${HEIGHT - 8}"
      text-anchor="end"
      font-size="11"
      fill="${MUTED}"
    >
      ${last}
    </text>
  </svg>`;
}

/** Colour keys as text; the swatches are decorative SVG (no inline style under the CSP). */
export function chartLegend(series: ChartSeries[]): SafeHtml {
  return html`<p class="legend">
    ${series.map(
      (s) =>
        html`<span
          ><svg class="swatch" width="12" height="12" aria-hidden="true" focusable="false">
            <rect width="12" height="12" fill="${s.colour}"></rect></svg
          >${s.name}</span
        >`,
    )}
  </p>`;
}

/** The chart's figures as a table (inside `<details>`): the text equivalent of the bars. */
export function chartTable(o: ChartOptions): SafeHtml {
  const format = o.format ?? String;
  return html`<details>
    <summary>Chart data as a table</summary>
    <div class="table" tabindex="0" role="region" aria-label="${o.title}: figures">
      <table>
        <thead>
          <tr>
            <th scope="col">${o.pointName ?? 'Day'}</th>
            ${o.series.map((s) => html`<th scope="col" class="num">${s.name}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${o.points.map(
            (p) =>
              html`<tr>
                <td>${p.label}</td>
                ${o.series.map((_s, k) => html`<td class="num">${format(p.values[k] ?? 0)}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </details>`;
}

/** SVG, legend and data table: what a page puts in its chart section. */
export function chart(o: ChartOptions): SafeHtml {
  return html`<div class="chart">${chartSvg(o)} ${chartLegend(o.series)} ${chartTable(o)}</div>`;
}
