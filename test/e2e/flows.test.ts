/**
 * The three typical flows over real HTTP on a random port, from create to download: seal-only (sealed
 * PDF checked by pdfsig, openssl cms, qpdf and verifyPdf; receipt by verifyReceipt), multi-document with signers
 * (prepared PDFs carry the placed fields; status stays 10 until a signer signs), generated fields (metadata
 * first: 202, then the PDF: 201).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pemToDer } from '../../src/pades/keys/software.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { listSignatureFields } from '../../src/pades/signature-field.js';
import { PDFName } from '../../src/pdf/pdf-lib.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

let service: TestService;
let sealCaPem: string;

beforeAll(async () => {
  service = await startTestService();
  const ca = await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false });
  expect(ca.status).toBe(200);
  sealCaPem = ca.text;
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

async function fieldNames(pdf: Uint8Array): Promise<string[]> {
  const doc = await loadPdf(pdf);
  return doc.getForm().getFields().map((f) => f.getName()).sort();
}

describe('seal-only flow', () => {
  it('create → upload → start gives status 30, a sealed PDF every tool accepts and a verifiable receipt', async () => {
    const created = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true, Reference: 'seal-only-1' } });
    expect(created.status).toBe(200);
    expect(created.json.Status).toBe(5);
    expect(created.json.Seal).toBe(true);
    const id = created.json.Id as string;

    const pdf = await makePdf([['Contract for sealing'], ['Page two']]);
    const upload = await call(service.url, 'PUT', `/api/transaction/${id}/file/contract.pdf`, {
      body: pdf,
      headers: { 'content-type': 'application/pdf', digest: await digestHeader(pdf) },
    });
    expect(upload.status).toBe(201);

    const start = await call(service.url, 'PUT', `/api/transaction/${id}/start`);
    expect(start.status).toBe(204);

    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.status).toBe(200);
    expect(got.json.Status).toBe(30);
    expect(got.json.Files['contract.pdf'].Links[0]).toEqual({
      Rel: 'file',
      Type: 'application/pdf',
      Link: `${service.url}/api/transaction/${id}/file/contract.pdf`,
    });

    const sealed = await call(service.url, 'GET', `/api/transaction/${id}/file/contract.pdf`);
    expect(sealed.status).toBe(200);
    expect(sealed.headers.get('content-type')).toBe('application/pdf');
    // The original is an exact prefix: the seal is an incremental update.
    expect(Buffer.from(sealed.bytes.subarray(0, pdf.length)).equals(Buffer.from(pdf))).toBe(true);
    const tools = await checkSignedPdf(sealed.bytes, sealCaPem);
    expect(tools.pdfsig.map((s) => s.valid), tools.details).toEqual([true]);
    expect(tools.pdfsig[0]?.totalDocumentSigned).toBe(true);
    expect(tools.openssl, tools.details).toEqual([true]);
    expect(tools.qpdf, tools.details).toBe(true);
    const report = await verifyPdf(sealed.bytes, { trustRoots: [sealCaPem], now: service.clock.now() });
    expect(report.valid, report.problems.join('\n')).toBe(true);
    expect(report.signatures[0]?.signer?.subject).toContain('Paraph Test Org');

    const receipt = await call(service.url, 'GET', `/api/file/receipt/${id}`);
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');
    const verdict = await verifyReceipt(receipt.bytes, { trustRoots: [pemToDer(sealCaPem)], now: service.clock.now() });
    expect(verdict.ok, verdict.problems.join('\n')).toBe(true);
    const types = verdict.attachment?.entries.map((e) => e.type);
    expect(types).toEqual(['transaction.created', 'file.uploaded', 'transaction.started', 'transaction.sealed', 'document.finalized', 'transaction.completed']);
    const uploaded = verdict.attachment?.entries[1];
    expect(uploaded?.type === 'file.uploaded' ? uploaded.data.sha256 : undefined).toBe((await import('node:crypto')).createHash('sha256').update(pdf).digest('hex'));
    const receiptTools = await checkSignedPdf(receipt.bytes, sealCaPem);
    expect(receiptTools.pdfsig.map((s) => s.valid), receiptTools.details).toEqual([true]);
  }, 120_000);
});

describe('multi-document flow', () => {
  it('metadata then PDF for one document, a PDF without metadata for the other; start prepares both and waits for the signers', async () => {
    const created = await call(service.url, 'POST', '/api/transaction/', {
      json: {
        Seal: true,
        PostbackUrl: 'http://127.0.0.1:9/postback',
        Signers: [{ Email: 'alice@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign' }, { SendSignRequest: false, Email: 'bob@example.com' }],
        Receivers: [{ Email: 'carol@example.com', Name: 'Carol', Message: 'Signed documents' }],
      },
    });
    expect(created.status).toBe(200);
    const id = created.json.Id as string;
    expect(created.json.Signers.map((s: { Id: string }) => s.Id)).toEqual(['Signer1', 'Signer2']);
    for (const signer of created.json.Signers as { SignUrl: string }[]) expect(signer.SignUrl).toMatch(new RegExp(`^${service.url}/sign/[A-Za-z0-9_-]{22,}$`));

    const metadata = {
      DisplayName: 'Main contract',
      Signers: { Signer1: { FormSets: ['main'] }, Signer2: { FormSets: ['second'] } },
      FormSets: {
        main: { sig: { Type: 'Signature', Location: { Search: '{{Signer1}}' } } },
        second: { sig: { Type: 'Signature', Location: { Search: '{{Signer2}}' } }, agree: { Type: 'Check', Value: 'Yes', Location: { PageNumber: 1, Left: 72, Top: 400 } } },
      },
    };
    const meta = await call(service.url, 'PUT', `/api/transaction/${id}/file/main`, { json: metadata });
    expect(meta.status).toBe(202);
    const main = await makePdf([['Main contract', '{{Signer1}}', '{{Signer2}}']]);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/main`, { body: main, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    const annex = await makePdf([['Annex without metadata']]);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/annex`, { body: annex, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);

    const before = await call(service.url, 'GET', `/api/transaction/${id}/file/main`);
    expect(Buffer.from(before.bytes).equals(Buffer.from(main))).toBe(true);

    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start/`)).status).toBe(204);
    const got = await call(service.url, 'GET', `/api/transaction/${id}/`);
    expect(got.json.Status).toBe(10);
    expect(Object.keys(got.json.Files)).toEqual(['main', 'annex']);
    expect(got.json.Files.main.DisplayName).toBe('Main contract');
    expect(got.json.Files.annex.DisplayName).toBe('annex');
    expect(got.json.Receivers[0].Id).toEqual(expect.any(String));

    const prepared = await call(service.url, 'GET', `/api/transaction/${id}/file/main/`);
    expect(prepared.status).toBe(200);
    expect(Buffer.from(prepared.bytes.subarray(0, main.length)).equals(Buffer.from(main))).toBe(true);
    expect(await fieldNames(prepared.bytes)).toEqual(['main.sig', 'second.agree', 'second.sig']);
    const annexPrepared = await call(service.url, 'GET', `/api/transaction/${id}/file/annex`);
    const annexFields = listSignatureFields(await loadPdf(annexPrepared.bytes)).map((f) => f.name).sort();
    expect(annexFields).toEqual(['Signer1.Signature', 'Signer2.Signature']);

    // The outbox delivers them: a sign request for the first signer (SignRequestMode 2) and a postback for status 10.
    const queued = await service.server.store.claimDue(new Date('2100-01-01T00:00:00Z'), 100, 60_000);
    const mine = queued.filter((row) => row.transactionId === id).map((row) => [row.kind, row.payload]);
    expect(mine).toEqual([
      ['mail', { transactionId: id, kind: 'invitation', signerId: 'Signer1', to: 'alice@example.com' }],
      ['postback', { transactionId: id, status: 10, url: 'http://127.0.0.1:9/postback' }],
    ]);

    // No receipt before the end.
    const receipt = await call(service.url, 'GET', `/api/file/receipt/${id}`);
    expect(receipt.status).toBe(404);
    expect(receipt.json).toEqual({ Message: 'receipt not found.' });
  }, 120_000);
});

describe('generated fields flow', () => {
  it('JSON metadata first (202), the PDF under the same fileId (201), start (204): the fields are in the prepared PDF', async () => {
    const created = await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'dana@example.com' }] } });
    const id = created.json.Id as string;
    const metadata = {
      Signers: { Signer1: { FormSets: ['fs'] } },
      FormSets: {
        fs: {
          Name: { Type: 'SingleLine', Value: 'Dana', Location: { Search: 'Name:', Left: 60, Width: 150 } },
          Sign: { Type: 'Signature', Location: { Search: 'Signature:', Top: 20 } },
        },
      },
    };
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/form.pdf`, { json: metadata })).status).toBe(202);
    const pdf = await makePdf([['Name:', 'Signature:']]);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/form.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const prepared = await call(service.url, 'GET', `/api/transaction/${id}/file/form.pdf`);
    expect(await fieldNames(prepared.bytes)).toEqual(['fs.Name', 'fs.Sign']);
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.json.Status).toBe(10);
  }, 120_000);
});

describe('a long document', () => {
  it('resolves Search locations of a 12-page PDF (text extracted in worker threads) at upload and at start', async () => {
    const created = await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'erin@example.com' }, { SendSignRequest: false, Email: 'frank@example.com' }] } });
    const id = created.json.Id as string;
    const pages = Array.from({ length: 12 }, (_, i) => [`Page ${i + 1}`, ...(i === 10 ? ['Sign: {{Erin}}'] : []), ...(i === 11 ? ['{{Signer2}}'] : [])]);
    const pdf = await makePdf(pages);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/long.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } })).status).toBe(201);
    const metadata = { Signers: { Signer1: { FormSets: ['erin'] } }, FormSets: { erin: { sig: { Type: 'Signature', Location: { Search: '{{Erin}}' } } } } };
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/long.pdf`, { json: metadata })).status).toBe(204);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const prepared = await call(service.url, 'GET', `/api/transaction/${id}/file/long.pdf`);
    const doc = await loadPdf(prepared.bytes);
    const fields = listSignatureFields(doc);
    const pageOf = (name: string): number => {
      const widget = fields.find((f) => f.name === name)?.widgets[0];
      const pageRef = widget?.dict.get(PDFName.of('P'));
      return doc.getPages().findIndex((p) => p.ref === pageRef) + 1;
    };
    expect(fields.map((f) => f.name).sort()).toEqual(['Signer2.Signature', 'erin.sig']);
    expect(pageOf('erin.sig')).toBe(11);
    expect(pageOf('Signer2.Signature')).toBe(12);
  }, 120_000);
});

