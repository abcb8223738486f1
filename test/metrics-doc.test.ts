/**
 * The metrics are declared once (src/http/metric-definitions.ts): the service registers exactly those, and the table of
 * docs/operations.md is generated from the declaration. Fails when either drifts.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../src/http/metric-definitions.js';
import { ParaphMetrics } from '../src/http/metrics.js';
import { METRICS_DOC, metricsTable, withMetricsTable } from '../scripts/generate-metrics-doc.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('the metrics declaration', () => {
  it(`${METRICS_DOC} holds the table generated from it (npx tsx scripts/generate-metrics-doc.ts)`, () => {
    const text = readFileSync(join(ROOT, METRICS_DOC), 'utf8');
    expect(text).toBe(withMetricsTable(text, metricsTable()));
  });

  it('names every metric the service registers, with its type and help', async () => {
    const metrics = new ParaphMetrics({ store: { countOperational: async () => ({ transactionsByStatus: new Map(), outbox: [] }) }, clock: () => new Date(0) });
    try {
      const registered = (await metrics.registry.getMetricsAsJSON()).map((m) => ({ name: m.name, type: String(m.type), help: m.help }));
      const declared = Object.values(METRICS);
      expect(registered.map((m) => m.name).sort()).toEqual(declared.map((m) => m.name).sort());
      for (const metric of declared) {
        const found = registered.find((m) => m.name === metric.name)!;
        expect(found.type, metric.name).toBe(metric.type);
        expect(found.help, metric.name).toBe(metric.help);
      }
      for (const metric of declared) expect(metricsTable().some((row) => row.startsWith(`| \`${metric.name}\` | `)), metric.name).toBe(true);
    } finally {
      metrics.close();
    }
  });
});
