/**
 * Writes the metrics table of docs/operations.md from the declaration in src/http/metric-definitions.ts
 * (`npx tsx scripts/generate-metrics-doc.ts`); test/metrics-doc.test.ts fails when the table is out of date. The table
 * sits between the two marker comments below; the text around it is written by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { METRICS, type MetricDefinition } from '../src/http/metric-definitions.js';

export const METRICS_DOC = 'docs/operations.md';
export const TABLE_START = '<!-- metrics table: generated from src/http/metric-definitions.ts by scripts/generate-metrics-doc.ts -->';
export const TABLE_END = '<!-- end of metrics table -->';

const cell = (text: string): string => text.replaceAll('|', '\\|');

function row(metric: MetricDefinition): string {
  const type = metric.fromDatabase ? `${metric.type}, database` : metric.type;
  const labels = metric.labels.length === 0 ? '–' : metric.labels.map((l) => `\`${l}\``).join(', ');
  const meaning = metric.details === undefined ? metric.help : `${metric.help}; ${metric.details}`;
  return `| \`${metric.name}\` | ${type} | ${labels} | ${cell(meaning)} |`;
}

/** The table: one row per declared metric, then prom-client's process metrics. */
export function metricsTable(): string[] {
  return [
    '| Metric | Type | Labels | Meaning |',
    '| --- | --- | --- | --- |',
    ...Object.values(METRICS).map(row),
    "| `process_*`, `nodejs_*` | | | prom-client's process metrics: resident memory, heap, CPU, event-loop lag (`nodejs_eventloop_lag_p99_seconds`), GC, handles |",
  ];
}

/** `text` with the part between the markers replaced by `table`. */
export function withMetricsTable(text: string, table: readonly string[]): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${METRICS_DOC}: the metrics table markers are missing`);
  return `${text.slice(0, start + TABLE_START.length)}\n${table.join('\n')}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = new URL(`../${METRICS_DOC}`, import.meta.url);
  writeFileSync(url, withMetricsTable(readFileSync(url, 'utf8'), metricsTable()));
}
