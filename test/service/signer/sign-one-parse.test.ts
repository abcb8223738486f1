/**
 * A signer's sign request writes their form values and each of their signature fields as successive
 * incremental updates from one parse of the document. A signer with three Signature fields and a SingleLine field
 * gets three signatures, each its own revision covering everything before it, that pdfsig, openssl, qpdf and
 * paraph's own verifier accept; the request parses the document once, in one sign job of a PDF process, and the
 * serving process parses no PDF.
 */
import { PDFDocument } from '../../../src/pdf/pdf-lib.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPdf } from '../../../src/pades/verify.js';
import { observePdfJobs, type PdfJobReport } from '../../../src/service/pdf-jobs/pdf-work.js';
import { call, makePdf } from '../../helpers/service-harness.js';
import { checkSignedPdf } from '../../helpers/external-tools.js';
import { SCRIBBLE_DATA_URL, startSignerService, type SignerService } from './signer-fixture.js';

let s: SignerService;
let base: string;
beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
});
afterAll(async () => {
  await s.service.dispose();
});

const signerCall = (token: string, method: string, path: string, json?: unknown) =>
  call(base, method, `/api/signer/${token}${path}`, { auth: false, ...(json !== undefined ? { json } : {}) });

/** A started transaction whose first signer has `city` and three Signature fields on pages 1–3; a second signer waits. */
async function threeFieldTransaction(): Promise<{ id: string; token: string }> {
  const created = await call(base, 'POST', '/api/transaction', {
    json: { Seal: true, Signers: [{ SendSignRequest: false, Id: 'alice', Email: 'alice@example.com' }, { SendSignRequest: false, Id: 'bob', Email: 'bob@example.com' }] },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const box = (page: number, top: number) => ({ PageNumber: page, Left: 300, Top: top, Width: 200, Height: 80 });
  const metadata = {
    Signers: { alice: { FormSets: ['a'] }, bob: { FormSets: ['b'] } },
    FormSets: {
      a: {
        city: { Type: 'SingleLine', Location: { PageNumber: 1, Left: 72, Top: 120, Width: 150, Height: 20 } },
        initial1: { Type: 'Signature', Location: box(1, 200) },
        initial2: { Type: 'Signature', Location: box(2, 300) },
        final: { Type: 'Signature', Location: box(3, 400) },
      },
      b: { sig: { Type: 'Signature', Location: box(3, 600) } },
    },
  };
  const put = async (options: Parameters<typeof call>[3]) => {
    const answer = await call(base, 'PUT', `/api/transaction/${id}/file/contract`, options);
    expect(answer.status, answer.text).toBeLessThan(300);
  };
  await put({ json: metadata });
  await put({ body: await makePdf([['Article 1'], ['Article 2'], ['Signatures']]), headers: { 'content-type': 'application/pdf' } });
  expect((await call(base, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  const signers = (await call(base, 'GET', `/api/transaction/${id}`)).json.Signers as { SignUrl: string }[];
  const token = signers[0]!.SignUrl.split('/sign/')[1] as string;
  expect((await signerCall(token, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Alice Janssen' })).status).toBe(200);
  return { id, token };
}

describe('a sign request with several fields of the signer', () => {
  it('gives a signer with three signature fields and a text field three valid signatures, each its own revision', async () => {
    const { id, token } = await threeFieldTransaction();
    const signed = await signerCall(token, 'POST', '/sign', { Fields: { contract: { city: 'Utrecht' } } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json.TransactionStatus).toBe(10);

    const pdf = (await call(base, 'GET', `/api/transaction/${id}/file/contract`)).bytes;
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text;
    const report = await checkSignedPdf(pdf, ca);
    expect(report.pdfsig.map((x) => [x.fieldName, x.valid]), report.details).toEqual([
      ['a.initial1', true],
      ['a.initial2', true],
      ['a.final', true],
    ]);
    expect(report.pdfsig.map((x) => x.totalDocumentSigned)).toEqual([false, false, true]);
    expect(report.openssl).toEqual([true, true, true]);
    expect(report.qpdf, report.details).toBe(true);

    const verdict = await verifyPdf(pdf, { trustRoots: [ca], now: s.service.clock.now() });
    expect(verdict.valid, JSON.stringify(verdict.problems)).toBe(true);
    expect(verdict.signatures.map((x) => x.valid)).toEqual([true, true, true]);
    // The form values, then one revision per signature: each signature covers a longer prefix of the file.
    const covered = verdict.signatures.map((x) => x.coveredBytes);
    expect(covered).toEqual([...covered].sort((a, b) => a - b));
    expect(new Set(covered).size).toBe(3);
    expect(verdict.signatures.flatMap((x) => x.modifications.disallowed)).toEqual([]);
    expect((await PDFDocument.load(pdf)).getForm().getTextField('a.city').getText()).toBe('Utrecht');
  });

  it('parses the document once, in one sign job, and no PDF in the serving process', async () => {
    const { token } = await threeFieldTransaction();
    const load = vi.spyOn(PDFDocument, 'load');
    const jobs: PdfJobReport['kind'][] = [];
    const stop = observePdfJobs((report) => jobs.push(report.kind));
    try {
      const signed = await signerCall(token, 'POST', '/sign', { Fields: { contract: { city: 'Delft' } } });
      expect(signed.status, signed.text).toBe(200);
      expect(load).not.toHaveBeenCalled();
      expect(jobs).toEqual(['sign']);
    } finally {
      load.mockRestore();
      stop();
    }
  });

  it("seals the last signer's document in the same sign job (one parse, its output check included), the receipt in a receipt job", async () => {
    const { id, token } = await threeFieldTransaction();
    expect((await signerCall(token, 'POST', '/sign', { Fields: { contract: { city: 'Delft' } } })).status).toBe(200);
    const signers = (await call(base, 'GET', `/api/transaction/${id}`)).json.Signers as { SignUrl: string }[];
    const last = signers[1]!.SignUrl.split('/sign/')[1] as string;
    expect((await signerCall(last, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Bob Smit' })).status).toBe(200);
    const load = vi.spyOn(PDFDocument, 'load');
    const jobs: PdfJobReport['kind'][] = [];
    const stop = observePdfJobs((report) => jobs.push(report.kind));
    let signed;
    try {
      signed = await signerCall(last, 'POST', '/sign', {});
      expect(signed.status, signed.text).toBe(200);
      expect(load).not.toHaveBeenCalled();
      expect(jobs).toEqual(['sign', 'receipt']);
    } finally {
      load.mockRestore();
      stop();
    }
    expect(signed.json.TransactionStatus).toBe(30);
    const pdf = (await call(base, 'GET', `/api/transaction/${id}/file/contract`)).bytes;
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const report = await checkSignedPdf(pdf, ca);
    expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true, true, true, true, true]);
    expect(report.openssl).toEqual([true, true, true, true, true]);
    expect(report.qpdf, report.details).toBe(true);
    const verdict = await verifyPdf(pdf, { trustRoots: [ca], now: s.service.clock.now() });
    expect(verdict.valid, JSON.stringify(verdict.problems)).toBe(true);
    expect(verdict.signatures.flatMap((x) => x.modifications.disallowed)).toEqual([]);
  });
});
