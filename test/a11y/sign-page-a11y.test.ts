/**
 * Accessibility of the signing, show and receipt pages in Debian's Chromium (issue 18). One walk goes through every
 * state a signer meets — waiting for one's turn, the phone authentication (code sent, wrong code), the overview with
 * the documents and consent, the consent error, the typed and the drawn signature, missing fields, ready, the reject
 * form, signed, the receipt not ready, ShowUrl with its SecureDownload code and then the documents, signed by
 * everyone, ReceiptUrl asking for a code again, rejected, ended by another's rejection, cancelled, cleaned, not
 * started, an invalid link and expired — taking a screenshot of each in test-artifacts/sign-page/. axe-core checks
 * every state for the WCAG 2.0/2.1/2.2 A and AA rules in en-US on a desktop and in nl-NL on a phone (with reduced
 * motion); the other five languages are walked for their screenshots. Also: a 400 % zoom run (320 CSS px, no
 * horizontal scrolling), keyboard-only signing to status 30 with valid signatures, and a screen-reader smoke test on
 * Chromium's accessibility tree.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call } from '../e2e/service-harness.js';
import { createSigningTransaction, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';
import { accessibilityTree, artifact, axeRules, axeViolations, CONTROL_ROLES, openWindow, shot, WCAG_TAGS, type ViewportName } from './browser.js';

let s: SignerService;
let base: string;

beforeAll(async () => {
  s = await startSignerService();
  base = s.service.url;
}, 60_000);

afterAll(async () => {
  await s.service.dispose();
});

const visible = (page: Page, selector: string) => page.locator(selector).first().waitFor({ state: 'visible', timeout: 20_000 });

async function verifyApi(token: string, body: Record<string, unknown>): Promise<void> {
  const r = await call(base, 'POST', `/api/signer/${token}/verification`, { json: body, auth: false });
  if (r.status !== 200) throw new Error(`verification: ${r.status} ${r.text}`);
}

/** What a walk saw: axe violations by state (when axe ran), the states in order, problems of the page. */
interface WalkResult {
  readonly states: string[];
  readonly violations: Record<string, string[]>;
  readonly problems: string[];
  readonly overflow: Record<string, number>;
}

/** Walks every state in `lang` on `viewport`; `axe` runs axe-core on each. */
async function walk(lang: string, viewport: ViewportName, options: { axe: boolean; reducedMotion?: boolean }): Promise<WalkResult> {
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

    await verifyApi(b.token, { Type: 'Consent' });
    const signed = await call(base, 'POST', `/api/signer/${b.token}/sign`, { json: { Fields: { contract: { 'f2.city': 'Tczew' } } }, auth: false });
    expect(signed.status, signed.text).toBe(200);
    await page.goto(a.signUrl);
    await visible(page, '#message-receipt');
    await check('signed-by-everyone');
    s.service.clock.advance(11 * 60_000);
    await page.goto(`${base}/receipt/${a.token}`);
    await visible(page, '#secure');
    await check('receipt-secure-download');

    const t2 = await createSigningTransaction(base, { seal: false, language: lang });
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

    const draft = await call(base, 'POST', '/api/transaction', { json: { Seal: false, Language: lang, Signers: [{ Email: 'cem@example.com' }] } });
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

describe('signing page accessibility (WCAG 2.2 AA)', () => {
  it('axe-core: every state in en-US on a desktop — no WCAG 2.0/2.1/2.2 A or AA violation', async () => {
    const rules = await (async () => {
      const win = await openWindow('desktop', [base]);
      try {
        await win.page.goto(`${base}/sign/${'x'.repeat(32)}`);
        return await axeRules(win.page);
      } finally {
        await win.close();
      }
    })();
    // The rules run, listed for the record (test-artifacts/sign-page/axe-rules.txt).
    await artifact('axe-rules.txt', `axe-core tags: ${WCAG_TAGS.join(', ')}\n${rules.join('\n')}\n`);
    console.info(`axe-core rules run (${rules.length}): ${rules.join(', ')}`);
    expect(rules).toEqual(expect.arrayContaining(['color-contrast', 'label', 'target-size', 'html-has-lang', 'aria-valid-attr', 'button-name', 'link-name', 'document-title', 'bypass', 'link-in-text-block']));
    const result = await walk('en-US', 'desktop', { axe: true });
    expect(result.states.length).toBe(22);
    expect(result.violations).toEqual({});
    expect(result.problems).toEqual([]);
  }, 180_000);

  it('axe-core: every state in nl-NL on a phone with reduced motion — no violation, no horizontal scrolling', async () => {
    const result = await walk('nl-NL', 'phone', { axe: true, reducedMotion: true });
    expect(result.violations).toEqual({});
    expect(result.overflow).toEqual({});
    expect(result.problems).toEqual([]);
  }, 180_000);

  it('screenshots of every state in de-DE, fr-FR, es-ES, it-IT and pl-PL', async () => {
    for (const [lang, viewport] of [['de-DE', 'desktop'], ['fr-FR', 'phone'], ['es-ES', 'desktop'], ['it-IT', 'phone'], ['pl-PL', 'desktop']] as const) {
      const result = await walk(lang, viewport, { axe: false });
      expect(result.states.length, lang).toBe(22);
      expect(result.overflow, lang).toEqual({});
      expect(result.problems, lang).toEqual([]);
    }
  }, 400_000);

  it('400 % zoom (320 CSS px): every state reflows without horizontal scrolling and passes axe', async () => {
    const result = await walk('en-US', 'zoom400', { axe: true });
    expect(result.overflow).toEqual({});
    expect(result.violations).toEqual({});
  }, 180_000);
});

/** Presses Tab until `selector` has the focus (at most `limit` times); only the keyboard moves. */
async function tabTo(page: Page, selector: string, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

describe('keyboard and screen reader', () => {
  it('keyboard only (Tab, Enter, Space, typing): from the invitation to status 30 with valid signatures', async () => {
    const tx = await createSigningTransaction(base, { signers: [{ Email: 'kai@example.com', Language: 'en-US', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }] });
    const win = await openWindow('desktop', [base]);
    const { page } = win;
    try {
      await page.goto(tx.signers[0]!.signUrl);
      await visible(page, '#step-consent');
      await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(3);
      await tabTo(page, 'a.skip-link');
      expect(await page.locator('a.skip-link').isVisible()).toBe(true);
      await tabTo(page, 'input[data-field="f1.agree"]');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter'); // next field
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('f1.city');
      expect(await page.locator('.overlay.active').count()).toBe(1);
      expect(await page.locator('.overlay.active').isVisible()).toBe(true);
      await page.keyboard.type('Leiden');
      await tabTo(page, '#consent-box');
      await page.keyboard.press('Space');
      await tabTo(page, '#consent-confirm');
      await page.keyboard.press('Enter');
      await visible(page, '#step-scribble');
      expect(await page.evaluate<string>('document.activeElement?.id')).toBe('scribble-title');
      await tabTo(page, '#scribble-name');
      await page.keyboard.type('Kai Visser');
      await expect.poll(() => page.locator('#typed-canvas').getAttribute('aria-label')).toBe('Your signature: Kai Visser');
      await expect.poll(() => page.locator('#announcer').textContent(), { timeout: 5000 }).toBe('Your signature now reads Kai Visser.');
      await tabTo(page, '#scribble-confirm');
      await page.keyboard.press('Space');
      await visible(page, '#step-sign');
      await tabTo(page, '#sign-button');
      await shot(page, 'keyboard-ready');
      await page.keyboard.press('Enter');
      await visible(page, '#message.success');
      expect(await page.evaluate<string>('document.activeElement?.id')).toBe('message-title');
      await shot(page, 'keyboard-signed');
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
    const got = await call(base, 'GET', `/api/transaction/${tx.id}`);
    expect(got.json.Status).toBe(30);
    expect(got.json.Signers[0].Context).toEqual({ contract: { 'f1.agree': true, 'f1.city': 'Leiden' }, annex: {} });
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    const report = await checkSignedPdf(pdf, ca);
    expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true, true]);
    expect(report.openssl, report.details).toEqual([true, true]);
    expect(report.qpdf, report.details).toBe(true);
  }, 120_000);

  it('screen reader smoke test: every control in the accessibility tree has a role and a name; steps are announced', async () => {
    const tx = await createSigningTransaction(base, { seal: false, signers: [{ Email: 'sam@example.com', Language: 'en-US', Verifications: [{ Type: 'PhoneNumber', Number: '+31687654321' }, { Type: 'Consent' }, { Type: 'Scribble' }] }] });
    const win = await openWindow('phone', [base]);
    const { page } = win;
    const unnamed = async (state: string) => {
      const tree = await accessibilityTree(page);
      const controls = tree.filter((n) => !n.ignored && (CONTROL_ROLES.has(n.role) || n.focusable) && n.role !== 'RootWebArea');
      expect(controls.length, state).toBeGreaterThan(0);
      return controls.filter((n) => n.role === '' || n.name.trim() === '').map((n) => `${state}: ${n.role} "${n.name}"`);
    };
    const announced = () => page.locator('#announcer').textContent();
    try {
      await page.goto(tx.signers[0]!.signUrl);
      await visible(page, '#step-code');
      await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(3);
      const problems = [...(await unnamed('overview'))];
      const tree = await accessibilityTree(page);
      expect(tree.some((n) => n.role === 'main')).toBe(true);
      expect(tree.some((n) => n.role === 'banner')).toBe(true);
      expect(tree.some((n) => n.role === 'image' && n.name.startsWith('Service contract, page 1 of 2'))).toBe(true);
      // The text layer: the document's words are in the tree, so a screen reader reads what is signed.
      expect(tree.some((n) => n.role === 'StaticText' && n.name.includes('Article 1. Scope'))).toBe(true);

      await page.locator('#code-send').click();
      await expect.poll(announced).toContain('A code was sent to +31');
      await page.locator('#code-input').fill(s.smsCode(tx.signers[0]!.id) as string);
      await page.locator('#code-verify').click();
      await expect.poll(announced).toBe('Verify your phone number: done. Your consent.');
      problems.push(...(await unnamed('consent')));
      await page.locator('#consent-box').check();
      await page.locator('#consent-confirm').click();
      await expect.poll(announced).toBe('Your consent: done. Your signature.');
      await page.locator('#scribble-name').fill('Sam Jansen');
      problems.push(...(await unnamed('signature')));
      await page.locator('#scribble-confirm').click();
      await expect.poll(announced).toBe('Your signature: done. Ready to sign.');
      await page.locator('input[data-field="f1.city"]').fill('Ede');
      await page.locator('#sign-button').click();
      await expect.poll(announced).toBe('Signing… this takes a few seconds.');
      await visible(page, '#message.success');
      problems.push(...(await unnamed('signed')));
      expect(problems).toEqual([]);
    } finally {
      await win.close();
    }
  }, 120_000);
});
