/**
 * `paraph seal` with the seal key on a PKCS#11 token: a SoftHSM token initialized by the test itself (temporary
 * SOFTHSM2_CONF; vitest runs this file in its own process).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CliIo } from '../../src/cli/common.js';
import { sealCommand } from '../../src/cli/seal.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { testPki, type TestPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const TOKEN = 'paraph-seal';
const PIN = '4321';
let dir: string;
let pki: TestPki;
let input: string;

beforeAll(async () => {
  pki = await testPki();
  dir = mkdtempSync(join(tmpdir(), 'paraph-seal-hsm-'));
  execFileSync('mkdir', ['-p', join(dir, 'tokens')]);
  writeFileSync(join(dir, 'softhsm2.conf'), `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf');
  delete process.env.PARAPH_PKCS11_PIN;
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN, '--pin', PIN, '--so-pin', '8765'], { stdio: 'pipe' });
  execFileSync('softhsm2-util', ['--import', pki.seal.keyPath, '--token', TOKEN, '--label', 'seal', '--id', '0a', '--pin', PIN], { stdio: 'pipe' });
  writeFileSync(join(dir, 'chain.pem'), pki.seal.certPem + pki.intermediate.certPem);
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([595, 842]).drawText('Sealed on a token', { x: 50, y: 780, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  input = join(dir, 'in.pdf');
  writeFileSync(input, await doc.save({ useObjectStreams: false }));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  return { code: await runCommand(sealCommand, args, io), stdout, stderr };
}

describe('paraph seal --pkcs11', () => {
  it('seals with a key on a SoftHSM token, naming the organization from the certificate', async () => {
    const out = join(dir, 'sealed.pdf');
    const r = await run([input, '-o', out, '--pkcs11', MODULE, '--token', TOKEN, '--pin', PIN, '--key-id', '0a', '--cert', join(dir, 'chain.pem'), '--time', TEST_NOW]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('field Seal1');
    const report = await checkSignedPdf(new Uint8Array(readFileSync(out)), pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.']);
    expect(report.pdfsig[0]?.signerCommonName).toContain('seal');
    expect(report.openssl).toEqual([true]);
    expect(report.qpdf).toBe(true);
  });

  it('exits 2 naming the problem for a wrong PIN, a missing PIN and two keys at once', async () => {
    const out = join(dir, 'never.pdf');
    const wrong = await run([input, '-o', out, '--pkcs11', MODULE, '--token', TOKEN, '--pin', '0000', '--key-id', '0a', '--cert', join(dir, 'chain.pem')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/PIN/i);
    const missing = await run([input, '-o', out, '--pkcs11', MODULE, '--token', TOKEN, '--key-id', '0a']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--pin');
    const both = await run([input, '-o', out, '--pkcs11', MODULE, '--p12', join(pki.dir, 'seal.p12'), '--pin', PIN]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('either --p12 or --pkcs11');
    expect(() => readFileSync(out)).toThrow();
  });
});
