/**
 * Every mail kind in every language of the signing page, rendered in Chromium at phone (375 px)
 * and desktop (800 px) width to test-artifacts/mails/ (look at them), and checked where a reader would notice:
 * a whole HTML document in the mail's language, who asks, one button whose link is the one in the plain-text part,
 * the expiry date in the language's own format, no horizontal scrolling on a phone, and no text of another moment
 * (a confirmation never asks to sign). The Dutch invitation's renders are compared with references in
 * test/fixtures/screenshots/ (UPDATE_SCREENSHOTS=1 rewrites them).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/i18n/languages.js';
import { renderMailText, type MailTextInput } from '../../src/events/mail-templates.js';
import type { MailPayloadKind } from '../../src/service/delivery/mail-payload.js';
import { CATALOGUES } from '../../src/i18n/catalogue.js';
import { compareWithReference } from '../helpers/screenshot-reference.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'mails');
const SIGN_URL = 'https://sign.example.test/sign/tok123';
const TX_URL = 'https://sign.example.test/api/transaction/0b5e0c1e-0000-4000-8000-000000000001';
const EXPIRES = new Date('2026-12-24T12:00:00Z');

const CASES: readonly (Omit<MailTextInput, 'language' | 'documents' | 'organization' | 'contact' | 'expiresAt'> & { name: string })[] = [
  { name: 'invitation', kind: 'invitation', signUrl: SIGN_URL, message: 'Hello Jan,\nplease sign the lease for flat 3B.' },
  { name: 'reminder', kind: 'reminder', signUrl: SIGN_URL },
  { name: 'confirmation', kind: 'confirmation' },
  { name: 'documents', kind: 'documents', message: 'Here is your copy.' },
  { name: 'receipt', kind: 'receipt' },
  { name: 'cancellation', kind: 'cancellation', cancelReason: 'The flat was let to someone else.' },
  { name: 'notice-signed', kind: 'notification', event: 'signed', signerNames: ['Jan Jansen', 'Eva de Vries'], transactionUrl: TX_URL },
  { name: 'notice-rejected', kind: 'notification', event: 'rejected', signerNames: ['Jan Jansen'], transactionUrl: TX_URL },
  { name: 'notice-expired', kind: 'notification', event: 'expired', transactionUrl: TX_URL },
  { name: 'verification-code', kind: 'verification-code', code: '482913' },
];

function render(language: (typeof LANGUAGES)[number], c: (typeof CASES)[number]) {
  const { name: _name, ...rest } = c;
  return renderMailText({
    ...rest,
    language,
    reference: 'LEASE-2026-042',
    documents: ['Lease agreement.pdf'],
    organization: 'Acme Housing B.V.',
    contact: 'lettings@acme.example',
    expiresAt: EXPIRES,
  });
}

/** The renders compared with a committed reference at both widths (screenshot-reference.ts): the mail every signer gets first. */
const REFERENCES = new Set(['invitation-nl-NL']);

const ASKS_TO_SIGN = new Set<MailPayloadKind>(['invitation', 'reminder']);

describe('mail renders', () => {
  let browser: Browser;
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => browser?.close());

  it('texts fit their moment in every language: who asks, one button with the plain-text link, expiry, contact, organization', () => {
    for (const language of LANGUAGES) {
      const t = CATALOGUES[language].mail;
      const date = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(EXPIRES);
      for (const c of CASES) {
        const mail = render(language, c);
        const where = `${language} ${c.name}`;
        expect(mail.html, where).toMatch(new RegExp(`^<!doctype html>\\n<html lang="${language}">`));
        expect(mail.html, where).toContain(`<title>${mail.subject.replace(/&/g, '&#38;')}</title>`);
        expect(mail.html, where).not.toMatch(/<script|<link|<style|class=/);
        expect(mail.text + mail.html, where).not.toMatch(/\{\w+\}|paraph\./);
        expect(mail.text, where).toContain('Acme Housing B.V.');
        // An organisation whose name ends in a full stop ends the footer's sentence with it, once.
        expect(mail.text + mail.html, where).not.toContain('B.V..');
        expect(mail.text, where).toContain('lettings@acme.example');
        const links = [...mail.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
        const wanted = c.signUrl ?? c.transactionUrl;
        // The button and, under it, the same address written out for mail programs that drop buttons.
        expect(links, where).toEqual(wanted === undefined ? [] : [wanted, wanted]);
        if (wanted !== undefined) expect(mail.text + mail.html, where).toContain(t.fallback);
        // A link that opens the documents, or a code, comes with the line not to pass it on.
        expect(mail.text.includes(t.security), where).toBe(c.signUrl !== undefined);
        expect(mail.text.includes(t.codeSecurity), where).toBe(c.code !== undefined);
        if (wanted !== undefined) expect(mail.text, where).toContain(wanted);
        expect(mail.text.includes(date), where).toBe(ASKS_TO_SIGN.has(c.kind));
        expect(mail.text.includes(t.signLink), where).toBe(ASKS_TO_SIGN.has(c.kind));
        if (!ASKS_TO_SIGN.has(c.kind)) expect(mail.subject, where).not.toBe(t.subject.invitation.replace('{ref}', 'LEASE-2026-042'));
        if (c.event === 'signed') expect(mail.text, where).toContain('Jan Jansen, Eva de Vries');
        if (c.event === 'rejected') expect(mail.text, where).toContain('Jan Jansen');
      }
    }
  });

  for (const [width, label] of [[375, 'phone'], [800, 'desktop']] as const) {
    it(`renders every mail in every language at ${label} width (${width} px) without horizontal scrolling`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 700 }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
      await page.route('**/*', (route) => route.abort());
      try {
        for (const language of LANGUAGES) {
          for (const c of CASES) {
            await page.setContent(render(language, c).html);
            const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
            expect(overflow, `${language} ${c.name}`).toBeLessThanOrEqual(0);
            const png = await page.screenshot({ path: join(ARTIFACTS, `${c.name}-${language}-${label}.png`), fullPage: true, animations: 'disabled' });
            if (REFERENCES.has(`${c.name}-${language}`)) await compareWithReference(png, `mail-${c.name}-${language}-${label}`);
          }
        }
      } finally {
        await page.close();
      }
    }, 60_000);
  }
});
