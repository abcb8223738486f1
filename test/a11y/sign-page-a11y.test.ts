/**
 * Accessibility of the signing, show and receipt pages in Debian's Chromium. axe-core checks every state
 * of a walk (walk.ts: 22 states, a screenshot of each in test-artifacts/sign-page/) for the WCAG 2.0/2.1/2.2 A and AA
 * rules in en-US on a desktop, in nl-NL on a phone with reduced motion, and in de-DE at 400 % zoom (320 CSS px); no
 * state may scroll sideways on the phone or at 400 %. Also keyboard-only signing to status 30 with valid signatures,
 * and a screen-reader smoke test on Chromium's accessibility tree. The other languages' screenshots:
 * sign-page-languages.test.ts.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { call } from '../helpers/service-harness.js';
import { createSigningTransaction, inkPixels, startSignerService, type SignerService } from '../service/signer/signer-fixture.js';
import { accessibilityTree, ARTIFACTS, artifact, axeRules, CONTROL_ROLES, openWindow, shot, WCAG_TAGS } from './browser.js';
import { walk, WALK_STATES } from './walk.js';

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
    const result = await walk(s, 'en-US', 'desktop', { axe: true });
    expect(result.states.length).toBe(WALK_STATES);
    expect(result.violations).toEqual({});
    expect(result.problems).toEqual([]);
  }, 180_000);

  it('axe-core: every state in nl-NL on a phone with reduced motion — no violation, no horizontal scrolling', async () => {
    const result = await walk(s, 'nl-NL', 'phone', { axe: true, reducedMotion: true });
    expect(result.violations).toEqual({});
    expect(result.overflow).toEqual({});
    expect(result.problems).toEqual([]);
  }, 180_000);

  it('400 % zoom (320 CSS px) in de-DE: every state reflows without horizontal scrolling and passes axe', async () => {
    const result = await walk(s, 'de-DE', 'zoom400', { axe: true });
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
    // A service of its own: the walks move the shared service's clock a day ahead, and openssl checks certificates
    // issued at the service's time against the real one.
    const own = await startSignerService();
    try {
      await signWithKeyboardOnly(own.service.url);
    } finally {
      await own.service.dispose();
    }
  }, 180_000);

  async function signWithKeyboardOnly(base: string): Promise<void> {
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
      // Tab follows the page: the signature box on the check box's row, then the text field below.
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('f1.sig');
      await page.keyboard.press('Tab');
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
    expect(got.json.Signers[0].Context).toMatchObject({ contract: { agree: true, city: 'Leiden' } });
    const ca = (await call(base, 'GET', '/api/ca/signing.pem', { auth: false })).text + (await call(base, 'GET', '/api/ca/seal.pem', { auth: false })).text;
    const pdf = (await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes;
    const report = await checkSignedPdf(pdf, ca);
    expect(report.pdfsig.map((x) => x.valid), report.details).toEqual([true, true]);
    expect(report.openssl, report.details).toEqual([true, true]);
    expect(report.qpdf, report.details).toBe(true);
    // The typed name became the signature image: ink in the signer's field (Left 300, Top 200, 200×80).
    const prepared = await inkPixels((await call(base, 'GET', `/api/transaction/${tx.id}/file/contract`)).bytes, 1, { x: 300, y: 200, w: 200, h: 50 }, join(ARTIFACTS, 'keyboard-signed-contract'));
    expect(prepared).toBeGreaterThan(60);
  }

  it('screen reader smoke test: every control in the accessibility tree has a role and a name; steps are announced', async () => {
    const tx = await createSigningTransaction(base, { seal: false, signers: [{ Email: 'sam@example.com', Language: 'en-US', Verifications: [{ Type: 'PhoneNumber', Number: '+31687654321' }, { Type: 'Consent' }, { Type: 'Scribble' }] }] });
    const win = await openWindow('phone', [base]);
    const { page } = win;
    const unnamed = async (state: string) => {
      const tree = await accessibilityTree(page);
      // Landmarks and headings that take focus programmatically (tabindex -1) are not controls.
      const controls = tree.filter((n) => !n.ignored && (CONTROL_ROLES.has(n.role) || (n.focusable && !['RootWebArea', 'main', 'heading'].includes(n.role))));
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
      await expect.poll(announced, { timeout: 10_000 }).toBe('Your signature: done. Ready to sign.');
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
