/**
 * Numbers and behaviour the README and docs/ state, against what the code serves: the /health example's schema
 * version, the status of an unknown transaction, the nesting limits of request bodies, the languages of the mails,
 * the settings a refused PostbackUrl names, and how far a field may overhang the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/i18n/languages.js';
import { MAX_BODY_DEPTH, MAX_CONTEXT_DEPTH } from '../../src/domain/transaction-json.js';
import { PAGE_EDGE_TOLERANCE } from '../../src/pdf/resolve-locations.js';
import { checkPostbackTarget } from '../../src/service/delivery/postback-target.js';
import { startTestService, type TestService } from '../../src/testing/start-test-service.js';
import { PROJECT_ROOT } from '../package/consumer-project.js';

const read = (file: string): string => readFileSync(join(PROJECT_ROOT, file), 'utf8');
const README = read('README.md');
const API = read('docs/api.md');
const CONFIGURATION = read('docs/configuration.md');

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 60_000);
afterAll(async () => {
  await service?.dispose();
});

describe('README and docs/ against the code', () => {
  it("docs/configuration.md's /health example shows the schema version a fresh store serves", async () => {
    const health = await service.client.request('GET', '/health', { auth: false });
    const served = (health.json as { Database: { SchemaVersion: number } }).Database.SchemaVersion;
    expect(served).toBeGreaterThan(0);
    expect(Number(/"SchemaVersion": (\d+)/.exec(CONFIGURATION)?.[1])).toBe(served);
  });

  it('docs/api.md gives an unknown transaction the 401 the service answers', async () => {
    const unknown = await service.client.request('GET', '/api/transaction/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(401);
    const row404 = API.split('\n').find((line) => line.startsWith('| 404 |')) ?? '';
    expect(row404).toContain('an unknown transaction answers 401');
  });

  it('README and docs/api.md give the nesting limits the parser enforces', () => {
    const readme = /limited to (\d+) levels of nesting \(`Context` to (\d+)\)/.exec(README);
    expect(readme?.slice(1).map(Number)).toEqual([MAX_BODY_DEPTH, MAX_CONTEXT_DEPTH]);
    const api = /nest at most (\d+) levels, a `Context` at most (\d+)/.exec(API);
    expect(api?.slice(1).map(Number)).toEqual([MAX_BODY_DEPTH, MAX_CONTEXT_DEPTH]);
  });

  it('README and docs/design/locations.md give the overhang a field may have before it is outside the page', () => {
    expect(Number(/overhangs the page edge by at most\s+([\d.]+) pt/.exec(README)?.[1])).toBe(PAGE_EDGE_TOLERANCE);
    expect(Number(/an overhang of at most ([\d.]+) pt/.exec(read('docs/design/locations.md'))?.[1])).toBe(PAGE_EDGE_TOLERANCE);
  });

  it("README's mail sentence names every language the service has", () => {
    const sentence = /Mails \(sign requests[\s\S]*?\) go through SMTP/.exec(README)?.[0] ?? '';
    expect(sentence).toContain(`each of the ${['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'][LANGUAGES.length - 1]} languages`);
    for (const language of LANGUAGES) expect(sentence).toContain(language);
  });

  it('a refused PostbackUrl names the development setting that admits it, and the README tells a newcomer', async () => {
    const policy = { allowHttp: false, allowedRanges: [] };
    const http = await checkPostbackTarget('http://127.0.0.1:3001/hook', policy);
    expect(http.ok === false && http.reason).toMatch(/PARAPH_POSTBACK_ALLOW_HTTP=true/);
    const loopback = await checkPostbackTarget('https://127.0.0.1:3001/hook', policy);
    expect(loopback.ok === false && loopback.reason).toMatch(/PARAPH_POSTBACK_ALLOWED_RANGES/);
    const events = README.slice(README.indexOf('## Events'), README.indexOf('## Library'));
    expect(events).toContain('PARAPH_POSTBACK_ALLOW_HTTP=true');
    expect(events).toContain('PARAPH_POSTBACK_ALLOWED_RANGES=127.0.0.0/8');
  });
});
