/**
 * `paraph extend`: a B-T signed PDF becomes B-LT, then B-LTA, then gets its archive time-stamp renewed; revocation
 * requests are routed to the fake OCSP/CRL server on 127.0.0.1 through the command's injected fetcher.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CliIo } from '../../src/cli/common.js';
import { createExtendCommand } from '../../src/cli/extend.js';
import { createSignCommand } from '../../src/cli/sign.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import type { RevocationFetcher } from '../../src/pades/types.js';
import { extractSignatures, opensslCmsVerify, pdfsigCheck, qpdfCheck, signedBytes } from '../helpers/external-tools.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
let dir: string;
const fx = usePadesFixture({ tsaAt: NOW, ocspAt: NOW });
let signedPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paraph-extend-cli-'));
  const doc = await PDFDocument.create();
  doc.addPage();
  const signed = await signPdf(await doc.save(), { signer: fx.pki.signers.rsa.signer, signingTime: NOW, timestamper: fx.tsa.timestamper() });
  signedPath = join(dir, 'signed.pdf');
  await writeFile(signedPath, signed.bytes);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(args: string[], fetcher: RevocationFetcher = fx.ocsp.fetcher): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t) };
  const code = await runCommand(createExtendCommand({ revocationFetcher: fetcher }), args, io);
  return { code, out, err };
}

async function docTimestampsVerify(pdf: Uint8Array): Promise<number> {
  const stamps = (await extractSignatures(pdf)).filter((s) => s.subFilter === 'ETSI.RFC3161');
  for (const [i, stamp] of stamps.entries()) {
    const data = join(dir, `ts${i}.bin`);
    const token = join(dir, `ts${i}.der`);
    const untrusted = join(dir, 'untrusted.pem');
    await writeFile(data, signedBytes(pdf, stamp.byteRange));
    await writeFile(token, stamp.cms);
    await writeFile(untrusted, fx.pki.tsa.certPem + fx.pki.intermediate.certPem);
    const out = execFileSync('openssl', ['ts', '-verify', '-data', data, '-in', token, '-token_in', '-CAfile', fx.pki.rootPath, '-untrusted', untrusted], { stdio: 'pipe' }).toString();
    expect(out).toMatch(/Verification: OK/);
  }
  return stamps.length;
}

describe('paraph extend', () => {
  it('B-T → B-LT → B-LTA → renewed B-LTA, each output checked by pdfsig, openssl and qpdf', async () => {
    const lt = join(dir, 'lt.pdf');
    const a = await run([signedPath, '-o', lt, '--trust', fx.pki.rootPath, '--time', NOW.toISOString()]);
    expect(a, a.err).toMatchObject({ code: 0 });
    expect(a.out).toMatch(/1 signature\(s\).*PAdES B-LT\)/);
    const lta = join(dir, 'lta.pdf');
    const b = await run([lt, '-o', lta, '--lta', '--tsa', fx.tsa.url, '--trust', fx.pki.rootPath, '--time', NOW.toISOString()]);
    expect(b, b.err).toMatchObject({ code: 0 });
    const renewed = join(dir, 'renewed.pdf');
    const c = await run([lta, '-o', renewed, '--lta', '--tsa', fx.tsa.url, '--hash', 'SHA-512', '--trust', fx.pki.rootPath, '--time', NOW.toISOString()]);
    expect(c, c.err).toMatchObject({ code: 0 });
    expect(c.out).toMatch(/2 signature\(s\).*PAdES B-LTA\)/);

    const bytes = new Uint8Array(await readFile(renewed));
    const previous = new Uint8Array(await readFile(lta));
    expect(Buffer.from(bytes.subarray(0, previous.length)).equals(Buffer.from(previous))).toBe(true);
    expect((await qpdfCheck(bytes)).ok).toBe(true);
    expect((await pdfsigCheck(bytes)).signatures.filter((s) => s.type === 'ETSI.CAdES.detached').map((s) => s.validation)).toEqual(['Signature is Valid.']);
    expect((await opensslCmsVerify(bytes, 0, fx.pki.rootPem)).ok).toBe(true);
    expect(await docTimestampsVerify(bytes)).toBe(2);
    const report = await verifyPdf(bytes, { trustRoots: [fx.pki.rootDer], now: NOW });
    expect(report.valid).toBe(true);
    expect(report.signatures.map((s) => [s.kind, s.level])).toEqual([['signature', 'B-LTA'], ['document-timestamp', undefined], ['document-timestamp', undefined]]);
  });

  it('reports B-B, not B-LT, for a signature without a signature time-stamp, as verifyPdf does', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const untimestamped = join(dir, 'b-b.pdf');
    await writeFile(untimestamped, (await signPdf(await doc.save(), { signer: fx.pki.signers.p256.signer, signingTime: NOW })).bytes);
    const out = join(dir, 'b-b-dss.pdf');
    const result = await run([untimestamped, '-o', out, '--trust', fx.pki.rootPath, '--time', NOW.toISOString()]);
    expect(result, result.err).toMatchObject({ code: 0 });
    expect(result.out).toMatch(/PAdES B-B; B-LT needs a signature time-stamp/);
    const report = await verifyPdf(new Uint8Array(await readFile(out)), { trustRoots: [fx.pki.rootDer], now: NOW });
    expect(report.signatures.map((s) => s.level)).toEqual(['B-B']);
    expect((await qpdfCheck(new Uint8Array(await readFile(out)))).ok).toBe(true);
  });

  it('paraph sign --lt without --tsa says B-B, since B-LT needs a signature time-stamp', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const input = join(dir, 'unsigned.pdf');
    await writeFile(input, await doc.save());
    const out = join(dir, 'signed-lt-no-tsa.pdf');
    let stdout = '';
    const io: CliIo = { stdout: (t) => (stdout += t), stderr: () => undefined };
    const args = [input, '-o', out, '--p12', join(fx.pki.dir, 'signer-p256.p12'), '--pass', P12_PASSWORD, '--lt', '--trust', fx.pki.rootPath, '--time', NOW.toISOString()];
    expect(await runCommand(createSignCommand({ revocationFetcher: fx.ocsp.fetcher }), args, io)).toBe(0);
    expect(stdout).toMatch(/PAdES B-B; validation data added, but B-LT needs a signature time-stamp/);
    const report = await verifyPdf(new Uint8Array(await readFile(out)), { trustRoots: [fx.pki.rootDer], now: NOW });
    expect(report.signatures.map((s) => [s.valid, s.level])).toEqual([[true, 'B-B']]);
  });

  it('exits 2 for usage mistakes and for missing revocation data, leaving no output file', async () => {
    const out = join(dir, 'never.pdf');
    expect((await run([signedPath])).code).toBe(2);
    expect((await run([signedPath, '-o', out, '--lta'])).err).toMatch(/--lta needs --tsa/);
    expect((await run([signedPath, '-o', out, '--tsa', fx.tsa.url])).err).toMatch(/--tsa is only used with --lta/);
    const offline: RevocationFetcher = { ocsp: () => Promise.reject(new Error('offline')), crl: () => Promise.reject(new Error('offline')) };
    const failed = await run([signedPath, '-o', out, '--trust', fx.pki.rootPath, '--time', NOW.toISOString()], offline);
    expect(failed.code).not.toBe(0);
    expect(failed.err).toMatch(/No revocation data for .*Alice Example/);
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
    const partial = await run([signedPath, '-o', out, '--trust', fx.pki.rootPath, '--allow-incomplete', '--time', NOW.toISOString()], offline);
    expect(partial.code).toBe(0);
    expect(partial.err).toMatch(/warning: no revocation data for .*Alice Example/);
    // The level it reports is the one verify finds in the file: B-T, since no revocation data was fetched.
    const report = await verifyPdf(new Uint8Array(await readFile(out)), { trustRoots: [fx.pki.rootDer], now: NOW });
    expect(report.signatures.map((s) => s.level)).toEqual(['B-T']);
    expect(partial.out).toMatch(/PAdES B-T; B-LT needs revocation data for every certificate of the chains, which the \/DSS lacks/);
    expect(partial.out).not.toMatch(/B-LT\)|B-LTA/);
  });
});
