/**
 * The signer JSON API over HTTP (docs/design/signer-api.md): a full journey of two signers driven through the API,
 * and every refusal — unknown token, out of turn, missing or out-of-order verification, wrong/expired codes and
 * attempts, bad field values, ended and cancelled transactions, replayed sign requests (no second signature).
 * Signed PDFs are checked with pdfsig, openssl, qpdf and verifyPdf.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { OUTBOX_CODE_PURPOSE } from '../../src/service/delivery/mail-payload.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, inkPixels, SCRIBBLE_DATA_URL, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { transition } from '../../src/domain/transaction.js';

let s: SignerService;
let base: string;
const UA = { 'user-agent': 'SignerTest/1.0' };
const signer = (token: string, method: string, path: string, json?: unknown) =>
  call(base, method, `/api/signer/${token}${path}`, { auth: false, headers: UA, ...(json !== undefined ? { json } : {}) });

beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
});
afterAll(async () => {
  await s.service.dispose();
});

async function pdfText(pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-receipt-'));
  try {
    await writeFile(join(dir, 'r.pdf'), pdf);
    return (await promisify(execFile)('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The text poppler draws, widget appearances included (what a reader sees in the boxes): pdftocairo prints the
 * page with its annotations into a new PDF whose text pdftotext then reads.
 */
async function drawnText(pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-drawn-'));
  try {
    await writeFile(join(dir, 'd.pdf'), pdf);
    await promisify(execFile)('pdftocairo', ['-pdf', '-f', '1', '-l', '1', join(dir, 'd.pdf'), join(dir, 'drawn.pdf')]);
    return (await promisify(execFile)('pdftotext', ['-layout', join(dir, 'drawn.pdf'), '-'])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function verifyAll(token: string, name: string): Promise<void> {
  expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
  const scribble = await signer(token, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: name });
  expect(scribble.status, scribble.text).toBe(200);
}

describe('signer API', () => {
  it("unsigned signature boxes say 'Sign here' in the transaction's language with the signer's name, never the internal Id", async () => {
    const tx = await createSigningTransaction(base, { language: 'nl-NL' });
    const pdf = (await call(base, 'GET', `/api/signer/${tx.signers[0]!.token}/file/contract`, { auth: false })).bytes;
    const text = await drawnText(pdf);
    // Alice has a ScribbleName; Bob has none and is not named by Id or e-mail address.
    expect(text).toContain('Hier ondertekenen: Alice Janssen');
    expect(text).toMatch(/^\s*Hier ondertekenen\s*$/m);
    expect(text).not.toMatch(/Signer[12]|bob@example\.com/);
  });

  it("shows each field's Label and Tooltip in the signer's language, and puts them in the PDF field's tooltip in the transaction's", async () => {
    const tx = await createSigningTransaction(base, {
      language: 'nl-NL',
      fieldTexts: true,
      signers: [
        { Email: 'alice@example.com', Language: 'de-DE', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] },
        { Email: 'bob@example.com', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] },
      ],
    });
    type Field = { Key: string; Label?: string; Tooltip?: string };
    const fieldsOf = async (token: string): Promise<Field[]> => {
      const session = await signer(token, 'GET', '');
      expect(session.status).toBe(200);
      const documents = session.json.Documents as { FileId: string; Fields: Field[] }[];
      return documents.find((d) => d.FileId === 'contract')!.Fields;
    };
    // Alice reads German; Bob has no Language of his own and reads the transaction's, Dutch.
    expect((await fieldsOf(tx.signers[0]!.token)).find((f) => f.Key === 'city')).toMatchObject({ Label: 'Ort', Tooltip: 'Wo Sie unterschreiben' });
    expect((await fieldsOf(tx.signers[1]!.token)).find((f) => f.Key === 'city')).toMatchObject({ Label: 'Plaats', Tooltip: 'Waar u tekent' });
    // A field without them has neither.
    expect((await fieldsOf(tx.signers[0]!.token)).find((f) => f.Key === 'agree')).not.toHaveProperty('Label');

    const pdf = (await call(base, 'GET', `/api/signer/${tx.signers[0]!.token}/file/contract`, { auth: false })).bytes;
    const doc = await getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise;
    try {
      const annotations = (await (await doc.getPage(1)).getAnnotations()) as { fieldName: string; alternativeText?: string }[];
      expect(annotations.find((a) => a.fieldName === 'f1.city')?.alternativeText).toBe('Plaats — Waar u tekent');
    } finally {
      await doc.destroy();
    }
  });

  it('two signers verify and sign in turn: 10 → 30, two signer signatures and the seal in every document, valid in every tool', async () => {
    const tx = await createSigningTransaction(base);
    const [one, two] = tx.signers as [(typeof tx.signers)[0], (typeof tx.signers)[0]];

    const session = await signer(one.token, 'GET', '');
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect(session.json).toMatchObject({ TransactionId: tx.id, Reference: 'REF-42', State: 'verify', Signer: { Id: 'Signer1', Name: 'Alice Janssen' } });
    // Who asks: the organisation always (the test service names one); no sender name or address is configured here.
    expect(session.json.Sender).toEqual({ Organization: 'Paraph Test Org' });
    expect(session.json.Documents.map((d: { FileId: string }) => d.FileId)).toEqual(['contract', 'annex']);
    const fields = session.json.Documents[0].Fields.map((f: { Name: string; Type: string }) => `${f.Name}:${f.Type}`);
    expect(fields).toEqual(['f1.sig:Signature', 'f1.agree:Check', 'f1.city:SingleLine']);
    expect(session.json.Verifications.map((v: { Type: string; Done: boolean }) => [v.Type, v.Done])).toEqual([['Consent', false], ['Scribble', false]]);

    // Out of turn: the second signer waits and is refused every step.
    const waiting = await signer(two.token, 'GET', '');
    expect(waiting.json.State).toBe('waiting');
    expect(waiting.json.WaitingFor).toEqual([{ Id: 'Signer1', Name: 'Alice Janssen' }]);
    const early = await signer(two.token, 'POST', '/verification', { Type: 'Consent' });
    expect(early.status).toBe(409);
    expect(early.json.Message).toContain('Alice Janssen must sign first');
    expect((await signer(two.token, 'POST', '/sign', {})).status).toBe(409);
    expect((await signer(two.token, 'POST', '/reject', { Reason: 'no' })).status).toBe(409);

    // Missing verification, then out of order.
    const tooSoon = await signer(one.token, 'POST', '/sign', {});
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.json.Message).toBe('Complete the Consent verification before signing.');
    const outOfOrder = await signer(one.token, 'POST', '/verification', { Type: 'Scribble', Name: 'Alice Janssen' });
    expect(outOfOrder.status).toBe(400);
    expect(outOfOrder.json.Message).toBe('Complete the Consent verification first.');
    expect((await signer(one.token, 'POST', '/verification', { Type: 'DigiD' })).status).toBe(400);
    const notPng = await signer(one.token, 'POST', '/verification', { Type: 'Consent', Image: 'x' });
    expect(notPng.status).toBe(200); // Image is ignored for Consent
    const badImage = await signer(one.token, 'POST', '/verification', { Type: 'Scribble', Image: 'data:image/png;base64,AAAA', Name: 'A' });
    expect(badImage.status).toBe(400);
    expect(badImage.json.Message).toContain('not a PNG');
    expect((await signer(one.token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(400); // already done
    expect((await signer(one.token, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Alice Janssen' })).status).toBe(200);
    expect((await signer(one.token, 'GET', '')).json.State).toBe('sign');

    // Field values are validated: required text, types, unknown names and files.
    const missing = await signer(one.token, 'POST', '/sign', { Fields: {} });
    expect(missing.status).toBe(400);
    expect(missing.json.Message).toBe('Fields.contract.city: this field is required.');
    const wrong = await signer(one.token, 'POST', '/sign', { Fields: { contract: { 'f1.agree': 'yes', 'f1.city': 'Delft', 'f2.city': 'x' }, nope: {} } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.Message).toContain('Fields.nope: there is no document "nope"');
    expect(wrong.json.Message).toContain('Fields.contract.f2.city: you have no field of that name');
    expect(wrong.json.Message).toContain('Fields.contract.agree: a check box takes true, false or its export value "Yes".');
    expect((await signer(one.token, 'POST', '/sign', { Fields: {}, Extra: 1 })).status).toBe(400);
    const form = await call(base, 'POST', `/api/signer/${one.token}/sign`, { auth: false, body: 'Fields=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415); // JSON bodies only (CSRF)
    const plain = await call(base, 'POST', `/api/signer/${one.token}/sign`, { auth: false, body: '{"Fields":{}}', headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
    expect(plain.json.Message).toBe('Send the request body as JSON (Content-Type: application/json).');

    const shown = await call(base, 'GET', `/api/signer/${one.token}/file/contract`, { auth: false });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-type')).toBe('application/pdf');
    const signed = await signer(one.token, 'POST', '/sign', { Fields: { contract: { 'f1.agree': true, 'f1.city': 'Delft' } } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json).toMatchObject({ SignerStatus: 'signed', TransactionStatus: 10 });
    expect(signed.json.ReturnUrl).toBe(`https://example.com/done?sh_transactionid=${tx.id}&sh_signerid=Signer1&sh_signerstatus=signed`);
    const afterOne = (await call(base, 'GET', `/api/signer/${one.token}/file/contract`, { auth: false })).bytes;

    // A replayed sign request answers the same and signs nothing.
    const replay = await signer(one.token, 'POST', '/sign', { Fields: { contract: { 'f1.agree': true, 'f1.city': 'Delft' } } });
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual(signed.json);
    expect(Buffer.from((await call(base, 'GET', `/api/signer/${one.token}/file/contract`, { auth: false })).bytes).equals(Buffer.from(afterOne))).toBe(true);

    const mid = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(mid.json.Status).toBe(10);
    const s1 = mid.json.Signers[0];
    expect(s1.SignedDateTime).toBe('2026-11-21T10:00:00.000+00:00');
    expect(s1.Context).toEqual({ contract: { agree: true, city: 'Delft' }, annex: {} });
    expect(s1.Verifications.at(-1)).toEqual({ Type: 'IPAddress', IPAddress: '127.0.0.1' });
    expect(s1.Activities.map((a: { Code: number; Info?: string }) => `${a.Code}${a.Info ? `:${a.Info}` : ''}`)).toEqual(['103', '105:contract', '203']);
    expect(s1).not.toHaveProperty('SignSession');

    await verifyAll(two.token, 'Bob de Vries');
    const done = await signer(two.token, 'POST', '/sign', { Fields: { contract: { 'f2.city': 'Utrecht' } } });
    expect(done.status, done.text).toBe(200);
    expect(done.json.TransactionStatus).toBe(30);

    const final = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(final.json.Status).toBe(30);
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    for (const fileId of ['contract', 'annex']) {
      const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/${fileId}`)).bytes;
      const report = await checkSignedPdf(pdf, ca);
      expect(report.pdfsig.length, report.details).toBe(3);
      expect(report.pdfsig.every((sig) => sig.valid), report.details).toBe(true);
      expect(report.openssl, report.details).toEqual([true, true, true]);
      expect(report.qpdf, report.details).toBe(true);
      const verdict = await verifyPdf(pdf, { trustRoots: [ca], now: s.service.clock.now() });
      expect(verdict.signatures.length).toBe(3);
      expect(verdict.valid, JSON.stringify([verdict.problems, verdict.signatures], null, 1).slice(0, 3000)).toBe(true);
    }
    const receipt = await call(base, 'GET', `/api/file/receipt/${tx.id}`);
    expect(receipt.status).toBe(200);
    const receiptText = await pdfText(receipt.bytes);
    expect(receiptText).toContain('SignerTest/1.0'); // user agent and IP of each signing
    expect(receiptText).toContain('127.0.0.1');
    expect(receiptText).toContain('geslaagd'); // verifications passed (the transaction's language is nl-NL)
    expect(receiptText).not.toContain('niet uitgevoerd');

    // Ended: the first signer's replay still answers the same; other steps are refused with 410.
    expect((await signer(one.token, 'POST', '/sign', {})).json.TransactionStatus).toBe(30);
    const ended = await signer(two.token, 'POST', '/reject', { Reason: 'too late' });
    expect(ended.status).toBe(409);
    const session30 = await signer(two.token, 'GET', '');
    expect(session30.json.State).toBe('signed');

    // The audit trail has IP and user agent; the token never reaches the log.
    const audit = await s.service.server.store.listAuditEntries(tx.id);
    const opened = audit.find((e) => e.type === 'signer.opened');
    expect(opened?.data).toEqual({ signerId: 'Signer1', ip: '127.0.0.1', userAgent: 'SignerTest/1.0' });
    expect(audit.filter((e) => e.type === 'signer.signed').length).toBe(2);
    const log = JSON.stringify(s.lines);
    expect(log).not.toContain(one.token);
    expect(log).not.toContain(two.token);
  });

  it('refuses unknown tokens (404), not-started (409), cancelled (410) and rejected (410) transactions', async () => {
    expect((await signer('x'.repeat(32), 'GET', '')).status).toBe(404);
    expect((await signer('short', 'POST', '/sign', {})).status).toBe(404);

    const created = await call(base, 'POST', '/api/transaction', { json: { Signers: [{ SendSignRequest: false, Email: 'c@example.com' }] } });
    const token = (created.json.Signers[0].SignUrl as string).split('/sign/')[1] as string;
    expect((await signer(token, 'GET', '')).json.State).toBe('not-started');
    expect((await signer(token, 'POST', '/verification', { Type: 'Scribble', Name: 'C' })).status).toBe(409);

    const tx = await createSigningTransaction(base);
    await verifyAll(tx.signers[0]!.token, 'Alice Janssen');
    expect(JSON.stringify((await s.service.server.store.getTransaction(tx.id))!.Signers[0]!.SignSession)).toContain('imageBase64');
    const cancelled = await call(base, 'DELETE', `/api/transaction/${tx.id}`, { json: { Reason: 'wrong file' } });
    expect(cancelled.status).toBe(200);
    // Cleaning deletes the scribble and codes with the rest of the signer's session
    // (docs/design/transactions.md#cleaning).
    expect((await s.service.server.store.getTransaction(tx.id))!.Signers[0]!.SignSession).toBeUndefined();
    const gone = await signer(tx.signers[0]!.token, 'GET', '');
    // During DELETE's grace period (docs/design/transactions.md#cancellation) the session shows the ended transaction
    // without documents.
    expect(gone.status).toBe(200);
    expect(gone.json).toMatchObject({ TransactionStatus: 60, State: 'ended', Documents: [] });
    expect((await signer(tx.signers[0]!.token, 'POST', '/sign', {})).status).toBeGreaterThanOrEqual(404);
  });

  it('reject: 202, status 40, RejectReason via GET; then the others are refused', async () => {
    const tx = await createSigningTransaction(base, { transaction: { SendEmailNotifications: true, PostbackUrl: 'http://127.0.0.1:9/postback' } });
    const [one, two] = tx.signers as [(typeof tx.signers)[0], (typeof tx.signers)[0]];
    expect((await signer(one.token, 'POST', '/reject', { Reason: '  ' })).status).toBe(400);
    const rejected = await signer(one.token, 'POST', '/reject', { Reason: 'The price is wrong' });
    expect(rejected.status).toBe(202);
    expect(rejected.json).toMatchObject({ SignerStatus: 'rejected', TransactionStatus: 40 });
    expect(rejected.json.ReturnUrl).toContain('sh_signerstatus=rejected');
    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(40);
    expect(got.json.Signers[0].RejectReason).toBe('The price is wrong');
    expect(got.json.Signers[0].Activities.at(-1)).toMatchObject({ Code: 202, Activity: 'Rejected' });
    // The sender is notified and the postback for status 40 is queued.
    // Postbacks to one URL are claimable one at a time: mark each done and claim again.
    const payloads: unknown[] = [];
    for (let round = 0; round < 10; round++) {
      const claimed = await s.service.server.store.claimDue(new Date('2100-01-01T00:00:00Z'), 500, 60_000);
      if (claimed.length === 0) break;
      for (const row of claimed) {
        if (row.transactionId === tx.id) payloads.push(row.payload);
        await s.service.server.store.settleOutbox([{ attempt: { outboxId: row.id, attempt: row.attempts, at: new Date(), outcome: 'delivered' } }]);
      }
    }
    expect(payloads).toEqual(
      expect.arrayContaining([
        { transactionId: tx.id, kind: 'notification', to: '', event: 'rejected' },
        { transactionId: tx.id, status: 40, url: 'http://127.0.0.1:9/postback' },
      ]),
    );
    const again = await signer(one.token, 'POST', '/reject', { Reason: 'again' });
    expect(again.status).toBe(410);
    const other = await signer(two.token, 'POST', '/verification', { Type: 'Consent' });
    expect(other.status).toBe(410);
    expect(other.json.Message).toBe('This transaction was rejected by a signer; it can no longer be signed.');
    expect((await signer(two.token, 'GET', '')).json.State).toBe('ended');
  });

  it('PhoneNumber codes: sent to the log, wrong code, resend limit, expiry after 10 minutes, 5 attempts, then the right code', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [{ Email: 'p@example.com', Verifications: [{ Type: 'PhoneNumber', Number: '+31612345678' }, { Type: 'Scribble' }] }],
    });
    const token = tx.signers[0]!.token;
    expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: '123456' })).status).toBe(400); // none sent
    const sent = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber' });
    expect(sent.json).toMatchObject({ Type: 'PhoneNumber', Done: false, CodeSent: true });
    const session = await signer(token, 'GET', '');
    expect(session.json.Verifications[0]).toMatchObject({ Type: 'PhoneNumber', SentTo: '+31•••••••78', CodeSent: true });
    const code = s.smsCode('Signer1') as string;
    expect(code).toMatch(/^\d{6}$/);
    const wrongCode = code === '000000' ? '000001' : '000000';

    const wrong = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: wrongCode });
    expect(wrong.status).toBe(400);
    expect(wrong.json.Message).toContain('4 attempts left');
    expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(429); // resend too soon

    s.service.clock.advance(11 * 60_000);
    const expired = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: code });
    expect(expired.status).toBe(400);
    expect(expired.json.Message).toContain('expired');

    expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
    const second = s.smsCode('Signer1') as string;
    const bad = second === '111111' ? '111112' : '111111';
    for (let i = 0; i < 4; i++) expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: bad })).status).toBe(400);
    const fifth = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: bad });
    expect(fifth.json.Message).toBe('Too many wrong codes were entered: ask for a new code.');
    expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: second })).json.Message).toContain('Too many wrong codes');

    s.service.clock.advance(61_000);
    expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
    const right = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: s.smsCode('Signer1') });
    expect(right.status).toBe(200);
    expect(right.json).toEqual({ Type: 'PhoneNumber', Done: true, Remaining: ['Scribble'] });
    const audit = await s.service.server.store.listAuditEntries(tx.id);
    const evidence = audit.filter((e) => e.type === 'verification.performed').map((e) => e.data);
    expect(evidence).toEqual([{ signerId: 'Signer1', verification: 'PhoneNumber', result: 'passed', evidence: { number: '…78' } }]);
    expect(JSON.stringify(audit)).not.toContain(s.smsCode('Signer1'));
  });

  it('Email codes are queued as verification-code mails; typed names and ScribbleNameFixed', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [{ Email: 'e@example.com', ScribbleName: 'Eva Smit', ScribbleNameFixed: true, Verifications: [{ Type: 'Email' }, { Type: 'Scribble' }] }],
    });
    const token = tx.signers[0]!.token;
    expect((await signer(token, 'POST', '/verification', { Type: 'Email' })).status).toBe(200);
    const rows = await s.service.server.store.claimDue(new Date('2100-01-01T00:00:00Z'), 100, 60_000);
    const mail = rows.find((r) => r.transactionId === tx.id && (r.payload as { kind?: string }).kind === 'verification-code');
    const payload = mail?.payload as { to: string; code?: string; codeSealed: string; signerId: string };
    expect(payload).toMatchObject({ to: 'e@example.com', signerId: 'Signer1' });
    // The code waits in the outbox sealed under the master key, never in clear.
    expect(payload.code).toBeUndefined();
    const secrets = s.service.server.service.deps.context?.secrets;
    if (secrets === undefined) throw new Error('the service has no master key');
    const code = secrets.open(payload.codeSealed, OUTBOX_CODE_PURPOSE);
    expect((await signer(token, 'POST', '/verification', { Type: 'Email', Code: code })).status).toBe(200);
    const renamed = await signer(token, 'POST', '/verification', { Type: 'Scribble', Name: 'Someone Else' });
    expect(renamed.status).toBe(400);
    expect(renamed.json.Message).toContain('fixed');
    expect((await signer(token, 'POST', '/verification', { Type: 'Scribble' })).status).toBe(200);
    const signed = await signer(token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Leiden' } } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json.TransactionStatus).toBe(30);
  });

  it('SetParaph: the initials at the bottom right of every page without a signature field, inside the signed revision', async () => {
    const tx = await createSigningTransaction(base, { seal: false, setParaph: true, signers: [{ Email: 'ilse@example.com', Verifications: [{ Type: 'Scribble' }] }] });
    const token = tx.signers[0]!.token;
    expect((await signer(token, 'POST', '/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Ilse de Wit' })).status).toBe(200);
    const signed = await signer(token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Gouda' } } });
    expect(signed.status, signed.text).toBe(200);
    const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    const corner = { x: 595 - 18 - 60, y: 842 - 18 - 30, w: 60, h: 30 };
    expect(await inkPixels(pdf, 2, corner)).toBeGreaterThan(20); // page 2 has no signature field: initials
    expect(await inkPixels(pdf, 1, corner)).toBe(0); // page 1 holds the signature
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text;
    const report = await checkSignedPdf(pdf, ca);
    expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true]);
    expect(report.openssl, report.details).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);
    expect((await verifyPdf(pdf, { trustRoots: [ca], now: s.service.clock.now() })).valid).toBe(true);
  });

  it('two sign requests at once: one signature only', async () => {
    const tx = await createSigningTransaction(base, { seal: false, signers: [{ Email: 'dup@example.com', Verifications: [{ Type: 'Consent' }] }] });
    const token = tx.signers[0]!.token;
    expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
    const body = { Fields: { contract: { 'f1.city': 'Ede' } } };
    const answers = await Promise.all([signer(token, 'POST', '/sign', body), signer(token, 'POST', '/sign', body), signer(token, 'POST', '/sign', body)]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((x) => x === 200 || x === 409)).toBe(true);
    const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    expect((await pdfsigCheck(pdf)).signatures.length).toBe(1);
    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(30);
    expect(got.json.Signers[0].Activities.filter((a: { Code: number }) => a.Code === 203).length).toBe(1);
  });

  it('Authentications: no document before the PhoneNumber authentication is done, then the verifications', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [{ Email: 'auth@example.com', Authentications: [{ Type: 'PhoneNumber', Number: '+31698765432' }], Verifications: [{ Type: 'Consent' }] }],
    });
    const token = tx.signers[0]!.token;
    const first = await signer(token, 'GET', '');
    expect(first.json.State).toBe('authenticate');
    expect(first.json.Documents).toEqual([]);
    expect(first.json.Verifications.map((v: { Type: string; Phase: string }) => `${v.Phase}:${v.Type}`)).toEqual(['authentication:PhoneNumber', 'verification:Consent']);
    const file = await signer(token, 'GET', '/file/contract');
    expect(file.status).toBe(403);
    expect(file.json.Message).toContain('Confirm who you are first');
    expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(400);
    expect((await signer(token, 'POST', '/verification', { Type: 'PhoneNumber' })).status).toBe(200);
    const done = await signer(token, 'POST', '/verification', { Type: 'PhoneNumber', Code: s.smsCode('Signer1') });
    expect(done.json).toEqual({ Type: 'PhoneNumber', Done: true, Remaining: ['Consent'] });
    const after = await signer(token, 'GET', '');
    expect(after.json.State).toBe('verify');
    expect(after.json.Documents.length).toBe(2);
    expect((await signer(token, 'GET', '/file/contract')).status).toBe(200);
    const audit = await s.service.server.store.listAuditEntries(tx.id);
    expect(audit.filter((e) => e.type === 'verification.performed').map((e) => (e.data as { verification: string }).verification)).toEqual(['PhoneNumber (authentication)']);
  });

  it('status 20 while a signature is applied: others wait (409); a hold left by a crashed process is taken over after 5 minutes', async () => {
    const tx = await createSigningTransaction(base, { seal: false, transaction: { PostbackUrl: 'http://127.0.0.1:9/hold' }, signers: [{ Email: 'h@example.com', Verifications: [{ Type: 'Consent' }] }] });
    const token = tx.signers[0]!.token;
    expect((await signer(token, 'POST', '/verification', { Type: 'Consent' })).status).toBe(200);
    const store = s.service.server.store;
    const current = (await store.getTransaction(tx.id))!;
    await store.commit({ transaction: transition(current, { type: 'hold', signerId: 'Signer1' }, s.service.clock.now()), expectedVersion: current.version });
    expect((await call(base, 'GET', `/api/transaction/${tx.id}`)).json.Status).toBe(20);
    expect((await signer(token, 'GET', '')).json.State).toBe('processing');
    const busy = await signer(token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Epe' } } });
    expect(busy.status).toBe(409);
    expect(busy.json.Message).toBe('The documents are being processed right now: try again in a moment.');
    expect((await signer(token, 'POST', '/reject', { Reason: 'x' })).status).toBe(409);

    s.service.clock.advance(5 * 60_000);
    const signed = await signer(token, 'POST', '/sign', { Fields: { contract: { 'f1.city': 'Epe' } } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.json.TransactionStatus).toBe(30);
    const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    expect((await pdfsigCheck(pdf)).signatures.length).toBe(1);
    expect((await store.getTransaction(tx.id))!.Signers[0]!.SignSession).not.toHaveProperty('signingSince');

    // Postbacks follow every status: 10 (start), 20 (hold), 20 (signed, activity 203), 30.
    const statuses: unknown[] = [];
    for (let round = 0; round < 10; round++) {
      const claimed = await store.claimDue(new Date('2100-01-01T00:00:00Z'), 500, 60_000);
      if (claimed.length === 0) break;
      for (const row of claimed) {
        if (row.transactionId === tx.id && row.kind === 'postback') statuses.push((row.payload as { status: number }).status);
        await store.settleOutbox([{ attempt: { outboxId: row.id, attempt: row.attempts, at: new Date(), outcome: 'delivered' } }]);
      }
    }
    expect(statuses).toEqual([10, 20, 20, 30]);
  });
});

describe('a waiting signer', () => {
  it('sees the signer before them by name, or not at all: never their e-mail address', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [
        { Email: 'first.private@example.com', SendSignRequest: false, Verifications: [{ Type: 'Consent' }] },
        { Email: 'second@example.com', SendSignRequest: false, Verifications: [{ Type: 'Consent' }] },
      ],
    });
    const [, two] = tx.signers;
    if (two === undefined) throw new Error('two signers expected');
    const waiting = await signer(two.token, 'GET', '');
    expect(waiting.json.State).toBe('waiting');
    expect(waiting.json.WaitingFor).toEqual([{ Id: 'Signer1' }]);
    const early = await signer(two.token, 'POST', '/verification', { Type: 'Consent' });
    expect(early.status).toBe(409);
    expect(early.json.Message).toBe('It is not your turn yet: other signers must sign first.');
    expect(JSON.stringify(waiting.json) + early.text).not.toContain('first.private');
  });
});
