/**
 * One walk through every state a signer meets on the signing, show and receipt pages, in one language on
 * one viewport, with a screenshot of each in test-artifacts/sign-page/ and, on request, axe-core's WCAG 2.0/2.1/2.2
 * A and AA check of each: waiting for one's turn, the phone authentication (code sent, wrong code), the overview
 * with the documents and consent, the consent error, the typed and the drawn signature, missing fields, ready with
 * the reject form, signed, the receipt not ready, ShowUrl with its SecureDownload code and then the documents,
 * signed by everyone, ReceiptUrl asking for a code again, rejected, ended by another's rejection, cancelled,
 * cleaned, not started, an invalid link and expired. The service's clock moves forward during a walk.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, type SignerService } from '../service/signer/signer-fixture.js';
import { axeViolations, openWindow, shot, type ViewportName } from './browser.js';

/** The states a walk visits, in order. */
export const WALK_STATES = 22;

export const visible = (page: Page, selector: string) => page.locator(selector).first().waitFor({ state: 'visible', timeout: 20_000 });

async function verifyApi(s: SignerService, token: string, body: Record<string, unknown>): Promise<void> {
  const r = await call(s.service.url, 'POST', `/api/signer/${token}/verification`, { json: body, auth: false });
  if (r.status !== 200) throw new Error(`verification: ${r.status} ${r.text}`);
}

/** What a walk saw: axe violations by state (when axe ran), the states in order, problems of the page. */
export interface WalkResult {
  readonly states: string[];
  readonly violations: Record<string, string[]>;
  readonly problems: string[];
  readonly overflow: Record<string, number>;
}

/** Walks every state in `lang` on `viewport`; `axe` runs axe-core on each. */
export async function walk(s: SignerService, lang: string, viewport: ViewportName, options: { axe: boolean; reducedMotion?: boolean }): Promise<WalkResult> {
  const base = s.service.url;
  const win = await openWindow(viewport, [base], { locale: lang, ...(options.reducedMotion ? { reducedMotion: true } : {}) });
  const { page } = win;
  const states: string[] = [];
  const violations: Record<string, string[]> = {};
  const overflow: Record<string, number> = {};
  const width = page.viewportSize()?.width ?? 0;
  const started = Date.now();
  const check = async (state: string) => {
    if (process.env.A11Y_TIMING) console.info(`${lang} ${viewport} ${state} at ${Date.now() - started} ms`);
    await page.evaluate('document.fonts.ready.then(() => undefined)');
    states.push(state);
    await shot(page, `${lang}-${viewport}-${String(states.length).padStart(2, '0')}-${state}`);
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (scrollWidth > width) overflow[state] = scrollWidth;
    if (options.axe) {
      const found = await axeViolations(page);
      if (found.length > 0) violations[state] = found;
    }
  };
  try {
    const t1 = await createSigningTransaction(base, {
      seal: false,
      language: lang,
      signers: [
        { Email: 'anna@example.com', ScribbleName: 'Anna Nowak', Authentications: [{ Type: 'PhoneNumber', Number: '+31612345678', SecureDownload: true }], Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] },
        { Email: 'ben@example.com', Verifications: [{ Type: 'Consent' }] },
      ],
    });
    const [a, b] = t1.signers as [(typeof t1.signers)[number], (typeof t1.signers)[number]];

    await page.goto(b.signUrl);
    await visible(page, '#message');
    await check('waiting');

    await page.goto(a.signUrl);
    await visible(page, '#step-code');
    await check('verify-phone');
    await page.locator('#code-send').click();
    await visible(page, '#code-entry');
    const code = s.smsCode(a.id) as string;
    await page.locator('#code-input').fill(code === '000000' ? '000001' : '000000');
    await page.locator('#code-verify').click();
    await visible(page, '#code-error');
    await check('code-wrong');
    await page.locator('#code-input').fill(code);
    await page.locator('#code-input').press('Enter');
    await visible(page, '#step-consent');
    await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(3);
    await expect.poll(() => page.locator('.textLayer span').count()).toBeGreaterThan(2);
    if (options.reducedMotion) expect(await page.evaluate<string>("getComputedStyle(document.querySelector('.overlay')).animationName")).toBe('none');
    await check('overview');

    await page.locator('#consent-confirm').click();
    await visible(page, '#consent-error');
    expect(await page.locator('#consent-box').getAttribute('aria-invalid')).toBe('true');
    await check('consent-missing');
    await page.locator('#consent-box').check();
    await page.locator('#consent-confirm').click();
    await visible(page, '#step-scribble');
    await check('signature-typed');
    await page.locator('#mode-draw').click();
    await visible(page, '#pad');
    await check('signature-draw');
    await page.locator('#mode-type').click();
    await page.locator('#scribble-confirm').click();
    await visible(page, '#step-sign');

    await page.locator('#sign-button').click();
    await visible(page, '#sign-error');
    const city = page.locator('input[data-field="f1.city"]');
    expect(await city.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('f1.city');
    // The field is shown on its page where it will appear, and the page went there.
    expect(await page.locator('.overlay.active').count()).toBe(1);
    expect(await page.locator('.overlay.active').isVisible()).toBe(true);
    await check('fields-missing');
    await city.fill('Gdańsk');
    await page.locator('input[data-field="f1.agree"]').check();
    await page.locator('#reject-open').click();
    await visible(page, '#reject-form');
    await check('ready-and-reject-form');
    await page.locator('#reject-cancel').click();
    await page.locator('#sign-button').click();
    await visible(page, '#message.success');
    await check('signed');

    await page.goto(`${base}/receipt/${a.token}`);
    await check('receipt-not-ready');
    await page.goto(`${base}/show/${a.token}`);
    await visible(page, '#secure');
    await check('show-secure-download');
    await page.locator('#code-send').click();
    await visible(page, '#code-entry');
    await page.locator('#code-input').fill(s.smsCode(a.id) as string);
    await page.locator('#code-input').press('Enter');
    await visible(page, '.doc-list');
    await check('show-documents');

    await verifyApi(s, b.token, { Type: 'Consent' });
    const signed = await call(base, 'POST', `/api/signer/${b.token}/sign`, { json: { Fields: { contract: { 'f2.city': 'Tczew' } } }, auth: false });
    expect(signed.status, signed.text).toBe(200);
    await page.goto(a.signUrl);
    await visible(page, '#message-receipt');
    await check('signed-by-everyone');
    s.service.clock.advance(11 * 60_000);
    await page.goto(`${base}/receipt/${a.token}`);
    await visible(page, '#secure');
    await check('receipt-secure-download');

    // No ReturnUrl: the page would leave for it 2.5 s after the rejection.
    const t2 = await createSigningTransaction(base, { seal: false, language: lang, signers: [{ Email: 'dana@example.com', Verifications: [{ Type: 'Consent' }] }, { Email: 'eli@example.com', Verifications: [{ Type: 'Consent' }] }] });
    await page.goto(t2.signers[0]!.signUrl);
    await visible(page, '#step-consent');
    await page.locator('#reject-open').click();
    await page.locator('#reject-reason').fill('—');
    await page.locator('#reject-confirm').click();
    await visible(page, '#message');
    await check('rejected');
    await page.goto(t2.signers[1]!.signUrl);
    await visible(page, '#message');
    await check('ended-rejected-by-another');

    const t3 = await createSigningTransaction(base, { seal: false, language: lang });
    expect((await call(base, 'DELETE', `/api/transaction/${t3.id}`, { json: { Reason: 'x' } })).status).toBe(200);
    await page.goto(t3.signers[0]!.signUrl);
    await check('cancelled');
    s.service.clock.advance(16 * 60_000);
    await s.service.server.worker.tick();
    await page.goto(t3.signers[0]!.signUrl);
    await check('cleaned');

    const draft = await call(base, 'POST', '/api/transaction', { json: { Seal: false, Language: lang, Signers: [{ SendSignRequest: false, Email: 'cem@example.com' }] } });
    await page.goto((await call(base, 'GET', `/api/transaction/${draft.json.Id as string}`)).json.Signers[0].SignUrl as string);
    await visible(page, '#message');
    await check('not-started');
    await page.goto(`${base}/sign/${'x'.repeat(32)}`);
    await check('invalid-link');

    const t4 = await createSigningTransaction(base, { seal: false, language: lang, transaction: { DaysToExpire: 1 } });
    s.service.clock.advance(86_400_000 + 1000);
    await s.service.server.worker.tick();
    await page.goto(t4.signers[0]!.signUrl);
    await visible(page, '#message');
    await check('expired');
    expect(await page.locator('html').getAttribute('lang')).toBe(lang);
    return { states, violations, problems: win.problems, overflow };
  } finally {
    await win.close();
  }
}

