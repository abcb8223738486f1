/**
 * A dependency-free SVG line chart for benchmark results (`npm run bench -- --plot`): one polyline per series
 * on logarithmic axes (decade grid lines), markers at the measured points, a legend. Pure: values in, SVG text out.
 */

/** One measured point. */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
}

/** A line of the chart. */
export interface ChartSeries {
  readonly name: string;
  readonly points: readonly ChartPoint[];
  /** Drawn dashed (used for reference tools). */
  readonly dashed?: boolean;
}

/** What {@link renderLineChart} draws. */
export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  readonly width?: number;
  readonly height?: number;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f', '#17becf'];
const MARGIN = { left: 70, right: 190, top: 40, bottom: 50 };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function tickLabel(value: number): string {
  if (value >= 1000) return `${value / 1000}k`;
  return String(Number(value.toPrecision(3)));
}

function round(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

/**
 * Renders `chart` as a standalone SVG document with log10 x and y axes. Points with x or y ≤ 0 (or not finite) are
 * left out; a series with no points left gets a legend entry only.
 *
 * @example
 * const svg = renderLineChart({ title: 'ms/page', xLabel: 'pages', yLabel: 'ms per page',
 *   series: [{ name: 'place', points: [{ x: 10, y: 3.1 }, { x: 1000, y: 1.2 }] }] });
 */
export function renderLineChart(chart: LineChart): string {
  const width = chart.width ?? 860;
  const height = chart.height ?? 480;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const usable = chart.series.map((s) => s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && p.x > 0 && p.y > 0));
  const all = usable.flat();
  const decades = (values: number[]): [number, number] => {
    if (values.length === 0) return [0, 1];
    // Decade lines are drawn at 10 ** d: keep d where that is a normal double (subnormal inputs would give 10 ** -324 = 0).
    const lo = Math.max(-307, Math.floor(Math.log10(Math.min(...values))));
    const hi = Math.min(308, Math.ceil(Math.log10(Math.max(...values))));
    return [lo, hi === lo ? lo + 1 : hi];
  };
  const [x0, x1] = decades(all.map((p) => p.x));
  const [y0, y1] = decades(all.map((p) => p.y));
  const sx = (x: number): number => MARGIN.left + ((Math.log10(x) - x0) / (x1 - x0)) * plotW;
  const sy = (y: number): number => MARGIN.top + plotH - ((Math.log10(y) - y0) / (y1 - y0)) * plotH;

  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`);
  for (let d = x0; d <= x1; d++) {
    const x = round(sx(10 ** d));
    out.push(`<line x1="${x}" y1="${MARGIN.top}" x2="${x}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${tickLabel(10 ** d)}</text>`);
  }
  for (let d = y0; d <= y1; d++) {
    const y = round(sy(10 ** d));
    out.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotW}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${tickLabel(10 ** d)}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${MARGIN.left + plotW / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`);
  chart.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length] as string;
    const points = usable[i] ?? [];
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    if (points.length > 0) {
      const coords = points.map((p) => `${round(sx(p.x))},${round(sy(p.y))}`).join(' ');
      out.push(`<polyline data-series="${escapeXml(series.name)}" points="${coords}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
      for (const p of points) out.push(`<circle cx="${round(sx(p.x))}" cy="${round(sy(p.y))}" r="3" fill="${color}"/>`);
    }
    const ly = MARGIN.top + 10 + i * 20;
    const lx = MARGIN.left + plotW + 15;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 30}" y="${ly}" dominant-baseline="middle">${escapeXml(series.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
