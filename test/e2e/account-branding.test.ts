/**
 * An account's branding on what its signers see: the display name as the organisation on the signing page and in the
 * mails (From "<DisplayName> via paraph", header, footer), its Reply-To, and its colour as the accent, darkened where
 * white on it would fall below 4.5:1; its logo, uploaded through the admin API, served by the service itself on the
 * page (small, its alt text the display name) and carried inside each mail as an inline part. An account without
 * branding gets the service-wide organisation and colours, and no logo. The page is checked in Chromium (axe
 * included, at 375 and 800 px; the page with the logo, and the invitation mail with it, compared with their reference
 * screenshots in test/fixtures/screenshots/branding-logo-*.png), the mails as an SMTP server receives them.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/domain/account.js';
import { renderMailText } from '../../src/events/mail-templates.js';
import { accentOf, contrastWithWhite } from '../../src/service/delivery/accent-color.js';
import { startSmtpSink, type SmtpSink } from '../../src/testing/start-smtp-sink.js';
import { axeRule, axeViolations, openWindow } from '../a11y/browser.js';
import { compareWithReference } from '../helpers/screenshot-reference.js';
import { call, startTestService, type TestService } from '../helpers/service-harness.js';
import { createSigningTransaction } from '../service/signer/signer-fixture.js';
import { smallPng } from '../service/branding/logo-fixtures.js';

const SERVICE_ORG = 'Paraph Diensten';
const ADMIN_TOKEN = 'admin-token-0123456789-0123456789-abcdef';
/** The browser's clock, fixed so that any date the page shows is the same in every run. */
const BROWSER_TIME = new Date('2026-06-15T10:00:00Z');
const BRANDING = { DisplayName: 'Voorbeeld Verhuur B.V.', Color: '#ffcc00', ReplyTo: 'vragen@voorbeeld.example' };

let sink: SmtpSink;
let service: TestService;

beforeAll(async () => {
  sink = await startSmtpSink();
  service = await startTestService({
    env: { PARAPH_SMTP_URL: sink.url, PARAPH_NOTIFICATION_EMAIL: 'sender@example.com', PARAPH_ORGANIZATION: SERVICE_ORG, PARAPH_ADMIN_TOKEN: ADMIN_TOKEN },
  });
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  await sink?.close();
});

async function setBranding(branding: Account['Branding']): Promise<void> {
  const [account] = await service.server.store.listAccounts();
  if (account === undefined) throw new Error('the test service has no account');
  const { Branding: _old, ...rest } = account;
  await service.server.store.updateAccount(branding === undefined ? rest : { ...rest, Branding: branding });
}

/** Starts a transaction for one invited signer; returns the sign request mail and the signer's session and URL. */
async function invite(): Promise<{ mail: ParsedMail; session: Record<string, unknown>; signUrl: string }> {
  const before = sink.received.length;
  const tx = await createSigningTransaction(service.url, {
    signers: [{ Email: 'alice@example.com', ScribbleName: 'Alice Janssen', SendSignRequest: true, Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }],
  });
  await service.server.events.drain();
  const raw = sink.received.slice(before).find((m) => m.to.includes('alice@example.com'));
  if (raw === undefined) throw new Error('no sign request was sent');
  const signer = tx.signers[0]!;
  const session = await call(service.url, 'GET', `/api/signer/${signer.token}`, { auth: false });
  expect(session.status).toBe(200);
  return { mail: await simpleParser(raw.raw, { skipImageLinks: true }), session: session.json as Record<string, unknown>, signUrl: signer.signUrl };
}

describe('account branding', () => {
  it('an account without branding: the service-wide organisation in the session, From and footer; the mails\' own colour', async () => {
    await setBranding(undefined);
    const { mail, session } = await invite();
    expect(session.Sender).toEqual({ Organization: SERVICE_ORG, Email: 'sender@example.com' });
    expect(mail.from?.value).toEqual([{ name: `${SERVICE_ORG} via paraph`, address: expect.stringMatching(/^noreply@/) }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'sender@example.com' }]);
    expect(mail.text).toContain(SERVICE_ORG);
    expect(mail.html).toContain('background:#1f4e99');
    expect(mail.attachments).toEqual([]);
    expect(mail.html).not.toContain('<img');
  });

  it('an account with branding: its display name, Reply-To and colour (made readable) in the session, mail and page', async () => {
    await setBranding(BRANDING);
    const accent = accentOf(BRANDING.Color)!;
    // #ffcc00 under white text is 1.6:1; the accent is the same hue, darkened to at least 4.5:1.
    expect(contrastWithWhite([0xff, 0xcc, 0x00])).toBeLessThan(2);
    expect(contrastWithWhite([1, 3, 5].map((i) => parseInt(accent.color.slice(i, i + 2), 16)))).toBeGreaterThanOrEqual(4.5);

    const { mail, session, signUrl } = await invite();
    expect(session.Sender).toEqual({ Organization: BRANDING.DisplayName, Email: 'sender@example.com', Color: accent.color, ColorDark: accent.dark });
    expect(mail.from?.value).toEqual([{ name: 'Voorbeeld Verhuur B.V. via paraph', address: expect.stringMatching(/^noreply@/) }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: BRANDING.ReplyTo }]);
    const footer = (mail.text ?? '').split('\n--\n')[1] ?? '';
    expect(footer).toContain(BRANDING.DisplayName);
    expect(footer).not.toContain(SERVICE_ORG);
    expect(mail.text).not.toContain('B.V..');
    expect(mail.html).toContain(`background:${accent.color}`);
    expect(mail.html).not.toContain('#1f4e99');

    const win = await openWindow('phone', [service.url], { reducedMotion: true });
    try {
      const { page } = win;
      await page.goto(signUrl);
      await expect.poll(() => page.locator('#org').isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await page.locator('#org').textContent()).toBe(BRANDING.DisplayName);
      expect(await page.locator('#request-from').textContent()).toContain(BRANDING.DisplayName);
      const brand = await page.evaluate<string>(`getComputedStyle(document.documentElement).getPropertyValue('--brand').trim()`);
      expect(brand).toBe(accent.color);
      const hex = (rgb: string) => `#${(rgb.match(/\d+/g) ?? []).slice(0, 3).map((c) => Number(c).toString(16).padStart(2, '0')).join('')}`;
      const primaryBackground = await page.evaluate<string>(
        `getComputedStyle([...document.querySelectorAll('.button.primary')].find((b) => b.checkVisibility())).backgroundColor`,
      );
      expect(hex(primaryBackground)).toBe(accent.color);
      expect((await axeRule(page, 'color-contrast')).violations).toEqual([]);
      // No logo is fetched from the account's address: the page asks its own origin only.
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
  });

  it('an account with a logo: served by the service on the page, small, named by the display name; inline in the mail', async () => {
    await setBranding(BRANDING);
    const [account] = await service.server.store.listAccounts();
    const logo = smallPng(600, 200);
    const set = await call(service.url, 'PUT', `/api/admin/accounts/${account!.Id}/logo`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' }, body: logo });
    expect(set.status, set.text).toBe(200);
    const { Url: logoUrl } = set.json.Logo as { Url: string };

    const { mail, session, signUrl } = await invite();
    expect((session.Sender as Record<string, unknown>).Logo).toBe(logoUrl);
    // In the mail: one inline part, shown by its Content-ID; no address of the service or anyone else to load it from.
    const inline = mail.attachments.filter((a) => a.contentDisposition === 'inline');
    expect(inline).toHaveLength(1);
    expect(inline[0]!.contentType).toBe('image/png');
    expect(mail.html).toContain(`src="cid:${inline[0]!.cid}"`);
    expect(mail.html).toContain(`alt="${BRANDING.DisplayName}"`);
    expect(mail.html).toMatch(/<img [^>]*width="120" height="40"/);
    expect(mail.html).not.toContain(logoUrl);

    for (const [viewport, width] of [['phone', 375], ['desktop', 800]] as const) {
      const win = await openWindow(viewport, [service.url], { reducedMotion: true });
      try {
        const { page } = win;
        if (viewport === 'desktop') await page.setViewportSize({ width, height: 900 });
        await page.clock.setFixedTime(BROWSER_TIME);
        const logoAnswers: string[] = [];
        page.on('response', (r) => void (r.url().includes('/sign/logo/') && logoAnswers.push(`${r.status()} ${r.headers()['content-type'] ?? ''}`)));
        await page.goto(signUrl);
        await expect.poll(() => page.locator('#org-logo').isVisible(), { timeout: 20_000 }).toBe(true);
        await expect.poll(() => page.evaluate<boolean>(`document.getElementById('org-logo').complete && document.getElementById('org-logo').naturalWidth === 600`)).toBe(true);
        expect(await page.locator('#org-logo').getAttribute('alt')).toBe(BRANDING.DisplayName);
        expect(logoAnswers).toEqual(['200 image/png']);
        const box = await page.locator('#org-logo').boundingBox();
        expect(box!.height).toBeLessThanOrEqual(32);
        expect(box!.width).toBeLessThanOrEqual(120);
        expect(await page.locator('#org').textContent()).toBe(BRANDING.DisplayName);
        expect(await axeViolations(page)).toEqual([]);
        expect(win.problems).toEqual([]);
        // The page with the logo, compared with its reference once fonts are loaded, the three pages (contract, annex) drawn
        // and the layout has stopped moving (the same height for ten frames).
        await page.evaluate('document.fonts.ready.then(() => undefined)');
        await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(3);
        await page.evaluate(`new Promise((resolve) => {
          let last = -1, same = 0;
          const tick = () => {
            const h = document.documentElement.scrollHeight;
            same = h === last ? same + 1 : 0;
            last = h;
            if (same >= 10) resolve(undefined); else requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        })`);
        // No signature box shows text cut off: each shows its whole label or, where that does not fit, a pen; the
        // accessible name is always the whole label.
        const signatureBoxes = await page.locator('.page button.overlay-signature').evaluateAll((buttons) => buttons.map((b) => ({
          name: b.getAttribute('aria-label'),
          shown: b.textContent,
          clipped: b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1,
        })));
        expect(signatureBoxes.length).toBeGreaterThan(0);
        for (const b of signatureBoxes) {
          expect(b.name).toBe('Hier ondertekenen: Alice Janssen');
          expect([b.name, '\u270E']).toContain(b.shown);
          expect(b.clipped).toBe(false);
        }
        const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', scale: 'css' });
        await compareWithReference(png, `branding-logo-${viewport}`);
      } finally {
        await win.close();
      }
    }
    const removed = await call(service.url, 'DELETE', `/api/admin/accounts/${account!.Id}/logo`, { auth: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(removed.status).toBe(200);
  });

  it('the invitation mail with the logo, rendered at 375 and 800 px, matches its reference screenshots', async () => {
    const logo = smallPng(600, 200);
    const mail = renderMailText({
      kind: 'invitation',
      language: 'nl-NL',
      signUrl: 'https://sign.example.test/sign/tok123',
      reference: 'LEASE-2026-042',
      documents: ['Lease agreement.pdf'],
      organization: BRANDING.DisplayName,
      contact: BRANDING.ReplyTo,
      expiresAt: new Date('2026-12-24T12:00:00Z'),
      accent: accentOf(BRANDING.Color)!.color,
      logo: { cid: 'logo-test@paraph', width: 600, height: 200 },
    });
    // A mail program shows the inline part where the Content-ID is referenced; here the same bytes as a data URL.
    const html = mail.html.replace('cid:logo-test@paraph', `data:image/png;base64,${Buffer.from(logo).toString('base64')}`);
    expect(html).not.toBe(mail.html);
    for (const [viewport, width] of [['phone', 375], ['desktop', 800]] as const) {
      const win = await openWindow(viewport, [], { reducedMotion: true });
      try {
        const { page } = win;
        await page.setViewportSize({ width, height: 700 });
        await page.setContent(html);
        await expect.poll(() => page.evaluate<boolean>(`[...document.images].every((img) => img.complete && img.naturalWidth === 600)`)).toBe(true);
        const png = await page.screenshot({ fullPage: true, animations: 'disabled', scale: 'css' });
        await compareWithReference(png, `branding-logo-mail-${viewport}`);
        expect(win.problems).toEqual([]);
      } finally {
        await win.close();
      }
    }
  });
});
