/**
 * The signing page in a real headless Chromium (playwright-core driving Debian's /usr/bin/chromium):
 * two signers each open their SignUrl, see both documents, consent, draw a signature with the mouse, fill a check box
 * and a text field and sign; the transaction reaches 30 and the PDFs carry both signatures and the seal, valid in
 * pdfsig, openssl, qpdf and verifyPdf, with the drawn signature visible in a pdftoppm rendering. Also a phone-sized
 * run with a PhoneNumber code (wrong, then right) and a typed name, and a rejection run in Dutch. No request leaves
 * 127.0.0.1 and the CSP reports no violation. Screenshots of every step go to test-artifacts/sign-page/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, inkPixels, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'sign-page');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let s: SignerService;
let base: string;
let returnServer: Server;
let returnBase: string;
const returned: string[] = [];
const contexts: { context: BrowserContext; dir: string }[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  s = await startSignerService();
  base = s.service.url;
  returnServer = createServer((req, res) => {
    returned.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back at the sender</title><h1>Back at the sender</h1>');
  });
  await new Promise<void>((resolve) => returnServer.listen(0, '127.0.0.1', resolve));
  const address = returnServer.address();
  returnBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  for (const { context, dir } of contexts) {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
  await new Promise((resolve) => returnServer.close(resolve));
  await s.service.dispose();
});

/** A fresh browser (new user-data-dir) with a page that records outside requests and CSP violations. */
async function openBrowser(viewport: { width: number; height: number }, mobile = false): Promise<{ page: Page; problems: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
    viewport,
    ...(mobile ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  contexts.push({ context, dir });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(base) && !url.startsWith(returnBase) && !url.startsWith('data:') && !url.startsWith('blob:')) problems.push(`outside request: ${url}`);
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function drawSignature(page: Page): Promise<void> {
  const pad = page.locator('#pad');
  await pad.scrollIntoViewIfNeeded();
  const box = await pad.boundingBox();
  if (!box) throw new Error('signature pad not visible');
  const points = Array.from({ length: 40 }, (_, i) => {
    const t = i / 39;
    return [box.x + box.width * (0.1 + 0.8 * t), box.y + box.height * (0.5 + 0.3 * Math.sin(t * Math.PI * 4))] as const;
  });
  await page.mouse.move(points[0]![0], points[0]![1]);
  await page.mouse.down();
  for (const [x, y] of points.slice(1)) await page.mouse.move(x, y, { steps: 2 });
  await page.mouse.up();
  // A second stroke, then undo and redraw it: undo must remove only the last stroke.
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.8, { steps: 8 });
  await page.mouse.up();
}

async function signThroughPage(page: Page, signUrl: string, who: { prefix: string; name?: string; city: string }): Promise<void> {
  await page.goto(signUrl);
  await page.locator('.document').nth(1).waitFor();
  await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(3);
  await expect.poll(() => page.locator('.overlay').count()).toBe(4); // the signer's Signature, Check and SingleLine, and the default field in the annex
  expect(await page.locator('.document h3').allTextContents()).toEqual(['Service contract', 'annex']);
  await shot(page, `${who.prefix}-1-documents`);

  await page.locator('#consent-box').check();
  await page.locator('#consent-confirm').click();
  await page.locator('#step-scribble').waitFor();
  if (who.name !== undefined) await page.locator('#scribble-name').fill(who.name);
  await page.locator('#mode-draw').click();
  await drawSignature(page);
  await page.locator('#pad-undo').click();
  await drawSignature(page);
  await shot(page, `${who.prefix}-2-signature`);
  await page.locator('#scribble-confirm').click();
  await page.locator('#step-sign').waitFor();

  const fields = page.locator('.page input.on-page'); // filled where they are on the page
  await fields.nth(0).check();
  await fields.nth(1).fill(who.city);
  await shot(page, `${who.prefix}-3-ready`);
  await page.locator('#sign-button').click();
  await page.locator('#message.success').waitFor({ timeout: 30_000 });
  expect(await page.locator('#message-title').textContent()).toBe('Thank you, you have signed');
  await shot(page, `${who.prefix}-4-signed`);
}

describe('signing page in Chromium', () => {
  it('two signers draw, fill and sign: status 30, both signatures and the seal valid, the drawing visible', async () => {
    const tx = await createSigningTransaction(base, {
      signers: [
        { Email: 'alice@example.com', ScribbleName: 'Alice Janssen', Language: 'en-US', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }], ReturnUrl: `${returnBase}/done` },
        { Email: 'bob@example.com', Language: 'en-US', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] },
      ],
    });
    const prepared = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    const { page, problems } = await openBrowser({ width: 1280, height: 900 });

    // The second signer first: not their turn.
    await page.goto(tx.signers[1]!.signUrl);
    await page.locator('#message').waitFor();
    expect(await page.locator('#message-title').textContent()).toBe('It is not your turn yet');
    await shot(page, 'desktop-0-waiting');

    await signThroughPage(page, tx.signers[0]!.signUrl, { prefix: 'desktop-signer1', city: 'Delft' });
    await page.waitForURL(`${returnBase}/done?**`, { timeout: 10_000 });
    expect(new URL(page.url()).searchParams.get('sh_signerstatus')).toBe('signed');
    expect(returned).toContain(`/done?sh_transactionid=${tx.id}&sh_signerid=Signer1&sh_signerstatus=signed`);

    await signThroughPage(page, tx.signers[1]!.signUrl, { prefix: 'desktop-signer2', name: 'Bob de Vries', city: 'Utrecht' });
    expect(problems).toEqual([]);

    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(30);
    expect(got.json.Signers.map((x: { Context: unknown }) => x.Context)).toEqual([
      { contract: { agree: true, city: 'Delft' }, annex: {} },
      { contract: { agree: true, city: 'Utrecht' }, annex: {} },
    ]);
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    for (const fileId of ['contract', 'annex']) {
      const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/${fileId}`)).bytes;
      const report = await checkSignedPdf(pdf, ca);
      expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true, true, true]);
      expect(report.openssl, report.details).toEqual([true, true, true]);
      expect(report.qpdf, report.details).toBe(true);
      const verdict = await verifyPdf(pdf, { trustRoots: [ca], now: s.service.clock.now() });
      expect(verdict.valid, JSON.stringify(verdict.problems)).toBe(true);
      expect(verdict.signatures.length).toBe(3);
    }
    // The drawn signatures: ink in the art area of each signer's field (Top 200 and 400, 200×80 at Left 300).
    const signed = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    for (const [i, top] of [200, 400].entries()) {
      const region = { x: 300, y: top, w: 200, h: 50 };
      const before = await inkPixels(prepared, 1, region, join(ARTIFACTS, `prepared-${i}`));
      const after = await inkPixels(signed, 1, region, join(ARTIFACTS, `signed-contract-${i}`));
      expect(before).toBeLessThan(30); // the empty field: a light box and a grey label
      expect(after, `ink pixels before ${before}, after ${after}`).toBeGreaterThan(before + 60);
    }
  }, 120_000);

  it('phone-sized screen: PhoneNumber code (wrong, then right), typed name, sign', async () => {
    const tx = await createSigningTransaction(base, {
      seal: false,
      signers: [{ Email: 'pia@example.com', Language: 'en-US', Verifications: [{ Type: 'PhoneNumber', Number: '+31612345678' }, { Type: 'Scribble' }] }],
    });
    const { page, problems } = await openBrowser({ width: 375, height: 812 }, true);
    await page.goto(tx.signers[0]!.signUrl);
    await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(3);
    const width = await page.evaluate("document.documentElement.scrollWidth");
    expect(width).toBeLessThanOrEqual(375);
    await shot(page, 'phone-1-documents');

    await page.locator('#code-send').click();
    await page.locator('#code-entry').waitFor();
    const code = s.smsCode('Signer1') as string;
    await page.locator('#code-input').fill(code === '000000' ? '000001' : '000000');
    await page.locator('#code-verify').click();
    await page.locator('#code-error').waitFor();
    expect(await page.locator('#code-error').textContent()).toContain('The code is not correct');
    await shot(page, 'phone-2-wrong-code');
    await page.locator('#code-input').fill(code);
    await page.locator('#code-input').press('Enter');
    await page.locator('#step-scribble').waitFor();

    expect(await page.locator('#mode-type').getAttribute('aria-pressed')).toBe('true'); // typing is the default path
    await page.locator('#scribble-name').fill('Pia Bakker');
    await shot(page, 'phone-3-typed-name');
    await page.locator('#scribble-confirm').click();
    await page.locator('#step-sign').waitFor();
    const fields = page.locator('.page input.on-page'); // filled where they are on the page
    await fields.nth(1).fill('Zwolle');
    await page.locator('#sign-button').click();
    await page.locator('#message.success').waitFor({ timeout: 30_000 });
    await shot(page, 'phone-4-signed');
    expect(problems).toEqual([]);
    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(30);
    expect(got.json.Signers[0].Verifications.map((v: { Type: string }) => v.Type)).toEqual(['PhoneNumber', 'Scribble', 'IPAddress']);
  }, 90_000);

  it('rejection in Dutch: reason entered, status 40, RejectReason returned by GET', async () => {
    const tx = await createSigningTransaction(base, { language: 'nl-NL', signers: [{ Email: 'rik@example.com' }, { Email: 'sam@example.com' }] });
    const { page, problems } = await openBrowser({ width: 1024, height: 800 });
    await page.goto(tx.signers[0]!.signUrl);
    await page.locator('.document').first().waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('nl-NL');
    await page.locator('#reject-open').click();
    await page.keyboard.type('De prijs klopt niet');
    await shot(page, 'reject-1-reason');
    await page.locator('#reject-confirm').click();
    await page.locator('#message').waitFor();
    expect(await page.locator('#message-title').textContent()).toBe('U heeft de documenten geweigerd');
    await shot(page, 'reject-2-done');
    expect(problems).toEqual([]);
    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(40);
    expect(got.json.Signers[0].RejectReason).toBe('De prijs klopt niet');
  }, 60_000);

  it('page headers: CSP without inline scripts, no framing, no referrer; unknown token answers 404', async () => {
    const tx = await createSigningTransaction(base);
    const page = await fetch(tx.signers[0]!.signUrl);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+=/);
    const unknown = await fetch(`${base}/sign/${'x'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('This link is not valid');
    expect((await fetch(`${base}/sign/assets/../package.json`)).status).toBe(404);
  });
});
