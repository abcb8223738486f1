/**
 * The conformance corpus (fixtures/conformance/): files signed by an independent producer (pyHanko's test data,
 * with the verdicts pyHanko's own tests assert) and attack files from generate-attacks.ts. Every file's verdict
 * in expected.json must be what verifyPdf reports, and every refused change must be named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { qpdfCheck } from '../helpers/external-tools.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

interface Expectation {
  readonly file: string;
  readonly signature: number;
  readonly intact: boolean;
  readonly modifications: 'allowed' | 'disallowed';
  readonly mentions?: string;
  readonly valid?: boolean;
  readonly why: string;
}

const CORPUS = join(import.meta.dirname, '..', '..', 'fixtures', 'conformance');
const expected = (JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as { files: Expectation[] }).files;
const rootPem = readFileSync(join(PKI_DIR, 'root-ca.pem'));
const NOW = new Date(TEST_NOW);

describe('conformance corpus', () => {
  it('covers pyHanko files and every kind of attack', () => {
    expect(expected.filter((e) => e.file.startsWith('pyhanko/')).length).toBeGreaterThanOrEqual(15);
    expect(expected.filter((e) => e.file.startsWith('attacks/') && e.modifications === 'disallowed').length).toBeGreaterThanOrEqual(6);
  });

  it.each(expected.map((e) => [e.file, e] as const))('%s', async (_file, e) => {
    const pdf = readFileSync(join(CORPUS, e.file));
    const attack = e.file.startsWith('attacks/');
    const report = await verifyPdf(pdf, attack ? { trustRoots: [rootPem], now: NOW } : { trustRoots: [] });
    expect(report.readable).toBe(true);
    const signature = report.signatures[e.signature];
    expect(signature, e.why).toBeDefined();
    expect(signature!.digestOk && signature!.signatureOk, e.why).toBe(e.intact);
    const disallowed = signature!.modifications.disallowed.join('\n');
    expect(signature!.modifications.ok ? 'allowed' : 'disallowed', `${e.why}\n${disallowed}`).toBe(e.modifications);
    if (e.mentions !== undefined) expect(disallowed).toContain(e.mentions);
    if (e.valid !== undefined) expect(report.valid, e.why).toBe(e.valid);
    // The attack files are well-formed for readers: they show the attacker's content rather than an error.
    if (attack) expect((await qpdfCheck(pdf)).ok).toBe(true);
  });
});
