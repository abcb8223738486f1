/**
 * Tests start the transaction service one way: through test/helpers/service-harness.ts (`startTestService` in the
 * test's process, `spawnServe` as a `paraph serve` process). A test that builds the service itself must be a test of
 * that way of building it (embedding `createService` or the plugin, `npm start`, a bare process watched for the
 * modules it loads), and is listed here with why.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Starting the service in a process: the server, the service, the app; or `paraph serve` / `npm start` as a child. */
const STARTS = [/\bstartServer\(/, /\bcreateService\(/, /\bbuildApp\(/, /['"]serve['"]/, /npm['"],\s*\[['"]start/];

/** Files that start the service themselves, and why. */
const OWN_START: Readonly<Record<string, string>> = {
  'test/helpers/service-harness.ts': 'the harness',
  'test/create-service.test.ts': 'its subject is createService and startServer',
  'test/package/consumer-sources.ts': 'a consumer of the published package embeds the service',
  'test/package/embed-in-host.test.ts': 'its subject is the plugin in a host app',
  'test/a11y/sign-page-prefix.test.ts': 'its subject is the signing page under a host app’s mount prefix',
  'test/readme/readme.test.ts': 'its subject is the README’s `npm start`',
  'test/http/tracing.test.ts': 'a bare child process records which modules a start without tracing loads',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('one test harness', () => {
  const starting = filesUnder(join(ROOT, 'test'))
    .filter((file) => !file.endsWith('one-test-harness.test.ts'))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return STARTS.some((pattern) => pattern.test(text));
    })
    .map((file) => relative(ROOT, file))
    .sort();

  it('finds the harness itself (the patterns match a start)', () => {
    expect(starting).toContain('test/helpers/service-harness.ts');
  });

  it('no other test starts the service, apart from the tests of embedding it', () => {
    expect(starting.filter((file) => OWN_START[file] === undefined)).toEqual([]);
  });

  it('lists only files that still start it themselves', () => {
    expect(Object.keys(OWN_START).filter((file) => !starting.includes(file))).toEqual([]);
  });
});
