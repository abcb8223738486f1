/**
 * The settings are declared once (src/config-settings.ts): the docs tables and `paraph serve --help` are generated
 * from that declaration, and loadConfig applies its defaults and bounds. Fails when any of them drifts.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../src/cli/serve.js';
import { CONFIG_SETTINGS, configSetting, defaultText, type ConfigKey } from '../src/config-settings.js';
import { DEFAULT_SECURITY_SETTINGS, loadConfig } from '../src/config.js';
import { ValidationError } from '../src/errors.js';
import { GENERATED_TABLES, withTable } from '../scripts/generate-config-doc.js';

const ROOT = resolve(import.meta.dirname, '..');
const KEYS = Object.keys(CONFIG_SETTINGS) as ConfigKey[];
const INTEGER_KEYS = KEYS.filter((key) => configSetting(key).type === 'integer');
/** Variables that are not service settings: the config file's name, and inputs of one CLI command each. */
const NOT_SETTINGS = new Set(['PARAPH_CONFIG', 'PARAPH_NEW_MASTER_KEY', 'PARAPH_P12_PASSWORD', 'PARAPH_PKCS11_PIN']);

async function serveHelp(): Promise<string> {
  let out = '';
  const code = await serveCommand(['--help'], { stdout: (text) => (out += text), stderr: () => {} });
  expect(code).toBe(0);
  return out;
}

describe('the settings declaration', () => {
  it.each(Object.keys(GENERATED_TABLES))('%s holds the table generated from it (npx tsx scripts/generate-config-doc.ts)', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).toBe(withTable(text, GENERATED_TABLES[file]!(), file));
  });

  it('docs/configuration.md, SECURITY.md and the README name no PARAPH_ variable it does not declare', () => {
    const declared = new Set<string>(Object.values(CONFIG_SETTINGS).map((s) => s.env));
    for (const file of ['docs/configuration.md', 'SECURITY.md', 'README.md', 'docs/operations.md']) {
      const named = readFileSync(join(ROOT, file), 'utf8').match(/\bPARAPH_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [];
      const unknown = [...new Set(named)].filter((name) => !declared.has(name) && !NOT_SETTINGS.has(name));
      expect(unknown, file).toEqual([]);
    }
  });

  it('paraph serve --help gives every setting its meaning, default and config file key', async () => {
    const lines = (await serveHelp()).split('\n');
    for (const key of KEYS) {
      const setting = configSetting(key);
      const line = lines.find((l) => l.trimStart().startsWith(`${setting.env} `));
      expect(line, setting.env).toBeDefined();
      expect(line).toContain(setting.description);
      expect(line).toContain(`(default ${defaultText(setting)})`);
      expect(line).toContain(`[file: ${setting.file}]`);
    }
  });

  it('an empty configuration takes the declared defaults', () => {
    const config = loadConfig({ env: {}, cwd: '/srv' });
    expect(config.host).toBe(CONFIG_SETTINGS.host.default);
    expect(config.port).toBe(CONFIG_SETTINGS.port.default);
    expect(config.dataDir).toBe(resolve('/srv', CONFIG_SETTINGS.dataDir.default));
    expect(config.retentionDays).toBe(CONFIG_SETTINGS.retentionDays.default);
    expect(config.deleteGraceMinutes).toBe(CONFIG_SETTINGS.deleteGraceMinutes.default);
    expect(config.maxFileBytes).toBe(CONFIG_SETTINGS.maxFileBytes.default);
    expect(config.fileReplaceGuardMs).toBe(CONFIG_SETTINGS.fileReplaceGuardMs.default);
    expect(config.workerIntervalMs).toBe(CONFIG_SETTINGS.workerIntervalMs.default);
    expect(config.organizationName).toBe(CONFIG_SETTINGS.organizationName.default);
    expect(config.logLevel).toBe(CONFIG_SETTINGS.logLevel.default);
    for (const [key, value] of Object.entries(DEFAULT_SECURITY_SETTINGS)) {
      const declared = (CONFIG_SETTINGS as Record<string, { default?: unknown }>)[key]?.default;
      if (declared !== undefined) expect(value, key).toBe(declared);
    }
  });

  it.each(INTEGER_KEYS)('%s accepts its declared bounds and refuses one past them, naming the variable', (key) => {
    const { env, min, max } = configSetting(key);
    if (min === undefined || max === undefined) throw new Error(`${env} declares no bounds`);
    // Settings that only count together with another one get their partner.
    const partners: Record<string, string> = key === 'qsealPkcs11Slot' ? { PARAPH_QSEAL_PKCS11_MODULE: '/x.so', PARAPH_QSEAL_PKCS11_PIN: '1' } : {};
    for (const value of [min, max]) expect(() => loadConfig({ env: { ...partners, [env]: String(value) } })).not.toThrow();
    for (const value of [min - 1, max + 1]) {
      let error: unknown;
      try {
        loadConfig({ env: { ...partners, [env]: String(value) } });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toContain(`${env}: must be an integer from ${min} to ${max}`);
    }
  });
});
