/**
 * Mails through a real SMTP server on 127.0.0.1 (`smtp-server` + `mailparser`): the sign request carries
 * the SignUrl, the signer's message and the document name and records 101; the confirmation carries the signed PDF
 * and the receipt; receivers get the signed documents (301); a refused recipient gives 999 at once; without SMTP
 * the mail is an .eml file in the data directory. Templates: en-US and nl-NL, others fall back to en-US.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailRow } from '../../src/service/delivery/mail-payload.js';
import { renderMailText } from '../../src/events/mail-templates.js';
import { fromOnBehalfOf } from '../../src/events/deliver-mail.js';
import { CATALOGUES } from '../../src/i18n/catalogue.js';
import { MAIL_FILE_PURPOSE, openSealedMail } from '../../src/events/mail-transport.js';
import { createMasterKey, parseMasterKey } from '../../src/store/master-key.js';
import { readSealedMails } from '../helpers/mail-files.js';
import { completionMailRows } from '../../src/service/delivery/outbox-rows.js';
import { startSmtpSink, type SmtpSink } from '../../src/testing/start-smtp-sink.js';
import { call, digestHeader, makePdf, startTestService, type TestService } from '../helpers/service-harness.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { SCRIBBLE_DATA_URL } from '../service/signer/signer-fixture.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { receiptTextFor } from '../../src/receipt/receipt-text.js';
import { verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { scratchFiles } from '../helpers/scratch-files.js';

const exec = promisify(execFile);
const scratch = scratchFiles('mail-evidence');

let sink: SmtpSink;
let service: TestService;

beforeAll(async () => {
  sink = await startSmtpSink({ refuseRecipient: (address) => (address.startsWith('bounce@') ? 550 : undefined) });
  service = await startTestService({
    env: { PARAPH_SMTP_URL: sink.url, PARAPH_NOTIFICATION_EMAIL: 'sender@example.com', PARAPH_ORGANIZATION: 'Voorbeeld Verhuur B.V.', PARAPH_SENDER_NAME: 'Sanne de Vries' },
  });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  await sink?.close();
});

async function createWithFile(json: Record<string, unknown>, fileId = 'Contract.pdf'): Promise<string> {
  const created = await call(service.url, 'POST', '/api/transaction', { json });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const pdf = await makePdf([['An agreement to sign']]);
  const upload = await call(service.url, 'PUT', `/api/transaction/${id}/file/${encodeURIComponent(fileId)}`, {
    body: pdf,
    headers: { 'content-type': 'application/pdf', digest: digestHeader(pdf) },
  });
  expect(upload.status).toBe(201);
  return id;
}

describe('mail over SMTP', () => {
  it('sends the sign request with the SignUrl, message and document name, and records 101', async () => {
    const id = await createWithFile({
      Reference: 'mail-1',
      Signers: [{ Email: 'alice@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign the lease <today>.', Language: 'en-US' }],
    });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const before = sink.received.length;
    expect(await service.server.events.drain()).toMatchObject({ delivered: 1, failed: 0 });
    const raw = sink.received[before]!;
    expect(raw.to).toEqual(['alice@example.com']);
    const mail = await simpleParser(raw.raw);
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    const signUrl = got.json.Signers[0].SignUrl as string;
    expect(signUrl).toMatch(/\/sign\//);
    expect(mail.subject).toBe('Please sign: mail-1');
    expect(mail.text).toContain(signUrl);
    expect(mail.text).toContain('Please sign the lease <today>.');
    expect(mail.text).toContain('Contract.pdf');
    expect(mail.html).toContain(`href="${signUrl.replace(/&/g, '&#38;')}"`);
    expect(mail.html).toContain('Please sign the lease &#60;today&#62;.');
    expect(got.json.Signers[0].Activities.map((a: { Code: number }) => a.Code)).toEqual([101]);
    // Who asks, before the mail is opened; replies reach the sender; no automatic answers; and a warning not to
    // pass the link on, with the address in full for mail programs without buttons.
    expect(mail.from?.value).toEqual([{ name: 'Voorbeeld Verhuur B.V. via paraph', address: expect.stringMatching(/^noreply@/) }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'sender@example.com' }]);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.text).toContain(CATALOGUES['en-US'].mail.security);
    expect(mail.text).toContain('Sender: Sanne de Vries');
    expect(mail.text).toContain('Voorbeeld Verhuur B.V.');
    expect(mail.text).not.toContain('B.V..');
    expect([...(mail.html || '').matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual([signUrl, signUrl].map((u) => u.replace(/&/g, '&#38;')));
  });

  it('sends the confirmation with the signed PDF and the receipt, and receivers the signed documents (301)', async () => {
    const id = await createWithFile({ Seal: true, Reference: 'mail-2', Language: 'en-US', SendEmailNotifications: false, Receivers: [{ Email: 'bob@example.com', Name: 'Bob', Language: 'nl-NL' }] }, 'Offer 7');
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const stored = await service.server.store.getTransaction(id);
    expect(stored?.Status).toBe(30);
    // A confirmation as a signer with SendSignConfirmation gets it (the signer flow enqueues it with completionMailRows).
    await service.server.store.commit({
      transaction: stored!,
      expectedVersion: stored!.version,
      outbox: [mailRow({ transactionId: id, kind: 'confirmation', to: 'carol@example.com' })],
    });
    const before = sink.received.length;
    expect(await service.server.events.drain()).toMatchObject({ delivered: 2, failed: 0 });
    const mails = await Promise.all(sink.received.slice(before).map((m) => simpleParser(m.raw)));
    const toBob = mails.find((m) => m.subject?.startsWith('Ondertekende documenten'));
    const toCarol = mails.find((m) => m.subject === 'Signed: mail-2');
    expect(toBob?.attachments.map((a) => [a.filename, a.contentType])).toEqual([['Offer 7.pdf', 'application/pdf']]);
    expect(toCarol?.attachments.map((a) => a.filename)).toEqual(['Offer 7.pdf', 'receipt.pdf']);
    const signed = await call(service.url, 'GET', `/api/transaction/${id}/file/Offer%207`);
    expect(Buffer.from(toCarol!.attachments[0]!.content).equals(Buffer.from(signed.bytes))).toBe(true);
    const receipt = await call(service.url, 'GET', `/api/file/receipt/${id}`);
    expect(Buffer.from(toCarol!.attachments[1]!.content).equals(Buffer.from(receipt.bytes))).toBe(true);
    const sealCa = (await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const tools = await checkSignedPdf(new Uint8Array(toBob!.attachments[0]!.content), sealCa);
    expect(tools.pdfsig.map((s) => s.valid), tools.details).toEqual([true]);
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.json.Receivers[0].Activities.map((a: { Code: number }) => a.Code)).toEqual([301]);
  });

  it("names the receipt a confirmation attaches in the receipt's language (bewijsrapport.pdf for a Dutch transaction)", async () => {
    const id = await createWithFile({ Seal: true, Reference: 'mail-nl', Language: 'nl-NL', SendEmailNotifications: false }, 'Offerte');
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    const stored = (await service.server.store.getTransaction(id))!;
    expect(stored.Status).toBe(30);
    await service.server.store.commit({
      transaction: stored,
      expectedVersion: stored.version,
      outbox: [mailRow({ transactionId: id, kind: 'confirmation', to: 'dirk@example.com' })],
    });
    const before = sink.received.length;
    expect(await service.server.events.drain()).toMatchObject({ delivered: 1, failed: 0 });
    const mail = await simpleParser(sink.received[before]!.raw);
    expect(mail.attachments.map((a) => a.filename)).toEqual(['Offerte.pdf', 'bewijsrapport.pdf']);
  });

  it('records 999 at once when the SMTP server refuses the recipient permanently', async () => {
    const id = await createWithFile({ Signers: [{ Email: 'bounce@example.com', SendSignRequest: true, SignRequestMessage: 'Hi' }] });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect(await service.server.events.drain()).toMatchObject({ delivered: 0, failed: 1 });
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    const activities = got.json.Signers[0].Activities as { Code: number; Info: string }[];
    expect(activities.map((a) => a.Code)).toEqual([999]);
    expect(activities[0]!.Info).toContain('bounce@example.com');
    const audit = await service.server.store.listAuditEntries(id);
    expect(audit.at(-1)).toMatchObject({ type: 'mail.failed', data: { kind: 'invitation', to: 'bounce@example.com' } });
  });
});

describe('signer journey', () => {
  it('a signer who signs through the signer API gets the confirmation with the signed PDF and the receipt (301, 401)', async () => {
    const id = await createWithFile({
      Seal: true,
      Language: 'en-US',
      Reference: 'journey-1',
      Signers: [{ Email: 'ivan@example.com', SendSignRequest: true, SignRequestMessage: 'Sign please', SendSignConfirmation: true }],
    });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await service.server.events.drain();
    const signUrl = (await call(service.url, 'GET', `/api/transaction/${id}`)).json.Signers[0].SignUrl as string;
    const invitation = sink.received.find((m) => m.to.includes('ivan@example.com'));
    expect((await simpleParser(invitation!.raw)).text).toContain(signUrl);
    const token = decodeURIComponent(signUrl.slice(signUrl.lastIndexOf('/') + 1));
    const api = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
    expect((await api('/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Ivan' })).status).toBe(200);
    const signed = await api('/sign', { Fields: {} });
    expect(signed.status, signed.text).toBeLessThan(300);
    expect((await call(service.url, 'GET', `/api/transaction/${id}`)).json.Status).toBe(30);

    const before = sink.received.length;
    await service.server.events.drain();
    const confirmation = sink.received.slice(before).find((m) => m.to.includes('ivan@example.com'));
    const mail = await simpleParser(confirmation!.raw);
    expect(mail.subject).toBe('Signed: journey-1');
    expect(mail.attachments.map((a) => a.filename)).toEqual(['Contract.pdf', 'receipt.pdf']);
    const final = await call(service.url, 'GET', `/api/transaction/${id}/file/Contract.pdf`);
    expect(Buffer.from(mail.attachments[0]!.content).equals(Buffer.from(final.bytes))).toBe(true);
    const cas = (await call(service.url, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const tools = await checkSignedPdf(new Uint8Array(mail.attachments[0]!.content), cas);
    expect(tools.pdfsig.map((x) => x.valid), tools.details).toEqual([true, true]);
    expect(tools.openssl).toEqual([true, true]);
    expect(tools.qpdf).toBe(true);
    const receiptTools = await checkSignedPdf(new Uint8Array(mail.attachments[1]!.content), cas);
    expect(receiptTools.pdfsig.map((x) => x.valid), receiptTools.details).toEqual([true]);
    const got = await call(service.url, 'GET', `/api/transaction/${id}`);
    expect(got.json.Signers[0].Activities.map((a: { Code: number }) => a.Code)).toEqual(expect.arrayContaining([101, 203, 301, 401]));
  });
});

describe('localised evidence', () => {
  it("a German signer in a Dutch transaction gets a German receipt named in German; the seal speaks Dutch; the sender's receipt stays Dutch", async () => {
    const id = await createWithFile({
      Seal: true,
      Language: 'nl-NL',
      Reference: 'evidence-de',
      Signers: [
        { Email: 'greta@example.com', Language: 'de-DE', SendSignRequest: true, SignRequestMessage: 'Bitte unterschreiben', SendSignConfirmation: true },
      ],
    });
    // A Seal field makes the seal visible, with its line of text.
    const seal = { FormSets: { org: { seal: { Type: 'Seal', Location: { PageNumber: 1, Left: 300, Top: 600, Width: 200, Height: 70 } } } } };
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/file/Contract.pdf`, { json: seal })).status).toBeLessThan(300);
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await service.server.events.drain();
    const signUrl = (await call(service.url, 'GET', `/api/transaction/${id}`)).json.Signers[0].SignUrl as string;
    const token = decodeURIComponent(signUrl.slice(signUrl.lastIndexOf('/') + 1));
    const api = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
    expect((await api('/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Greta Vogel' })).status).toBe(200);
    expect((await api('/sign', { Fields: {} })).status).toBeLessThan(300);

    const before = sink.received.length;
    await service.server.events.drain();
    const confirmation = sink.received.slice(before).find((m) => m.to.includes('greta@example.com'));
    const mail = await simpleParser(confirmation!.raw);
    expect(mail.attachments.map((a) => a.filename)).toEqual(['Contract.pdf', 'beweisprotokoll.pdf']);
    const german = new Uint8Array(mail.attachments[1]!.content);
    const text = (await exec('pdftotext', ['-layout', '-enc', 'UTF-8', scratch.file(german), '-'])).stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Beweisprotokoll');
    expect(text).toContain(receiptTextFor('de-DE').sections.signers);
    expect(text).not.toContain(receiptTextFor('nl-NL').title);

    // Still evidence: the seal holds in poppler and in our verifier, and the log is the transaction's.
    const sealCa = (await call(service.url, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const document = new Uint8Array(mail.attachments[0]!.content);
    const verdict = await verifyReceipt(german, { trustRoots: [sealCa], documents: [document] });
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.attachment?.transactionId).toBe(id);
    const tools = await checkSignedPdf(german, sealCa);
    expect(tools.pdfsig.map((x) => x.valid), tools.details).toEqual([true]);

    // The document is the transaction's: its seal says "Verzegeld" (Dutch), whoever reads it.
    const drawn = scratch.file(document);
    await exec('pdftocairo', ['-pdf', drawn, `${drawn}-drawn.pdf`]);
    expect((await exec('pdftotext', ['-enc', 'UTF-8', `${drawn}-drawn.pdf`, '-'])).stdout).toMatch(/Verzegeld \d{4}-\d\d-\d\d/);

    // The sender's download is the transaction's language; the German one is the same log under another text.
    const dutch = (await call(service.url, 'GET', `/api/file/receipt/${id}`)).bytes;
    const dutchText = (await exec('pdftotext', ['-layout', '-enc', 'UTF-8', scratch.file(dutch), '-'])).stdout;
    expect(dutchText).toContain(receiptTextFor('nl-NL').title);
    expect((await verifyReceipt(dutch, { trustRoots: [sealCa] })).attachment?.head).toBe(verdict.attachment?.head);
  });
});

/** Every URL a mail carries: the buttons' hrefs in the HTML part and the URLs written out in the plain-text part. */
function linksOf(mail: { html: string | false; text?: string }): string[] {
  const html = typeof mail.html === 'string' ? [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&')) : [];
  const text = [...(mail.text ?? '').matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]);
  return [...new Set([...html, ...text])];
}

describe('links in mails', () => {
  it('every link of every mail of a signing flow opens on the running service (sign request, confirmation, sender notice)', async () => {
    const before = sink.received.length;
    const id = await createWithFile({
      Language: 'en-US',
      Reference: 'links-1',
      SendEmailNotifications: true,
      Signers: [{ Email: 'lena@example.com', SendSignRequest: true, SignRequestMessage: 'The lease, as agreed.', SendSignConfirmation: true }],
    });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await service.server.events.drain();
    const signUrl = (await call(service.url, 'GET', `/api/transaction/${id}`)).json.Signers[0].SignUrl as string;
    const token = decodeURIComponent(signUrl.slice(signUrl.lastIndexOf('/') + 1));
    const api = (path: string, json: unknown) => call(service.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
    expect((await api('/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Lena' })).status).toBe(200);
    expect((await api('/sign', { Fields: {} })).status).toBeLessThan(300);
    await service.server.events.drain();

    const mails = await Promise.all(sink.received.slice(before).map(async (m) => ({ to: m.to, mail: await simpleParser(m.raw) })));
    expect(mails.map((m) => [m.to[0], m.mail.subject])).toEqual(
      expect.arrayContaining([
        ['lena@example.com', 'Please sign: links-1'],
        ['lena@example.com', 'Signed: links-1'],
        ['sender@example.com', expect.stringContaining('links-1')],
      ]),
    );
    const opened: string[] = [];
    for (const { mail } of mails) {
      for (const link of linksOf(mail)) {
        expect(link.startsWith(service.url), `${mail.subject}: ${link} points at this service`).toBe(true);
        // Links into the API (the sender's notice) need the account's headers, as the sender's own client sends them.
        const opens = await call(service.url, 'GET', link.slice(service.url.length), { auth: link.includes('/api/') });
        expect([mail.subject, link, opens.status]).toEqual([mail.subject, link, 200]);
        opened.push(link);
      }
    }
    expect(new Set(opened)).toEqual(new Set([signUrl, `${service.url}/api/transaction/${id}`]));
  });
});

describe('cancellation notices', () => {
  it('DELETE with SendNotifications mails the signers who were sent a sign request', async () => {
    const id = await createWithFile({
      Language: 'en-US',
      Reference: 'mail-cancel',
      SignRequestMode: 1,
      Signers: [
        { Email: 'frank@example.com', SendSignRequest: true, SignRequestMessage: 'Sign please' },
        { Email: 'grace@example.com', SendSignRequest: false },
      ],
    });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    await service.server.events.drain();
    const before = sink.received.length;
    expect((await call(service.url, 'DELETE', `/api/transaction/${id}`, { json: { SendNotifications: true, Reason: 'Changed terms' } })).status).toBe(200);
    await service.server.events.drain();
    const mails = await Promise.all(sink.received.slice(before).map(async (m) => ({ to: m.to, mail: await simpleParser(m.raw) })));
    expect(mails.map((m) => m.to)).toEqual([['frank@example.com']]);
    expect(mails[0]!.mail.subject).toBe('Cancelled: mail-cancel');
    expect(mails[0]!.mail.text).toContain('Changed terms');
    expect(mails[0]!.mail.attachments).toEqual([]);
  });
});

describe('stale sign requests', () => {
  it('a sign request still queued when the transaction is cancelled is not sent', async () => {
    const id = await createWithFile({ Signers: [{ Email: 'heidi@example.com', SendSignRequest: true, SignRequestMessage: 'Sign' }] });
    expect((await call(service.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
    expect((await call(service.url, 'DELETE', `/api/transaction/${id}`)).status).toBe(200);
    const before = sink.received.length;
    expect(await service.server.events.drain()).toMatchObject({ failed: 0 });
    expect(sink.received.slice(before).flatMap((m) => m.to)).not.toContain('heidi@example.com');
  });
});

describe('mail without SMTP', () => {
  it('seals the mail file under the data directory: no sign link in clear; the master key (paraph open-mail) reads it', async () => {
    const local = await startTestService();
    try {
      const created = await call(local.url, 'POST', '/api/transaction', {
        json: { Signers: [{ Email: 'dave@example.com', SendSignRequest: true, SignRequestMessage: 'Graag tekenen', Language: 'nl-NL' }] },
      });
      const id = created.json.Id as string;
      const pdf = await makePdf([['Text']]);
      await call(local.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: pdf, headers: { 'content-type': 'application/pdf' } });
      expect((await call(local.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      expect(await local.server.events.drain()).toMatchObject({ delivered: 1 });
      const signUrl = (await call(local.url, 'GET', `/api/transaction/${id}`)).json.Signers[0].SignUrl as string;
      const files = await readdir(join(local.dataDir, 'mail'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml\.sealed$/);
      const stored = await readFile(join(local.dataDir, 'mail', files[0]!), 'utf8');
      expect(stored).not.toContain(signUrl.split('/sign/')[1]);
      expect(stored).not.toContain('Graag tekenen');
      const key = createMasterKey(parseMasterKey(await readFile(join(local.dataDir, 'master.key'), 'utf8')));
      const mail = await simpleParser(openSealedMail(stored, (sealed) => key.open(sealed, MAIL_FILE_PURPOSE)));
      expect(mail.subject).toMatch(/^Verzoek tot ondertekening/);
      expect(mail.text).toContain('Graag tekenen');
      expect(mail.text).toContain(signUrl);
    } finally {
      await local.dispose();
    }
  });

  it('removes the mail files of a transaction, which carry its signed PDFs and receipt, when it is cleaned after DELETE', async () => {
    const local = await startTestService();
    try {
      const mailsOf = async (): Promise<string[]> => (await readdir(join(local.dataDir, 'mail')).catch(() => [] as string[]));
      const signAndConfirm = async (email: string): Promise<string> => {
        const created = await call(local.url, 'POST', '/api/transaction', {
          json: { Signers: [{ Email: email, SendSignRequest: true, SignRequestMessage: 'Please sign', SendSignConfirmation: true }] },
        });
        const id = created.json.Id as string;
        await call(local.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: await makePdf([['Text']]), headers: { 'content-type': 'application/pdf' } });
        expect((await call(local.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
        const token = (created.json.Signers[0].SignUrl as string).split('/sign/')[1]!;
        const api = (path: string, json: unknown) => call(local.url, 'POST', `/api/signer/${token}${path}`, { auth: false, json });
        expect((await api('/verification', { Type: 'Scribble', Image: SCRIBBLE_DATA_URL, Name: 'Kim' })).status).toBe(200);
        expect((await api('/sign', { Fields: {} })).status).toBeLessThan(300);
        await local.server.events.drain();
        return id;
      };
      const gone = await signAndConfirm('kim@example.com');
      const kept = await signAndConfirm('lou@example.com');
      const before = await mailsOf();
      expect(before.filter((f) => f.startsWith(`${gone}--`)).length).toBeGreaterThan(0); // the confirmation
      // The transaction's language is Signhost's default, nl-NL: the receipt is named in Dutch.
      const confirmation = (await readSealedMails(local.dataDir)).map((m) => m.toString('latin1')).find((m) => m.includes('bewijsrapport.pdf'));
      expect(confirmation).toBeDefined();
      expect((await call(local.url, 'DELETE', `/api/transaction/${gone}`)).status).toBe(200);
      // The documents stay downloadable during the DELETE's grace period, and so do the mails; then both go.
      expect((await mailsOf()).filter((f) => f.startsWith(`${gone}--`)).length).toBeGreaterThan(0);
      local.clock.advance(16 * 60_000);
      await local.server.worker.tick();
      expect((await mailsOf()).filter((f) => f.startsWith(`${gone}--`))).toEqual([]);
      expect((await mailsOf()).filter((f) => f.startsWith(`${kept}--`))).toEqual(before.filter((f) => f.startsWith(`${kept}--`)));
    } finally {
      await local.dispose();
    }
  });

  it('writes plain .eml files into a mail directory the operator names outside the data directory', async () => {
    const mailDir = await mkdtemp(join(tmpdir(), 'paraph-mail-'));
    const local = await startTestService({ env: { PARAPH_MAIL_DIR: mailDir } });
    try {
      const created = await call(local.url, 'POST', '/api/transaction', { json: { Signers: [{ Email: 'erin@example.com', SendSignRequest: true, SignRequestMessage: 'Please sign' }] } });
      const id = created.json.Id as string;
      await call(local.url, 'PUT', `/api/transaction/${id}/file/a.pdf`, { body: await makePdf([['Text']]), headers: { 'content-type': 'application/pdf' } });
      expect((await call(local.url, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
      expect(await local.server.events.drain()).toMatchObject({ delivered: 1 });
      const files = await readdir(mailDir);
      expect(files.filter((f) => f.endsWith('.eml'))).toHaveLength(1);
      expect((await simpleParser(await readFile(join(mailDir, files[0]!)))).text).toContain('/sign/');
    } finally {
      await local.dispose();
      await rm(mailDir, { recursive: true, force: true });
    }
  });
});

describe('templates', () => {
  it('have texts in every language for every kind; unknown languages fall back to en-US', () => {
    const kinds = ['invitation', 'reminder', 'confirmation', 'documents', 'receipt', 'cancellation', 'notification', 'verification-code'] as const;
    for (const kind of kinds) {
      const en = renderMailText({ kind, language: 'en-US', documents: ['a.pdf'], reference: 'R' });
      const nl = renderMailText({ kind, language: 'nl-NL', documents: ['a.pdf'], reference: 'R' });
      const de = renderMailText({ kind, language: 'de-DE', documents: ['a.pdf'], reference: 'R' });
      const unknown = renderMailText({ kind, language: 'xx-XX' as 'en-US', documents: ['a.pdf'], reference: 'R' });
      expect(nl.text).not.toBe(en.text);
      expect(de.text).not.toBe(en.text);
      expect(unknown).toEqual(en);
      expect(en.html).toMatch(/^<!doctype html>/);
    }
    const code = renderMailText({ kind: 'verification-code', language: 'en-US', documents: [], code: '123456' });
    expect(code.text).toContain('123456');
    expect(renderMailText({ kind: 'invitation', language: 'en-US', documents: [], subject: 'A\r\nBcc: x@y' }).subject).toBe('A Bcc: x@y');
  });

  it('From names the organisation "via paraph" unless the operator chose a display name', () => {
    expect(fromOnBehalfOf('paraph <noreply@sign.example>', 'Voorbeeld Verhuur B.V.')).toBe('"Voorbeeld Verhuur B.V. via paraph" <noreply@sign.example>');
    expect(fromOnBehalfOf('noreply@sign.example', 'Acme "Best" Ltd')).toBe('"Acme \\"Best\\" Ltd via paraph" <noreply@sign.example>');
    expect(fromOnBehalfOf('noreply@sign.example', 'paraph')).toBe('"paraph" <noreply@sign.example>');
    expect(fromOnBehalfOf('Contracts Team <contracts@acme.example>', 'Acme')).toBe('Contracts Team <contracts@acme.example>');
  });

  it('completion mails go to signers with SendSignConfirmation and to every receiver', () => {
    const rows = completionMailRows({
      Id: 't',
      Signers: [
        { SendSignRequest: false, Id: 'S1', Email: 's1@x', SendSignConfirmation: true },
        { SendSignRequest: false, Id: 'S2', Email: 's2@x' },
      ],
      Receivers: [{ Id: 'R1', Email: 'r1@x' }],
    } as unknown as Parameters<typeof completionMailRows>[0]);
    expect(rows.map((r) => r.payload)).toEqual([
      { transactionId: 't', kind: 'confirmation', signerId: 'S1', to: 's1@x' },
      { transactionId: 't', kind: 'documents', receiverId: 'R1', to: 'r1@x' },
    ]);
  });
});
