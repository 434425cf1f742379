/** A small inline SVG bar chart of visitors and conversions per day (no script, no library). */
import { html, type SafeHtml } from './html';
import type { DayActivity } from './portal-summary';

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 32, right: 8, top: 12, bottom: 28 };
export const VISITOR_COLOUR = '#0b57d0';
export const CONVERSION_COLOUR = '#c2410c';

export function activityChart(series: DayActivity[]): SafeHtml {
  const max = Math.max(1, ...series.map((d) => Math.max(d.visitors, d.conversions)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, series.length);
  const barW = Math.max(2, slot / 2 - 1);
  const y = (value: number) => PAD.top + plotH - (value / max) * plotH;
  const totalVisitors = series.reduce((sum, d) => sum + d.visitors, 0);
  const totalConversions = series.reduce((sum, d) => sum + d.conversions, 0);
  const first = series[0]?.day ?? '';
  const last = series.at(-1)?.day ?? '';

  const bars = series.map((d, i) => {
    const x = PAD.left + i * slot;
    return html`<g
      ><title>${d.day}: ${d.visitors} visitors, ${d.conversions} conversions</title>
      <rect
        x="${x.toFixed(1)}"
        y="${y(d.visitors).toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${(PAD.top + plotH - y(d.visitors)).toFixed(1)}"
        fill="${VISITOR_COLOUR}"
      ></rect>
      <rect
        x="${(x + barW + 1).toFixed(1)}"
        y="${y(d.conversions).toFixed(1)}"
        width="${barW.toFixed(1)}"
        height="${(PAD.top + plotH - y(d.conversions)).toFixed(1)}"
        fill="${CONVERSION_COLOUR}"
      ></rect
    ></g>`;
  });

  return html`<svg
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    role="img"
    aria-labelledby="chart-title chart-desc"
    xmlns="http://www.w3.org/2000/svg"
  >
    <title id="chart-title">Visitors and conversions per day, last 30 days</title>
    <desc id="chart-desc">
      ${totalVisitors} visitors and ${totalConversions} conversions from ${first} to ${last}.
    </desc>
    <line
      x1="${PAD.left}"
      y1="${PAD.top + plotH}"
      x2="${WIDTH - PAD.right}"
      y2="${PAD.top + plotH}"
      stroke="#9aa5b1"
    ></line>
    <text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end" font-size="11" fill="#4b5563">
      ${max}
    </text>
    <text
      x="${PAD.left - 6}"
      y="${PAD.top + plotH}"
      text-anchor="end"
      font-size="11"
      fill="#4b5563"
    >
      0
    </text>
    ${bars}
    <text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11" fill="#4b5563">${first}</text>
    <text
      x="${WIDTH - PAD.right}"
      y="${HEIGHT - 8}"
      text-anchor="end"
      font-size="11"
      fill="#4b5563"
    >
      ${last}
    </text>
  </svg>`;
}
