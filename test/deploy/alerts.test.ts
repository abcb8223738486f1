/**
 * The alert rules and the dashboard shipped in deploy/ (docs/operations.md#alerts): promtool accepts the rules, their
 * unit test (series that should and should not fire each alert) passes, and every metric the rules and the dashboard
 * query is one the service exposes.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { prometheusTool } from '../helpers/prometheus-tools.js';

const DIR = fileURLToPath(new URL('../../deploy/', import.meta.url));
const services: TestService[] = [];
afterAll(async () => {
  for (const service of services) await service.dispose();
});

function promtool(args: readonly string[]): Promise<{ code: number; out: string }> {
  const binary = prometheusTool('promtool');
  return new Promise((resolve) => {
    execFile(binary, args, { cwd: `${DIR}prometheus` }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/** Metric names a PromQL text uses (the histogram suffixes taken off). */
function metricNames(text: string): Set<string> {
  const names = [...text.matchAll(/\b(?:paraph|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, ''));
  return new Set(names);
}

describe('deploy/prometheus and deploy/grafana', () => {
  it('promtool checks the alert rules', async () => {
    const checked = await promtool(['check', 'rules', 'alerts.yml']);
    expect(checked.code, checked.out).toBe(0);
    expect(checked.out).toContain('SUCCESS: 6 rules found');
  });

  it('the rules fire on the series that should fire them and on no other (promtool test rules)', async () => {
    const tested = await promtool(['test', 'rules', 'alerts.test.yml']);
    expect(tested.code, tested.out).toBe(0);
    expect(tested.out).toContain('SUCCESS');
    // Every alert is tested, each with a time it must not fire and one it must.
    const rules = [...readFileSync(`${DIR}prometheus/alerts.yml`, 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    const tests = readFileSync(`${DIR}prometheus/alerts.test.yml`, 'utf8');
    for (const rule of rules) {
      expect(tests).toMatch(new RegExp(`alertname: ${rule}\\n\\s+exp_alerts: \\[\\]`));
      expect(tests).toMatch(new RegExp(`alertname: ${rule}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
    }
  });

  it('every metric the rules and the dashboard query is one the service exposes', async () => {
    const service = await startTestService({ env: { PARAPH_METRICS_TOKEN: 'deploy-test-token-0123' } });
    services.push(service);
    const { body } = await service.server.service.metrics.expose();
    const exposed = new Set([...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const dashboard = JSON.parse(readFileSync(`${DIR}grafana/paraph.json`, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const queried = new Set([
      ...metricNames(readFileSync(`${DIR}prometheus/alerts.yml`, 'utf8').replace(/description: .*/g, '')),
      ...dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => [...metricNames(target.expr)])),
    ]);
    expect(queried.size).toBeGreaterThan(15);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
  }, 60_000);
});
