import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generatePki, PKI_DIR } from '../../fixtures/generate-pki.js';

const dirs: string[] = [];
function copyOfCommittedPki(): string {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-pki-'));
  dirs.push(dir);
  cpSync(PKI_DIR, dir, { recursive: true });
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function snapshot(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).sort().map((name) => [name, readFileSync(join(dir, name)).toString('base64')]));
}

describe('fixtures/generate-pki.ts', () => {
  it('regenerating the committed PKI keeps its keys and rewrites no file', async () => {
    const dir = copyOfCommittedPki();
    const before = snapshot(dir);
    expect(await generatePki(dir)).toEqual([]);
    expect(snapshot(dir)).toEqual(before);
  });

  it('--new-keys replaces every key and certificate (and so every PKCS#12 file)', async () => {
    const dir = copyOfCommittedPki();
    const before = snapshot(dir);
    const written = await generatePki(dir, { newKeys: true });
    for (const name of ['root-ca.key.pem', 'root-ca.pem', 'signer-p256.key.pem', 'signer-p256.pem', 'seal.p12', 'intermediate.crl.pem']) {
      expect(written).toContain(name);
      expect(snapshot(dir).get(name)).not.toBe(before.get(name));
    }
    expect(written).not.toContain('README.md');
  });
});
