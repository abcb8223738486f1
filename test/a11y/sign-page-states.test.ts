/**
 * The signing page's remaining states and its refusals in the signer's language. axe-core (WCAG 2.0/2.1/
 * 2.2 A and AA) and a screenshot in test-artifacts/sign-page/ for: the external-identity step (an iDIN provider is
 * configured), the provider's refusal page, and the processing state (status 20 while a signature is applied), in
 * nl-NL and de-DE on a phone and a desktop. Then API refusals met on the page — wrong code, empty reject reason, a
 * transaction cancelled while the page is open, a server failure, no connection — shown in nl-NL and de-DE, never in the API's
 * English.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transition } from '../../src/domain/transaction.js';
import type { RunningServer } from '../../src/server.js';
import { CATALOGUES } from '../../src/i18n/catalogue.js';
import type { IdentityProvider } from '../../src/service/delivery/verification-senders.js';
import { call, startTestService, TestClock, type TestService } from '../helpers/service-harness.js';
import { createSigningTransaction } from '../service/signer/signer-fixture.js';
import { axeViolations, openWindow, shot, type ViewportName } from './browser.js';

/** An iDIN provider that sends the signer straight back with a refusal. */
const refusingIdin: IdentityProvider = {
  type: 'iDIN',
  begin: async ({ returnUrl }) => ({ redirectUrl: `${returnUrl}&result=cancelled` }),
  complete: async ({ query }) => {
    throw new Error(`the bank answered ${query.result ?? 'nothing'}`);
  },
};

let service: TestService;
let server: RunningServer;
const clock = new TestClock();
const sms: { signerId: string; code: string }[] = [];

beforeAll(async () => {
  service = await startTestService({
    clock,
    env: { PARAPH_ORGANIZATION: 'Voorbeeld Verhuur B.V.', PARAPH_SENDER_NAME: 'Sanne de Vries', PARAPH_NOTIFICATION_EMAIL: 'verhuur@voorbeeld.example' },
    identityProviders: [refusingIdin],
    verificationSenders: { sms: (m) => (sms.push({ signerId: m.signerId, code: m.code }), []), email: () => [] },
  });
  server = service.server;
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

const visible = (page: Page, selector: string) => page.locator(selector).first().waitFor({ state: 'visible', timeout: 20_000 });

describe('external identity and processing states: axe-core, two languages, phone and desktop', () => {
  const runs: [string, ViewportName][] = [
    ['nl-NL', 'phone'],
    ['nl-NL', 'desktop'],
    ['de-DE', 'phone'],
    ['de-DE', 'desktop'],
  ];
  it.each(runs)('%s on a %s: no WCAG 2.0/2.1/2.2 A or AA violation', async (lang, viewport) => {
    const t = CATALOGUES[lang as keyof typeof CATALOGUES].page;
    const win = await openWindow(viewport, [server.url], { locale: lang });
    const { page } = win;
    const violations: Record<string, string[]> = {};
    const check = async (state: string) => {
      await page.evaluate('document.fonts.ready.then(() => undefined)');
      await shot(page, `${lang}-${viewport}-${state}`);
      const found = await axeViolations(page);
      if (found.length > 0) violations[state] = found;
    };
    try {
      const tx = await createSigningTransaction(server.url, { seal: false, language: lang, signers: [{ Email: 'ida@example.com', Verifications: [{ Type: 'iDIN' }, { Type: 'Consent' }] }] });
      await page.goto(tx.signers[0]!.signUrl);
      await visible(page, '#step-external');
      expect(await page.locator('#external-go').textContent()).toBe(t.externalButton.replace('{type}', 'iDIN'));
      await check('external-identity');
      // The provider refuses: the page it returns to speaks the signer's language, not the provider's English.
      await page.locator('#external-go').click();
      await page.waitForURL(/\/identity\?/);
      await visible(page, 'h1');
      expect(await page.locator('main').textContent()).toContain(t.apiErrors.identityFailed);
      expect(await page.locator('main').textContent()).not.toContain('the bank answered');
      await check('external-identity-refused');

      const two = await createSigningTransaction(server.url, { seal: false, language: lang, signers: [{ Email: 'pia@example.com', Verifications: [{ Type: 'Consent' }] }] });
      const held = (await server.store.getTransaction(two.id))!;
      await server.store.commit({ transaction: transition(held, { type: 'hold', signerId: held.Signers[0]!.Id }, new Date(clock.now().getTime())), expectedVersion: held.version });
      expect((await call(server.url, 'GET', `/api/transaction/${two.id}`)).json.Status).toBe(20);
      await page.goto(two.signers[0]!.signUrl);
      await visible(page, '#message');
      expect(await page.locator('#message').textContent()).toContain(t.processingHeading);
      await check('processing');
      expect(violations).toEqual({});
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
  }, 120_000);
});

describe('what the page starts with', () => {
  it('a check box ticked beforehand starts ticked and is signed ticked when left alone; the page says who asks', async () => {
    const tx = await createSigningTransaction(server.url, { seal: false, language: 'nl-NL', preChecked: true, signers: [{ Email: 'tess@example.com', Verifications: [{ Type: 'Consent' }] }] });
    const win = await openWindow('desktop', [server.url], { locale: 'nl-NL' });
    const { page } = win;
    try {
      let sent: unknown;
      await page.route('**/sign', async (route) => {
        sent = route.request().postDataJSON();
        await route.fulfill({ status: 500, contentType: 'application/json', body: '{}' });
      });
      await page.goto(tx.signers[0]!.signUrl);
      const box = page.locator('input[data-field="f1.agree"]');
      await box.waitFor({ state: 'visible', timeout: 20_000 });
      expect(await box.isChecked()).toBe(true);
      // Who asks: the organisation in the banner and above the greeting, the sender with their address.
      const t = CATALOGUES['nl-NL'].page;
      expect(await page.locator('#org').textContent()).toBe('Voorbeeld Verhuur B.V.');
      expect(await page.locator('#request-from').textContent()).toBe(t.requestFrom.replace('{org}', 'Voorbeeld Verhuur B.V.'));
      expect(await page.locator('#sender').textContent()).toBe(t.sender.replace('{sender}', 'Sanne de Vries · verhuur@voorbeeld.example'));
      expect(await page.locator('#sender a').getAttribute('href')).toBe('mailto:verhuur@voorbeeld.example');
      await shot(page, 'nl-NL-desktop-sender');
      expect(await axeViolations(page)).toEqual([]);
      await page.locator('#consent-box').check();
      await page.locator('#consent-confirm').click();
      await visible(page, '#step-sign');
      await page.locator('input[data-field="f1.city"]').fill('Utrecht');
      await page.locator('#sign-button').click();
      await expect.poll(() => sent).toBeDefined();
      expect(sent).toMatchObject({ Fields: { contract: { 'f1.agree': true, 'f1.city': 'Utrecht' } } });
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
  }, 60_000);

  it("a waiting signer reads the earlier signer's name, and the heading focused for them is not boxed like an alert", async () => {
    const t = CATALOGUES['nl-NL'].page;
    const tx = await createSigningTransaction(server.url, { seal: false, language: 'nl-NL' });
    const win = await openWindow('phone', [server.url], { locale: 'nl-NL' });
    const { page } = win;
    try {
      await page.goto(tx.signers[1]!.signUrl);
      await visible(page, '#message');
      const text = (await page.locator('#message').textContent()) ?? '';
      expect(text).toContain(t.waitingHeading);
      expect(text).toContain('Alice Janssen');
      expect(text).not.toContain('alice@example.com');
      expect(await page.locator('#org').isVisible()).toBe(true);
      expect(await page.locator('#org').textContent()).toBe('Voorbeeld Verhuur B.V.');
      // Focus moved to the state's heading (screen readers start there); it shows no ring or glow of the
      // focus colour, only the quiet bar of the brand colour at its start.
      await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('message-title');
      const style = await page.evaluate<{ outline: string; shadow: string }>(
        `(() => { const s = getComputedStyle(document.activeElement); return { outline: s.outlineStyle, shadow: s.boxShadow }; })()`,
      );
      expect(style.outline).toBe('none');
      expect(style.shadow).not.toContain('rgb(255, 191, 71)');
      expect(style.shadow).toContain('rgb(31, 79, 209)');
      await shot(page, 'nl-NL-phone-waiting-focused');
      expect(await axeViolations(page)).toEqual([]);
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
  }, 60_000);
});

describe("the API's refusals in the page's language", () => {
  /** The text shown in `selector`, which must hold `expected` and none of the API's English `Message`. */
  const shown = async (page: Page, selector: string, expected: string) => {
    await visible(page, selector);
    const text = (await page.locator(selector).textContent()) ?? '';
    expect(text).toContain(expected);
    return text;
  };

  it('nl-NL: a wrong code and an empty reject reason', async () => {
    const t = CATALOGUES['nl-NL'].page;
    const tx = await createSigningTransaction(server.url, { seal: false, language: 'nl-NL', signers: [{ Email: 'noor@example.com', Verifications: [{ Type: 'PhoneNumber', Number: '+31611112222' }, { Type: 'Consent' }] }] });
    const win = await openWindow('phone', [server.url], { locale: 'nl-NL' });
    const { page } = win;
    try {
      await page.goto(tx.signers[0]!.signUrl);
      await visible(page, '#step-code');
      await page.locator('#code-send').click();
      await visible(page, '#code-entry');
      const code = sms.filter((m) => m.signerId === tx.signers[0]!.id).at(-1)!.code;
      await page.locator('#code-input').fill(code === '123456' ? '654321' : '123456');
      await page.locator('#code-verify').click();
      const wrong = await shown(page, '#code-error', t.apiErrors.codeWrong);
      expect(wrong).not.toMatch(/code is not correct/i);
      await shot(page, 'nl-NL-phone-error-code-wrong');
      await page.locator('#code-input').fill(code);
      await page.locator('#code-verify').click();
      await visible(page, '#step-consent');
      await page.locator('#reject-open').click();
      await page.locator('#reject-confirm').click();
      const reason = await shown(page, '#reject-error', t.apiErrors.rejectReason);
      expect(reason).not.toContain('Reason:');
      expect(await page.locator('#reject-reason').getAttribute('aria-invalid')).toBe('true');
      await shot(page, 'nl-NL-phone-error-reject-reason');
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
  }, 60_000);

  it('de-DE: a server failure, no connection, and a transaction cancelled meanwhile', async () => {
    const t = CATALOGUES['de-DE'].page;
    const tx = await createSigningTransaction(server.url, { seal: false, language: 'de-DE', signers: [{ Email: 'dirk@example.com', Verifications: [{ Type: 'Consent' }] }] });
    const win = await openWindow('desktop', [server.url], { locale: 'de-DE' });
    const { page } = win;
    try {
      await page.goto(tx.signers[0]!.signUrl);
      await visible(page, '#step-consent');
      await page.locator('#consent-box').check();
      await page.locator('#consent-confirm').click();
      await visible(page, '#step-sign');

      // The server fails (500 with an English body) on the reject, then the connection is gone.
      await page.route('**/reject', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"Message":"An internal error occurred; it has been logged."}' }));
      await page.locator('#reject-open').click();
      await page.locator('#reject-reason').fill('Falscher Betrag');
      await page.locator('#reject-confirm').click();
      expect(await shown(page, '#reject-error', t.apiErrors.server)).not.toContain('internal error');
      await page.unroute('**/reject');
      await page.route('**/reject', (route) => route.abort('internetdisconnected'));
      await page.locator('#reject-confirm').click();
      await expect.poll(() => page.locator('#reject-error').textContent()).toContain(t.apiErrors.network);
      await page.unroute('**/reject');
      await page.locator('#reject-cancel').click();

      // The sender cancels meanwhile: the page's signature is refused in German.
      expect((await call(server.url, 'DELETE', `/api/transaction/${tx.id}`, { json: { Reason: 'Wrong amount' } })).status).toBe(200);
      await page.locator('input[data-field="f1.city"]').fill('Köln');
      await page.locator('#sign-button').click();
      expect(await shown(page, '#sign-error', t.apiErrors.ended)).not.toMatch(/ended|cancel/i);
      await shot(page, 'de-DE-desktop-error-cancelled-meanwhile');
    } finally {
      await win.close();
    }
  }, 60_000);
});
