/**
 * Environment-level seal options (docs/design/signatures.md#timestamps): with `PARAPH_TSA_URL` the seal carries an RFC
 * 3161 signature time-stamp (B-T), and with `PARAPH_QSEAL_P12` every seal — documents and receipt — is made with the
 * configured qualified seal instead of the service's own seal CA. TSA and PKI are the test fixtures, on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { P12_PASSWORD } from '../../src/testing/test-pki.js';
import { TestClock, call, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

const clock = new TestClock('2026-11-21T10:00:00.000Z');
const fx = usePadesFixture({ tsaAt: clock.now });

async function sealOnly(service: TestService): Promise<{ id: string; pdf: Uint8Array; receipt: Uint8Array }> {
  const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true } });
  const id = created.json.Id as string;
  const pdf = await makePdf([['Options']]);
  expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/doc.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
  const start = await call(service.url, 'PUT', `/api/transaction/${id}/start`);
  expect(start.status, start.text).toBe(204);
  const sealed = await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`);
  const receipt = await call(service.url, 'GET', `/api/file/receipt/${id}`);
  expect(receipt.status).toBe(200);
  return { id, pdf: sealed.bytes, receipt: receipt.bytes };
}

describe('seal options from the environment', () => {
  it('PARAPH_TSA_URL: the seal carries a signature time-stamp (B-T) verified by verifyPdf', async () => {
    const service = await startTestService({ clock, env: { PARAPH_TSA_URL: fx.tsa.url } });
    try {
      const sealCa = (await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
      const before = fx.tsa.requests.length;
      const { pdf } = await sealOnly(service);
      expect(fx.tsa.requests.length - before).toBe(2); // the document's seal and the receipt's
      const report = await verifyPdf(pdf, { trustRoots: [sealCa, fx.pki.rootPem] });
      expect(report.valid, report.problems.join('\n')).toBe(true);
      expect(report.signatures[0]?.level).toBe('B-T');
      expect(report.signatures[0]?.timestamp?.valid).toBe(true);
    } finally {
      await service.dispose();
    }
  }, 60_000);

  it('PARAPH_QSEAL_P12: documents and receipt are sealed with the qualified seal', async () => {
    const p12 = fx.pki.seal.p12Path;
    expect(p12).toBeDefined();
    const service = await startTestService({ clock, env: { PARAPH_QSEAL_P12: p12 as string, PARAPH_QSEAL_P12_PASSWORD: P12_PASSWORD } });
    try {
      const { pdf, receipt } = await sealOnly(service);
      const tools = await checkSignedPdf(pdf, fx.pki.rootPem);
      expect(tools.pdfsig.map((s) => s.valid), tools.details).toEqual([true]);
      expect(tools.openssl, tools.details).toEqual([true]);
      const report = await verifyPdf(pdf, { trustRoots: [fx.pki.rootPem], now: clock.now() });
      expect(report.valid, report.problems.join('\n')).toBe(true);
      expect(report.signatures[0]?.signer?.serialNumber.toLowerCase()).toBe(fx.pki.seal.serial.toString(16).padStart(2, '0').toLowerCase());
      const verdict = await verifyReceipt(receipt, { trustRoots: [fx.pki.rootDer], now: clock.now() });
      expect(verdict.ok, verdict.problems.join('\n')).toBe(true);
      const sealedEntry = verdict.attachment?.entries.find((e) => e.type === 'transaction.sealed');
      expect(sealedEntry?.type === 'transaction.sealed' ? sealedEntry.data.level : undefined).toBe('qualified');
    } finally {
      await service.dispose();
    }
  }, 60_000);
});
