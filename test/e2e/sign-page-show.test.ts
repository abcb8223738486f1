/**
 * ShowUrl (`/show/<token>`) and ReceiptUrl (`/receipt/<token>`) over HTTP
 * (docs/design/signer-api.md#show-and-receipt-urls): pages in the signer's language; before signing the receipt is "not
 * ready" (404 page); after signing with a SecureDownload authentication the documents and the receipt ask for a fresh
 * code first (page with the code step, a file link goes back to it), the code opens them for 10 minutes; opening and
 * downloading record 302/303 (Info = fileId) and 402/403; once cleaned every URL answers 410. The Chromium journey
 * through these pages is in test/a11y/sign-page-a11y.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';

let s: SignerService;
let base: string;

beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
}, 60_000);

afterAll(async () => {
  await s.service.dispose();
});

const get = (path: string) => fetch(`${base}${path}`, { redirect: 'manual' });
const activities = async (id: string) =>
  ((await call(base, 'GET', `/api/transaction/${id}`)).json.Signers[0].Activities as { Code: number; Info?: string }[]).map((a) => (a.Info ? `${a.Code}:${a.Info}` : String(a.Code)));

async function verify(token: string, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await call(base, 'POST', `/api/signer/${token}/verification`, { json: body, auth: false });
  return { status: r.status, json: r.json as Record<string, unknown> };
}

describe('ShowUrl and ReceiptUrl', () => {
  it('not ready before 30; SecureDownload asks for a fresh code; 302/303/402/403 recorded; 410 once cleaned', async () => {
    const tx = await createSigningTransaction(base, {
      seal: false,
      signers: [{ Email: 'dora@example.com', Language: 'de-DE', Authentications: [{ Type: 'PhoneNumber', Number: '+31612345678', SecureDownload: true }], Verifications: [{ Type: 'Scribble' }] }],
    });
    const token = tx.signers[0]!.token;

    // Before the authentication: no documents, a way to the signing page; the receipt is not ready.
    const early = await get(`/show/${token}`);
    expect(early.status).toBe(200);
    const earlyHtml = await early.text();
    expect(earlyHtml).toContain('<html lang="de-DE">');
    expect(earlyHtml).toContain(`href="../sign/${token}"`);
    expect(earlyHtml).not.toContain(`/show/${token}/file/`);
    const notReady = await get(`/receipt/${token}`);
    expect(notReady.status).toBe(404);
    expect(await notReady.text()).toContain('Der Nachweis ist noch nicht fertig');

    // The signer authenticates, types a name and signs: status 30.
    expect((await verify(token, { Type: 'PhoneNumber' })).status).toBe(200);
    expect((await verify(token, { Type: 'PhoneNumber', Code: s.smsCode('Signer1') })).json.Done).toBe(true);
    expect((await verify(token, { Type: 'Scribble', Name: 'Dora Schmidt' })).json.Done).toBe(true);
    const signed = await call(base, 'POST', `/api/signer/${token}/sign`, { json: { Fields: { contract: { 'f1.city': 'Köln' } } }, auth: false });
    expect(signed.status, signed.text).toBe(200);
    expect((await call(base, 'GET', `/api/transaction/${tx.id}`)).json.Status).toBe(30);

    // SecureDownload: the pages ask for a code; a file link goes back to the page; nothing is recorded.
    const locked = await get(`/show/${token}`);
    expect(locked.status).toBe(200);
    const lockedHtml = await locked.text();
    expect(lockedHtml).toContain('Bestätigen Sie, dass Sie es sind');
    expect(lockedHtml).toContain('id="code-send"');
    expect(lockedHtml).not.toContain(`/show/${token}/file/`);
    const bounced = await get(`/show/${token}/file/contract?download=1`);
    expect(bounced.status).toBe(303);
    // Relative, so that it stays under whatever path the service is mounted at: back to /show/<token>.
    expect(bounced.headers.get('location')).toBe(`../../${token}`);
    expect(new URL(bounced.headers.get('location')!, `${base}/show/${token}/file/contract`).pathname).toBe(`/show/${token}`);
    const receiptLocked = await get(`/receipt/${token}`);
    expect(receiptLocked.status).toBe(403);
    expect(await receiptLocked.text()).toContain('id="code-input"');
    const before = await activities(tx.id);
    expect(before.filter((a) => /^(302|303|402|403)/.test(a))).toEqual([]);

    // A wrong code keeps them closed; the right one opens them.
    expect((await verify(token, { Type: 'PhoneNumber' })).json.CodeSent).toBe(true);
    const code = s.smsCode('Signer1') as string;
    expect((await verify(token, { Type: 'PhoneNumber', Code: code === '000000' ? '000001' : '000000' })).status).toBe(400);
    expect((await get(`/show/${token}/file/contract`)).status).toBe(303);
    const opened = await verify(token, { Type: 'PhoneNumber', Code: code });
    expect(opened.json.Done).toBe(true);

    const open = await get(`/show/${token}`);
    const openHtml = await open.text();
    expect(openHtml).toContain(`href="../show/${token}/file/contract"`);
    expect(openHtml).toContain(`href="../receipt/${token}?download=1"`);
    expect(openHtml).toMatch(/Sie haben am 21\. November 2026 um \d\d:\d\d UTC unterschrieben/);
    const view = await get(`/show/${token}/file/contract`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toBe('application/pdf');
    expect(view.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(Buffer.from(await view.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    const download = await get(`/show/${token}/file/annex?download=1`);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
    await download.arrayBuffer();
    const receipt = await get(`/receipt/${token}`);
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get('content-type')).toBe('application/pdf');
    await receipt.arrayBuffer();
    const receiptDownload = await get(`/receipt/${token}?download=1`);
    // Dora reads German: her receipt is the German one, named so.
    expect(receiptDownload.headers.get('content-disposition')).toMatch(/^attachment; filename="beweisprotokoll-/);
    await receiptDownload.arrayBuffer();
    expect((await get(`/show/${token}/file/nope`)).status).toBe(404);
    const after = await activities(tx.id);
    expect(after.filter((a) => /^(302|303|402|403)/.test(a))).toEqual(['302:contract', '303:annex', '402', '403']);

    // Ten minutes later the downloads are closed again.
    s.service.clock.advance(10 * 60_000);
    expect((await get(`/show/${token}/file/contract`)).status).toBe(303);
    expect((await get(`/receipt/${token}`)).status).toBe(403);

    // Cleaned (DELETE, then the grace period): 410 pages everywhere, in the browser's language (the signer's is gone).
    expect((await call(base, 'DELETE', `/api/transaction/${tx.id}`, { json: { Reason: 'done' } })).status).toBe(200);
    s.service.clock.advance(16 * 60_000);
    await s.service.server.worker.tick();
    for (const path of [`/show/${token}`, `/show/${token}/file/contract`, `/receipt/${token}`, `/sign/${token}`]) {
      const gone = await fetch(`${base}${path}`, { redirect: 'manual', headers: { 'accept-language': 'de-DE,de;q=0.9' } });
      expect(gone.status, path).toBe(410);
      expect(gone.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await gone.text()).toContain('Nicht mehr verfügbar');
    }
  }, 60_000);

  it('a signer without SecureDownload sees the documents at once; unknown tokens answer 404 in the browser language', async () => {
    const tx = await createSigningTransaction(base, { seal: false, signers: [{ Email: 'olga@example.com', Language: 'pl-PL', Verifications: [{ Type: 'Consent' }] }] });
    const token = tx.signers[0]!.token;
    const page = await get(`/show/${token}`);
    const html = await page.text();
    expect(html).toContain('<html lang="pl-PL">');
    expect(html).toContain('Jeszcze nie podpisano');
    expect(html).toContain(`href="../show/${token}/file/contract"`);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Before signing no 302/303: those are the signed documents' activities.
    await (await get(`/show/${token}/file/contract`)).arrayBuffer();
    expect((await activities(tx.id)).filter((a) => /^30[23]/.test(a))).toEqual([]);

    const unknown = await fetch(`${base}/show/${'x'.repeat(32)}`, { headers: { 'accept-language': 'fr-CH, en;q=0.5' } });
    expect(unknown.status).toBe(404);
    const text = await unknown.text();
    expect(text).toContain('<html lang="fr-FR">');
    expect(text).toContain('Ce lien n&#39;est pas valide');
    expect((await fetch(`${base}/receipt/${'x'.repeat(32)}`)).status).toBe(404);
  });
});
