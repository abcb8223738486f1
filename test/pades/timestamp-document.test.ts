import { execFileSync } from 'node:child_process';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDocumentTimestamp } from '../../src/pades/doc-timestamp.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { extractSignatures, pdfsigCheck, qpdfCheck, signedBytes } from '../helpers/external-tools.js';
import { startFakeTsa } from '../../src/testing/start-fake-tsa.js';
import { scratchFiles } from '../helpers/scratch-files.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const TSA_TIME = new Date(TEST_NOW);
const { file } = scratchFiles('docts');

const fx = usePadesFixture({ tsaAt: TSA_TIME });
let original: Uint8Array;
beforeAll(async () => {
  const doc = await PDFDocument.create();
  doc.addPage();
  original = await doc.save();
});

describe('addDocumentTimestamp', () => {
  it('time-stamps an unsigned document: /DocTimeStamp with ETSI.RFC3161, token over the byte ranges (openssl ts), qpdf clean', async () => {
    const result = await addDocumentTimestamp(original, { timestamper: fx.tsa.timestamper(), hash: 'SHA-384' });
    expect(result.fieldName).toBe('DocTimeStamp1');
    expect(result.time.toISOString()).toBe(TSA_TIME.toISOString());
    expect(Buffer.from(result.bytes.subarray(0, original.length)).equals(Buffer.from(original))).toBe(true);
    const [stamp] = await extractSignatures(result.bytes);
    expect(stamp?.subFilter).toBe('ETSI.RFC3161');
    const out = execFileSync('openssl', ['ts', '-verify', '-data', file(signedBytes(result.bytes, stamp!.byteRange)), '-in', file(stamp!.cms), '-token_in',
      '-CAfile', fx.pki.rootPath, '-untrusted', file(fx.pki.tsa.certPem + fx.pki.intermediate.certPem)], { stdio: 'pipe' }).toString();
    expect(out).toMatch(/Verification: OK/);
    expect(fx.tsa.requests.at(-1)?.hashOid).toBe('2.16.840.1.101.3.4.2.2');
    expect((await qpdfCheck(result.bytes)).ok).toBe(true);
    const sig = await pdfsigCheck(result.bytes);
    expect(sig.signatures).toHaveLength(1);
    const report = await verifyPdf(result.bytes, { trustRoots: [fx.pki.rootDer] });
    expect(report.signatures.map((s) => [s.kind, s.valid, s.fieldName])).toEqual([['document-timestamp', true, 'DocTimeStamp1']]);
  });

  it('a flipped byte in the time-stamped range makes openssl reject the token', async () => {
    const result = await addDocumentTimestamp(original, { timestamper: fx.tsa.timestamper() });
    const [stamp] = await extractSignatures(result.bytes);
    const covered = signedBytes(result.bytes, stamp!.byteRange);
    covered[10] = (covered[10] ?? 0) ^ 1;
    expect(() => execFileSync('openssl', ['ts', '-verify', '-data', file(covered), '-in', file(stamp!.cms), '-token_in', '-CAfile', fx.pki.rootPath,
      '-untrusted', file(fx.pki.tsa.certPem + fx.pki.intermediate.certPem)], { stdio: 'pipe' })).toThrow();
  });

  it('propagates a TSA refusal and a too small placeholder as errors (nothing returned)', async () => {
    const refusing = await startFakeTsa({ pki: fx.pki, now: TSA_TIME, behaviour: 'reject' });
    try {
      await expect(addDocumentTimestamp(original, { timestamper: refusing.timestamper() })).rejects.toMatchObject({ code: 'TSA_REJECTED' });
    } finally {
      await refusing.close();
    }
    await expect(addDocumentTimestamp(original, { timestamper: fx.tsa.timestamper(), contentsSize: 512 })).rejects.toMatchObject({ code: 'PLACEHOLDER_TOO_SMALL' });
  });
});
