/**
 * Every error path of the transaction API over real HTTP, each with its exact status code and a message that names the
 * problem: auth (401, also for another account's transaction), create validation (unknown properties, nulls, formats,
 * business rules), DELETE 200/400/410, PUT file 400/409/410/413 (fileId rules, Content-Type, Digest, bad PDFs,
 * unresolvable locations with nothing stored), GET file 404/410, receipt 404/410, start 400 (stays 5 or ends at 70).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSignatureFields } from '../../src/pades/signature-field.js';
import { loadPdf } from '../../src/pdf/load-pdf.js';
import { sha256Hex } from '../../src/service/context.js';
import { call, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';

const DENIED = { Message: 'Authorization has been denied for this request.' };
let service: TestService;
let pdf: Uint8Array;

beforeAll(async () => {
  // No DELETE grace period here: the 410s come at once (the grace period is test/clients/delete-grace.test.ts's).
  service = await startTestService({ env: { PARAPH_MAX_FILE_BYTES: '20000', PARAPH_DELETE_GRACE_MINUTES: '0' } });
  pdf = await makePdf([['Hello {{Signer1}}']]);
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

async function create(body: unknown = { Signers: [{ SendSignRequest: false, Email: 'a@example.com' }] }): Promise<string> {
  const r = await call(service.url, 'POST', '/api/transaction', { json: body });
  expect(r.status, r.text).toBe(200);
  return r.json.Id as string;
}

function putPdf(id: string, fileId: string, bytes: Uint8Array, headers: Record<string, string> = {}) {
  return call(service.url, 'PUT', `/api/transaction/${id}/file/${fileId}`, { body: bytes, headers: { 'content-type': 'application/pdf', ...headers } });
}

describe('authentication', () => {
  it('answers 401 without headers, with a wrong key, a wrong scheme, or for an unknown transaction', async () => {
    expect(await call(service.url, 'POST', '/api/transaction', { json: { Seal: true }, auth: false })).toMatchObject({ status: 401, json: DENIED });
    const wrong = await call(service.url, 'POST', '/api/transaction', { json: { Seal: true }, auth: false, headers: { authorization: 'APIKey nope', application: 'APPKey nope' } });
    expect(wrong).toMatchObject({ status: 401, json: DENIED });
    const scheme = await call(service.url, 'GET', '/api/transaction/x', { auth: false, headers: { authorization: 'Bearer test-user-token-0123456789', application: 'APPKey test-app-key-0123456789' } });
    expect(scheme).toMatchObject({ status: 401, json: DENIED });
    expect(await call(service.url, 'GET', '/api/transaction/does-not-exist')).toMatchObject({ status: 401, json: DENIED });
  });

  it("answers 401 for another account's transaction on every endpoint", async () => {
    const id = await create({ Seal: true });
    await service.server.store.createAccount({
      Id: 'other-account',
      Name: 'other',
      UserTokenHash: sha256Hex('other-user'),
      AppKeyHash: sha256Hex('other-app'),
      CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
    });
    const other = { authorization: 'APIKey other-user', application: 'APPKey other-app' };
    for (const [method, path] of [
      ['GET', `/api/transaction/${id}`],
      ['DELETE', `/api/transaction/${id}`],
      ['PUT', `/api/transaction/${id}/start`],
      ['GET', `/api/transaction/${id}/file/a.pdf`],
      ['GET', `/api/file/receipt/${id}`],
    ] as const) {
      expect(await call(service.url, method, path, { auth: false, headers: other }), `${method} ${path}`).toMatchObject({ status: 401, json: DENIED });
    }
    const upload = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, auth: false, headers: { ...other, 'content-type': 'application/pdf' } });
    expect(upload).toMatchObject({ status: 401, json: DENIED });
    // The owner still sees it unchanged.
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(5);
  });
});

describe('POST /api/transaction validation', () => {
  const cases: [string, unknown, string][] = [
    ['unknown property', { Seal: true, Foo: 1 }, 'Foo: unknown property; only documented properties may be sent'],
    ['null signer (a null property is absent, a null item is not)', { Seal: true, Signers: [null] }, 'Signers[0]: Null values must not be sent'],
    ['bad e-mail', { Signers: [{ SendSignRequest: false, Email: 'not-an-address' }] }, 'Signers[0].Email: not a valid e-mail address'],
    ['missing e-mail', { Signers: [{ Mobile: '+31612345678' }] }, 'Signers[0].Email: is required'],
    ['unknown signer property', { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Colour: 'red' }] }, 'Signers[0].Colour: unknown property; only documented properties may be sent'],
    ['unknown verification type', { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'Telepathy' }] }] }, 'Signers[0].Verifications[0].Type: unknown type "Telepathy"'],
    ['field of another verification type', { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'Consent', Number: '+31612345678' }] }] }, 'Signers[0].Verifications[0].Number: unknown property; only documented properties may be sent'],
    ['WorkflowId not a UUID', { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'Onfido', WorkflowId: 'abc' }, { Type: 'Scribble' }] }] }, 'Signers[0].Verifications[0].WorkflowId: not a valid UUID'],
    ['wrong type', { Seal: 'yes' }, 'Seal: must be a boolean'],
    ['DaysToExpire above 90', { Seal: true, DaysToExpire: 91 }, 'DaysToExpire: must be at most 90'],
    ['unknown language', { Seal: true, Language: 'xx-XX' }, 'Language: must be one of "nl-NL", "en-US", "de-DE", "fr-FR", "es-ES", "it-IT", "pl-PL"'],
    ['nor seal nor signers', { Seal: false }, 'Nor seal nor signers has been provided.'],
    ['duplicate signer id', { Signers: [{ SendSignRequest: false, Id: 'x', Email: 'a@example.com' }, { SendSignRequest: false, Id: 'x', Email: 'b@example.com' }] }, 'The signer id is already used by another signer.'],
    ['not an object', [1, 2], 'Transaction: must be a JSON object'],
  ];
  for (const [name, body, message] of cases) {
    it(`400 for ${name}`, async () => {
      const r = await call(service.url, 'POST', '/api/transaction', { json: body });
      expect(r.status, r.text).toBe(400);
      expect(r.json.Message).toContain(message);
    });
  }

  it('400 for a control character in a subject, for a bad BSN and for a non-Belgian itsme number (domain rules)', async () => {
    const subject = await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com', SignRequestSubject: 'Hi\u0007' }] } });
    expect(subject.status).toBe(400);
    expect(subject.json.Message).toContain('Input contains one or more invalid characters.');
    const bsn = await call(service.url, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'DigiD', Bsn: '123456789' }, { Type: 'Scribble' }] }] } });
    expect(bsn.status).toBe(400);
    expect(bsn.json.Message).toMatch(/Bsn/);
    const itsme = await call(service.url, 'POST', '/api/transaction', {
      json: { Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'itsme Identification', PhoneNumber: '+31612345678' }, { Type: 'Scribble' }] }] },
    });
    expect(itsme.status).toBe(400);
    expect(itsme.json.Message).toMatch(/PhoneNumber/);
  });

  it('400 for a body that is not JSON', async () => {
    const r = await call(service.url, 'POST', '/api/transaction', { body: '{"Seal": tru', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.Message).toBe('Invalid json structure provided.');
  });
});

describe('DELETE /api/transaction/{id}', () => {
  it('200 with the cancelled transaction, then 410 for GET, downloads and a second DELETE', async () => {
    const id = await create({ Seal: true, Reference: 'to-cancel' });
    expect((await putPdf(id, 'doc.pdf', pdf)).status).toBe(201);
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Reason: 'Changed my mind', SendNotifications: false } });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ Id: id, Status: 60, CancelationReason: 'Changed my mind', Reference: 'to-cancel' });
    expect(deleted.json.CanceledDateTime).toBe('2026-11-21T10:00:00.000+00:00');
    expect(Object.keys(deleted.json.Files)).toEqual(['doc.pdf']);

    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.status).toBe(410);
    expect(got.json).toEqual({
      Id: id,
      Status: 60,
      Reference: 'to-cancel',
      CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
      ModifiedDateTime: '2026-11-21T10:00:00.000+00:00',
      CanceledDateTime: '2026-11-21T10:00:00.000+00:00',
      CancelationReason: 'Changed my mind',
      Signers: [],
    });
    expect(await call(service.url, 'GET', `/api/transaction/${id}/file/doc.pdf`)).toMatchObject({ status: 410, json: { Message: 'The document is no longer available' } });
    expect(await call(service.url, 'GET', `/api/file/receipt/${id}`)).toMatchObject({ status: 410, json: { Message: 'The receipt is no longer available' } });
    expect((await call(service.url, 'DELETE', `/api/transaction/${id}`)).status).toBe(410);
    expect((await putPdf(id, 'doc.pdf', pdf)).status).toBe(410);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(410);
  });

  it('200 without a body; an ended transaction keeps its status; 400 for a bad body', async () => {
    const id = await create({ Seal: true });
    expect((await putPdf(id, 'doc.pdf', pdf)).status).toBe(201);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const bad = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Reason: 42 } });
    expect(bad).toMatchObject({ status: 400, json: { Message: 'Reason: must be a string' } });
    const unknown = await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { Why: 'x' } });
    expect(unknown.status).toBe(400);
    const deleted = await call(service.url, 'DELETE', `/api/transaction/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.Status).toBe(30);
    expect(deleted.json.CanceledDateTime).toBe('2026-11-21T10:00:00.000+00:00');
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.status).toBe(410);
    expect(got.json.Status).toBe(30);
  });
});

describe('PUT file', () => {
  it('400 naming the fileId for forbidden characters, also when percent-encoded; an encoded fileId is decoded once', async () => {
    const id = await create();
    for (const [raw, decoded] of [
      ['a%3Ab.pdf', 'a:b.pdf'],
      ['a%2Fb.pdf', 'a/b.pdf'],
      ['a%5Cb', 'a\\b'],
      ['%22q%22', '"q"'],
      ['tab%09', 'tab\t'],
      ['x'.repeat(256), 'x'.repeat(256)],
    ] as const) {
      const r = await putPdf(id, raw, pdf);
      expect(r.status, raw).toBe(400);
      expect(r.json.Message).toBe(`${decoded} is not a valid file name.`);
    }
    const spaced = await putPdf(id, 'my%20contract%2520v2.pdf', pdf);
    expect(spaced.status).toBe(201);
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(Object.keys(got.json.Files)).toEqual(['my contract%20v2.pdf']);
  });

  it('400 for a missing or other Content-Type', async () => {
    const id = await create();
    const message = "Unexpected or missing Content-Type header, did you specify 'application/pdf'?";
    const text = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'text/plain' } });
    expect(text).toMatchObject({ status: 400, json: { Message: message } });
    const none = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`);
    expect(none).toMatchObject({ status: 400, json: { Message: message } });
  });

  it('400 for a Digest mismatch or an unsupported algorithm, and nothing is stored', async () => {
    const id = await create();
    const other = await makePdf([['Other']]);
    expect(await putPdf(id, 'a.pdf', pdf, { digest: await digestHeader(other) })).toMatchObject({ status: 400, json: { Message: 'SHA-256 digest mismatch' } });
    expect(await putPdf(id, 'a.pdf', pdf, { digest: await digestHeader(other, 'SHA-512') })).toMatchObject({ status: 400, json: { Message: 'SHA-512 digest mismatch' } });
    expect(await putPdf(id, 'a.pdf', pdf, { digest: 'MD5=1B2M2Y8AsgTpgAmY7PhCfg==' })).toMatchObject({ status: 400, json: { Message: 'Hash algorithm [MD5] is not supported.' } });
    expect(await putPdf(id, 'a.pdf', pdf, { digest: 'SHA=2jmj7l5rSw0yVb/vlWAYkK/YBwk=' })).toMatchObject({ status: 400, json: { Message: 'Hash algorithm [SHA] is not supported.' } });
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.json.Files).toEqual({});
    expect((await call(service.url, 'GET', `/api/transaction/${id}/file/a.pdf`)).status).toBe(404);
    // Both digests, algorithm names case-insensitive, SHA256 alias: accepted.
    const both = `sha256=${(await digestHeader(pdf)).slice(8)}, SHA-512=${(await digestHeader(pdf, 'SHA-512')).slice(8)}`;
    expect((await putPdf(id, 'a.pdf', pdf, { digest: both })).status).toBe(201);
  });

  it('400 for what is not a usable PDF, 413 above the size limit', async () => {
    const id = await create();
    const notPdf = await putPdf(id, 'a.pdf', new TextEncoder().encode('hello, not a pdf'));
    expect(notPdf.status).toBe(400);
    expect(notPdf.json.Message).toMatch(/not a PDF/);
    const truncated = await putPdf(id, 'a.pdf', pdf.subarray(0, 200));
    expect(truncated.status).toBe(400);
    const dir = mkdtempSync(join(tmpdir(), 'paraph-enc-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), pdf);
      execFileSync('qpdf', ['--encrypt', 'user', 'owner', '256', '--', join(dir, 'in.pdf'), join(dir, 'enc.pdf')]);
      const encrypted = await putPdf(id, 'a.pdf', new Uint8Array(readFileSync(join(dir, 'enc.pdf'))));
      expect(encrypted.status).toBe(400);
      expect(encrypted.json.Message).toMatch(/encrypted/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const big = new Uint8Array(25_000);
    big.set(pdf);
    const tooLarge = await putPdf(id, 'a.pdf', big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.Message).toMatch(/20000 bytes/);
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).json.Files).toEqual({});
  });

  it('400 for bad metadata and for a location that cannot be resolved, keeping the earlier upload', async () => {
    const id = await create();
    const badMeta = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { json: { FormSets: { fs: { f: { Type: 'Signature', Location: {} } } }, Colour: 1 } });
    expect(badMeta.status).toBe(400);
    expect(badMeta.json.Message).toMatch(/Colour/);
    const unknownSigner = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { json: { Signers: { Nobody: { FormSets: [] } } } });
    expect(unknownSigner.status).toBe(400);
    expect(unknownSigner.json.Message).toBe("Signer 'Nobody' not found.");

    expect((await putPdf(id, 'a.pdf', pdf)).status).toBe(201);
    const notFound = await call(service.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, {
      json: { Signers: { Signer1: { FormSets: ['fs'] } }, FormSets: { fs: { sig: { Type: 'Signature', Location: { Search: '{{Nowhere}}' } } } } },
    });
    expect(notFound.status).toBe(400);
    expect(notFound.json.Message).toMatch(/fs/);
    expect(notFound.json.Message).toMatch(/\{\{Nowhere\}\}/);
    // The PDF alone is still there, without metadata: the prepared file gets the default field.
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const prepared = await call(service.url, 'GET', `/api/transaction/${id}/file/a.pdf`);
    expect(listSignatureFields(await loadPdf(prepared.bytes)).map((f) => f.name)).toEqual(['Signer1.Signature']);
  });

  it('400 once started; 409 for a second upload of the same kind within the guard window', async () => {
    const guarded = await startTestService({ env: { PARAPH_FILE_REPLACE_GUARD_MS: '1000' } });
    try {
      const created = await call(guarded.url, 'POST', '/api/transaction', { json: { Seal: true } });
      const id = created.json.Id as string;
      const put = () => call(guarded.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
      expect((await put()).status).toBe(201);
      const again = await put();
      expect(again.status).toBe(409);
      expect(again.json.Message).toMatch(/too short an interval/);
      // Metadata is another kind: not guarded by the PDF's upload.
      expect((await call(guarded.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { json: { DisplayName: 'A' } })).status).toBe(204);
      guarded.clock.advance(1000);
      expect((await put()).status).toBe(204);
      expect((await call(guarded.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      guarded.clock.advance(5000);
      expect(await put()).toMatchObject({ status: 400, json: { Message: 'The transaction has already been started.' } });
    } finally {
      await guarded.dispose();
    }
  }, 60_000);
});

describe('downloads and start', () => {
  it('GET file 404 for an unknown file; receipt 404 before the end', async () => {
    const id = await create({ Seal: true });
    expect(await call(service.url, 'GET', `/api/transaction/${id}/file/nope.pdf`)).toMatchObject({
      status: 404,
      json: { Message: 'Either the file or transaction does not exist or the file has not yet been processed.' },
    });
    expect(await call(service.url, 'GET', `/api/file/receipt/${id}/`)).toMatchObject({ status: 404, json: { Message: 'receipt not found.' } });
  });

  it('start: 400 without files (still 5), 400 when started twice, 400 and status 70 for a method without provider', async () => {
    const id = await create({ Seal: true });
    const empty = await call(service.url, 'PUT', `/api/transaction/${id}/start`);
    expect(empty.status).toBe(400);
    expect(empty.json.Message).toMatch(/no files/);
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(5);
    const metaOnly = await create();
    await call(service.url, 'PUT', `/api/transaction/${metaOnly}/file/m`, { json: { DisplayName: 'M' } });
    const noPdf = await call(service.url, 'PUT', `/api/transaction/${metaOnly}/start`);
    expect(noPdf.status).toBe(400);
    expect(noPdf.json.Message).toMatch(/m has metadata but no PDF/);

    expect((await putPdf(id, 'a.pdf', pdf)).status).toBe(201);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect(await call(service.url, 'PUT', `/api/transaction/${id}/start`)).toMatchObject({ status: 400, json: { Message: 'The transaction has already been started.' } });

    const idin = await create({ Signers: [{ SendSignRequest: false, Email: 'a@example.com', Verifications: [{ Type: 'iDIN' }, { Type: 'Scribble' }] }] });
    expect((await putPdf(idin, 'a.pdf', pdf)).status).toBe(201);
    const failed = await call(service.url, 'PUT', `/api/transaction/${idin}/start`);
    expect(failed).toMatchObject({ status: 400, json: { Message: 'Signers[0].Verifications[0]: verification method iDIN has no configured provider.' } });
    expect((await call(service.url, 'GET', `/api/transaction/${idin}`)).json.Status).toBe(70);
  });
});

describe('expiry and cleaning', () => {
  it('the worker expires a transaction after DaysToExpire (50) and cleans it after the retention period (410)', async () => {
    const timed = await startTestService({ env: { PARAPH_RETENTION_DAYS: '2' } });
    try {
      const created = await call(timed.url, 'POST', '/api/transaction', { json: { Seal: true, DaysToExpire: 3, Reference: 'r' } });
      const id = created.json.Id as string;
      timed.clock.advance(3 * 86_400_000 - 1000);
      await timed.server.worker.tick();
      expect((await call(timed.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(5);
      timed.clock.advance(1000);
      await timed.server.worker.tick();
      const expired = await call(timed.url, 'GET', `/api/transaction/${id}`);
      expect(expired.json.Status).toBe(50);
      timed.clock.advance(2 * 86_400_000);
      await timed.server.worker.tick();
      const cleaned = await call(timed.url, 'GET', `/api/transaction/${id}`, { headers: { accept: 'application/vnd.signhost.v2+json' } });
      expect(cleaned.status).toBe(410);
      expect(cleaned.json).toEqual({
        Id: id,
        Status: 50,
        Reference: 'r',
        CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
        ModifiedDateTime: '2026-11-26T10:00:00.000+00:00',
        Signers: [],
      });
    } finally {
      await timed.dispose();
    }
  }, 60_000);
});

describe('public routes', () => {
  it('serves the CA certificates, the health probes and the OpenAPI document without credentials; unknown paths 404', async () => {
    expect((await call(service.url, 'GET', '/api/ca/signing.pem', { auth: false })).text).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect((await call(service.url, 'GET', '/health', { auth: false })).status).toBe(200);
    expect((await call(service.url, 'GET', '/health/live', { auth: false })).status).toBe(200);
    expect((await call(service.url, 'GET', '/health/ready', { auth: false })).status).toBe(200);
    const doc = await call(service.url, 'GET', '/api/openapi.json', { auth: false });
    expect(doc.json.openapi).toBe('3.1.0');
    expect(Object.keys(doc.json.paths).sort()).toEqual([
      '/api/account/seal-chain.pem',
      '/api/admin/accounts',
      '/api/admin/accounts/{accountId}',
      '/api/admin/accounts/{accountId}/credentials',
      '/api/admin/accounts/{accountId}/credentials/{credentialId}/revoke',
      '/api/admin/accounts/{accountId}/credentials/{credentialId}/rotate',
      '/api/admin/accounts/{accountId}/disable',
      '/api/admin/accounts/{accountId}/enable',
      '/api/admin/accounts/{accountId}/logo',
      '/api/admin/accounts/{accountId}/postback-secret',
      '/api/admin/accounts/{accountId}/qualified-seal',
      '/api/admin/accounts/{accountId}/seal-chain.pem',
      '/api/admin/audit',
      '/api/ca/seal.pem',
      '/api/ca/signing.pem',
      '/api/file/receipt/{transactionId}',
      '/api/openapi.json',
      '/api/signer/{token}',
      '/api/signer/{token}/file/{fileId}',
      '/api/signer/{token}/reject',
      '/api/signer/{token}/sign',
      '/api/signer/{token}/verification',
      '/api/transaction',
      '/api/transaction/{transactionId}',
      '/api/transaction/{transactionId}/file/{fileId}',
      '/api/transaction/{transactionId}/start',
      '/health',
      '/health/live',
      '/health/ready',
    ]);
    expect(doc.json.paths['/api/transaction'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTransactionRequest' });
    expect(doc.json.components.schemas.CreateTransactionRequest.properties.Signers).toBeDefined();
    expect((await call(service.url, 'GET', '/api/nothing')).status).toBe(404);
  });
});
