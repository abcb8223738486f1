import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CliCommand, type CliIo } from '../../src/cli/common.js';
import { createSealCommand, sealCommand } from '../../src/cli/seal.js';
import { createSignCommand, signCommand } from '../../src/cli/sign.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { placeFields } from '../../src/pdf/place-fields.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { TSX_LOADER } from '../helpers/tsx.js';
import { TEST_NOW } from '../helpers/test-now.js';

const exec = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const NOW = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: NOW, ocspAt: NOW });
let dir: string;
let input: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-sign-cli-'));
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('Contract', { x: 50, y: 780, size: 14, font });
  const placed = await placeFields(await doc.save({ useObjectStreams: false }), [
    { field: 'sig1.Signer1', formSet: 'sig1', fieldKey: 'Signer1', type: 'Signature', signerIds: ['Signer1'], pageNumber: 1, left: 50, top: 600, width: 180, height: 70 },
    { field: 'org.Seal', formSet: 'org', fieldKey: 'Seal', type: 'Seal', signerIds: [], pageNumber: 1, left: 300, top: 600, width: 180, height: 70 },
  ]);
  input = join(dir, 'in.pdf');
  await writeFile(input, placed.bytes);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(command: CliCommand, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  const code = await runCommand(command, args, io);
  return { code, stdout, stderr };
}

describe('paraph sign and paraph seal', () => {
  it('signs a field with a PKCS#12 key, then seals the Seal field: both signatures valid', async () => {
    const signed = join(dir, 'signed.pdf');
    const sealed = join(dir, 'sealed.pdf');
    const a = await run(signCommand, [input, '-o', signed, '--p12', join(fx.pki.dir, 'signer-p256.p12'), '--pass', P12_PASSWORD, '--field', 'sig1.Signer1', '--time', TEST_NOW, '--reason', 'Agreed']);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('field sig1.Signer1');
    const b = await run(sealCommand, [signed, '-o', sealed, '--p12', join(fx.pki.dir, 'seal.p12'), '--pass', P12_PASSWORD, '--time', '2026-11-21T10:05:00Z']);
    expect(b.stderr).toBe('');
    expect(b.code).toBe(0);
    expect(b.stdout).toContain('field org.Seal');
    const bytes = new Uint8Array(await readFile(sealed));
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    expect(report.pdfsig.map((s) => s.validation), report.details).toEqual(['Signature is Valid.', 'Signature is Valid.']);
    expect(report.openssl).toEqual([true, true]);
    expect(report.qpdf).toBe(true);
    // No temporary files are left next to the outputs.
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('time-stamps with --tsa against a TSA on 127.0.0.1', async () => {
    const before = fx.tsa.requests.length;
    const out = join(dir, 'bt.pdf');
    const r = await run(signCommand, [input, '-o', out, '--p12', join(fx.pki.dir, 'signer-rsa.p12'), '--pass', P12_PASSWORD, '--tsa', fx.tsa.url, '--hash', 'sha384']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(fx.tsa.requests).toHaveLength(before + 1);
    const report = await checkSignedPdf(new Uint8Array(await readFile(out)), fx.pki.rootPem);
    expect(report.pdfsig.map((s) => [s.validation, s.hashAlgorithm]), report.details).toEqual([['Signature is Valid.', 'SHA-384']]);
  });

  it('--lt and --lta extend the signature and the seal to PAdES B-LT and B-LTA (TSA, OCSP and CRL on 127.0.0.1)', async () => {
    const sign = createSignCommand({ revocationFetcher: fx.ocsp.fetcher });
    const seal = createSealCommand({ revocationFetcher: fx.ocsp.fetcher });
    const lt = join(dir, 'lt.pdf');
    const lta = join(dir, 'lta.pdf');
    const time = ['--time', NOW.toISOString()];
    const a = await run(sign, [input, '-o', lt, '--p12', join(fx.pki.dir, 'signer-p256.p12'), '--pass', P12_PASSWORD, '--field', 'sig1.Signer1', '--tsa', fx.tsa.url, '--lt', '--trust', fx.pki.rootPath, ...time]);
    expect(a.stderr).toBe('');
    expect(a.stdout).toContain('PAdES B-LT');
    const b = await run(seal, [lt, '-o', lta, '--p12', join(fx.pki.dir, 'seal.p12'), '--pass', P12_PASSWORD, '--tsa', fx.tsa.url, '--lta', '--trust', fx.pki.rootPath, ...time]);
    expect(b.stderr).toBe('');
    expect(b.stdout).toContain('PAdES B-LTA');
    const bytes = new Uint8Array(await readFile(lta));
    const report = await checkSignedPdf(bytes, fx.pki.rootPem);
    // Signer, seal and the document time-stamp (which Debian 12's pdfsig cannot check: openssl ts does).
    expect(report.pdfsig.map((s) => s.validation).slice(0, 2), report.details).toEqual(Array(2).fill('Signature is Valid.'));
    expect(report.pdfsig.map((s) => s.fieldName)).toEqual(['sig1.Signer1', 'org.Seal', 'DocTimeStamp1']);
    expect(report.openssl).toEqual([true, true, true]);
    expect(report.qpdf).toBe(true);
    const verified = await verifyPdf(bytes, { trustRoots: [fx.pki.rootDer], now: NOW });
    expect(verified.signatures.map((s) => s.level)).toEqual(['B-LTA', 'B-LTA', undefined]);
    expect(verified.valid).toBe(true);
  });

  it('exits 2 with a clear message for usage mistakes and bad input, writing nothing', async () => {
    const out = join(dir, 'never.pdf');
    const p12 = join(fx.pki.dir, 'signer-p256.p12');
    const cases: Array<[string[], RegExp]> = [
      [[input, '--p12', p12], /-o <out\.pdf> is required/],
      [[input, '-o', out], /a key is required: --p12 <file> or --pkcs11 <module>/],
      [[input, '-o', out, '--p12', p12, '--pass', P12_PASSWORD, '--lta'], /--lta needs --tsa/],
      [[input, '-o', out, '--p12', p12, '--pass', 'wrong'], /password is wrong/i],
      [[input, '-o', out, '--p12', p12], /is protected by a password: give --pass <password> \(or set \$PARAPH_P12_PASSWORD\)/],
      [[input, '-o', out, '--p12', p12, '--pass', P12_PASSWORD, '--field', 'sig1.Nobody'], /no signature field "sig1\.Nobody".*"sig1\.Signer1"/],
      [[input, '-o', out, '--p12', p12, '--pass', P12_PASSWORD, '--hash', 'MD5'], /--hash MD5 is not supported/],
      [[join(dir, 'missing.pdf'), '-o', out, '--p12', p12, '--pass', P12_PASSWORD], /cannot read input PDF/],
      [[input, '-o', out, '--p12', p12, '--pass', P12_PASSWORD, '--contents-size', '100'], /placeholder holds 100/],
    ];
    for (const [args, message] of cases) {
      const r = await run(signCommand, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    await expect(readFile(out)).rejects.toThrow();
  });

  it('is wired into the paraph binary', async () => {
    const { stdout } = await exec(process.execPath, ['--import', TSX_LOADER, CLI, 'sign', '--help']);
    expect(stdout).toContain('usage: paraph sign');
  }, 30_000);
});
