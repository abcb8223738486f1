/**
 * Filling and signing on the document, in Chromium (playwright-core driving Debian's /usr/bin/chromium): a contract
 * with a check box, a radio group, a text, a date and a number field and a signature box. At 800 px every field is
 * filled by pointer on the rendered page; at 375 px by keyboard only (Tab, "Next field", Space, arrows), after the zoom
 * buttons made the page wider and sharper and "fit width" brought it back. Both runs sign; the signed PDF holds the
 * values in its fields, shows them when poppler draws the page, and its signature is valid in pdfsig. axe-core finds no
 * WCAG 2.2 A/AA violation in any state. Each state's screenshot (CSS pixels, device scale 1, reduced motion, the
 * browser's clock fixed, scrolled to the top) is compared with its reference in test/fixtures/screenshots/
 * (screenshot-reference.ts; UPDATE_SCREENSHOTS=1 rewrites them).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, axeRule, axeViolations, openWindow } from '../a11y/browser.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { darkPixelsIn, RENDERERS, renderFirstPage, type TopLeftBox } from '../helpers/page-renders.js';
import { compareWithReference } from '../helpers/screenshot-reference.js';
import { startSignerService, type SignerService } from '../service/signer/signer-fixture.js';
import { call, makePdf } from '../helpers/service-harness.js';

let s: SignerService;

beforeAll(async () => {
  s = await startSignerService();
}, 60_000);

afterAll(async () => {
  await s.service.dispose();
});

const at = (Left: number, Top: number, Width: number, Height: number): TopLeftBox => ({ Left, Top, Width, Height });
/** Where the contract's fields are, in points from the page's top-left corner. */
const BOXES = {
  agree: at(72, 200, 14, 14),
  city: at(72, 250, 160, 20),
  when: at(72, 300, 120, 20),
  amount: at(72, 350, 100, 20),
  sig: at(300, 560, 200, 80),
  basic: at(72, 400, 14, 14),
  premium: at(180, 400, 14, 14),
} as const;

/** A started one-signer transaction whose contract has a field of every fillable type and a signature box. */
async function createTransaction(language: string): Promise<{ id: string; signUrl: string }> {
  const base = s.service.url;
  const created = await call(base, 'POST', '/api/transaction', {
    json: { Seal: false, Language: language, Signers: [{ Email: 'nora@example.com', ScribbleName: 'Nora Visser', SignRequestMessage: 'Please sign.', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }] },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.json.Id as string;
  const box = (at: TopLeftBox) => ({ PageNumber: 1, ...at });
  const metadata = {
    DisplayName: 'Rental agreement',
    Signers: { Signer1: { FormSets: ['f1', 'plan'] } },
    FormSets: {
      f1: {
        agree: { Type: 'Check', Value: 'Yes', Location: box(BOXES.agree) },
        city: { Type: 'SingleLine', Location: box(BOXES.city) },
        when: { Type: 'Date', Location: box(BOXES.when) },
        amount: { Type: 'Number', Location: box(BOXES.amount) },
        sig: { Type: 'Signature', Location: box(BOXES.sig) },
      },
      plan: {
        basic: { Type: 'Radio', Value: 'Basic', Location: box(BOXES.basic) },
        premium: { Type: 'Radio', Value: 'Premium', Location: box(BOXES.premium) },
      },
    },
  };
  for (const options of [{ json: metadata }, { body: await makePdf([['Rental agreement', 'Article 1. The tenant agrees.']]), headers: { 'content-type': 'application/pdf' } }]) {
    const put = await call(base, 'PUT', `/api/transaction/${id}/file/contract`, options);
    expect(put.status, put.text).toBeLessThan(300);
  }
  expect((await call(base, 'PUT', `/api/transaction/${id}/start`)).status).toBe(204);
  const got = await call(base, 'GET', `/api/transaction/${id}`);
  return { id, signUrl: (got.json.Signers as { SignUrl: string }[])[0]!.SignUrl };
}

/** At "fit width" every page fits its card: nothing to scroll sideways. */
const pagesFit = (page: Page) => page.evaluate<boolean>("[...document.querySelectorAll('.pages')].every((el) => el.scrollWidth <= el.clientWidth)");

/** The on-page control of a field (a radio group: the button with `value`). */
const onPage = (page: Page, field: string, value?: string) => page.locator(`.page input[data-field="${field}"]${value ? `[value="${value}"]` : ''}`);

/** The browser's clock, fixed so that dates the page shows (the date field's example) are the same in every run. */
const BROWSER_TIME = new Date('2026-06-15T10:00:00Z');

/**
 * Checks one state: its screenshot (fonts loaded, scrolled to the top so the sticky zoom bar rests in place) against
 * its reference (the main states only: references are committed), and axe-core's WCAG 2.2 A/AA rules. The window is scrolled back where it was.
 */
async function checkState(page: Page, state: string, found: Record<string, string[]>, options: { reference?: boolean } = {}): Promise<void> {
  await page.evaluate('document.fonts.ready.then(() => undefined)');
  const scrolled = await page.evaluate<number>('window.scrollY');
  await page.evaluate('window.scrollTo(0, 0)');
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', scale: 'css' });
  await mkdir(ARTIFACTS, { recursive: true });
  await writeFile(join(ARTIFACTS, `on-page-${state}.png`), png);
  if (options.reference) await compareWithReference(png, `on-page-${state}`);
  await page.evaluate(`window.scrollTo(0, ${scrolled})`);
  const violations = await axeViolations(page);
  if (violations.length > 0) found[state] = violations;
  // WCAG 2.2 2.5.8 (target size, 24 CSS px or spacing) holds for every control, the fields on the page included,
  // at every zoom: axe decides each (nothing left undecided) and fails none.
  const targets = await axeRule(page, 'target-size');
  if (targets.violations.length + targets.incomplete.length > 0) found[`${state} target-size`] = [...targets.violations, ...targets.incomplete];
  const onPage = await page.evaluate<boolean>("[...document.querySelectorAll('.page .overlay input, .page button.overlay')].some((el) => el.checkVisibility())");
  if (onPage && !targets.passes.some((t) => t.includes('.overlay') || t.includes('data-field'))) found[`${state} target-size`] = ['the fields on the page were not checked'];
}

/** Presses Tab until `selector` has focus (keyboard only; fails after `max` presses). */
async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * The signed contract: the values in the signer's Context, drawn in their boxes when poppler prints the page (pdftotext
 * -bbox of the flattened page puts each word inside its field), drawn in place by three readers, its signature valid in pdfsig.
 */
async function expectSignedValues(id: string, expected: { city: string; when: string; amount: string }): Promise<void> {
  const base = s.service.url;
  const tx = await call(base, 'GET', `/api/transaction/${id}`);
  expect(tx.json.Status).toBe(30);
  expect(tx.json.Signers[0].Context).toEqual({ contract: { agree: true, city: expected.city, when: expected.when, amount: Number(expected.amount.replace(',', '.')), plan: 'Premium' } });
  const pdf = (await call(base, 'GET', `/api/transaction/${id}/file/contract`)).bytes;
  const dir = await mkdtemp(join(tmpdir(), 'paraph-on-page-'));
  try {
    await writeFile(join(dir, 'signed.pdf'), pdf);
    await promisify(execFile)('pdftocairo', ['-pdf', join(dir, 'signed.pdf'), join(dir, 'drawn.pdf')]);
    const drawn = (await promisify(execFile)('pdftotext', ['-layout', join(dir, 'drawn.pdf'), '-'])).stdout;
    for (const text of [expected.city, expected.when, expected.amount]) expect(drawn).toContain(text);
    // Each value where its field is: the words poppler drew, with their boxes, inside the field's box.
    const words = [...(await promisify(execFile)('pdftotext', ['-bbox', join(dir, 'drawn.pdf'), '-'])).stdout.matchAll(
      /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
    )].map((m) => ({ text: m[5], left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) }));
    for (const [field, text] of [['city', expected.city], ['when', expected.when], ['amount', expected.amount]] as const) {
      const b = BOXES[field];
      const word = words.find((w) => w.text === text);
      expect(word, `${text} in pdftotext -bbox`).toBeDefined();
      expect(word!.left).toBeGreaterThanOrEqual(b.Left - 1);
      expect(word!.right).toBeLessThanOrEqual(b.Left + b.Width + 1);
      expect(word!.top).toBeGreaterThanOrEqual(b.Top - 1);
      expect(word!.bottom).toBeLessThanOrEqual(b.Top + b.Height + 1);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await expectDrawnInPlace(pdf);
  const sig = await pdfsigCheck(pdf);
  expect(sig.signatures.length, sig.stdout).toBe(1);
  expect(sig.signatures.every((x) => x.valid), sig.stdout).toBe(true);
}

/**
 * The signed contract as poppler, MuPDF and PDFium draw it (2 px per point): ink inside each filled field (the border
 * left out), the checked box and the chosen radio button marked and the other button not, and nothing where no field
 * is. poppler draws the buttons too: filling leaves their /AP /N state dictionaries direct (docs/design/fields.md#filling).
 */
async function expectDrawnInPlace(pdf: Uint8Array): Promise<void> {
  const scale = 2;
  for (const renderer of RENDERERS) {
    const raster = await renderFirstPage(renderer, pdf, scale);
    const ink = (b: TopLeftBox) => darkPixelsIn(raster, b, scale, 2);
    for (const field of ['city', 'when', 'amount', 'sig'] as const) expect(ink(BOXES[field]), `${renderer}: ${field}`).toBeGreaterThan(40);
    expect(ink(at(300, 250, 160, 120)), `${renderer}: where no field is`).toBe(0);
    expect(ink(BOXES.agree), `${renderer}: agree`).toBeGreaterThan(40);
    expect(ink(BOXES.premium), `${renderer}: premium`).toBeGreaterThan(40);
    expect(ink(BOXES.basic), `${renderer}: basic`).toBeLessThan(ink(BOXES.premium) / 4);
  }
}

describe('signing on the document', () => {
  it('800 px, by pointer: each field type filled on the page, the signature box leads to the steps, signed', async () => {
    const { id, signUrl } = await createTransaction('en-US');
    const win = await openWindow('desktop', [s.service.url], { reducedMotion: true });
    const { page } = win;
    await page.setViewportSize({ width: 800, height: 900 });
    await page.clock.setFixedTime(BROWSER_TIME);
    const found: Record<string, string[]> = {};
    try {
      await page.goto(signUrl);
      await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(1);
      await expect.poll(() => page.locator('.page .overlay').count()).toBe(7);
      expect(await pagesFit(page)).toBe(true);
      // The list under the page is closed: the page's own controls are the way to fill.
      expect(await page.locator('details.field-list').getAttribute('open')).toBeNull();
      await checkState(page, 'desktop-overview', found);

      await page.locator('.page button.overlay-signature').click();
      expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('consent-title');
      await page.locator('#consent-box').click();
      await page.locator('#consent-confirm').click();
      await page.locator('#step-scribble').waitFor();
      await page.locator('#scribble-confirm').click();
      await page.locator('#step-sign').waitFor();

      await page.locator('#sign-button').click();
      await page.locator('#sign-error').waitFor();
      expect(await onPage(page, 'f1.city').getAttribute('aria-invalid')).toBe('true');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('f1.city');
      await checkState(page, 'desktop-fields-missing', found, { reference: true });

      await onPage(page, 'f1.agree').click();
      await onPage(page, 'plan', 'Premium').click();
      for (const [field, text] of [['f1.city', 'Haarlem'], ['f1.when', '2026-12-01'], ['f1.amount', '12,5']] as const) {
        await onPage(page, field).click();
        await page.keyboard.type(text);
      }
      // The list under the page follows what was filled on it.
      expect(await page.locator('input[data-list-field="f1.city"]').inputValue()).toBe('Haarlem');
      expect(await page.locator('input[data-list-field="plan"][value="Premium"]').isChecked()).toBe(true);
      expect(await page.locator('input[data-list-field="f1.agree"]').isChecked()).toBe(true);
      await checkState(page, 'desktop-filled', found);

      await page.locator('#sign-button').click();
      await page.locator('#message.success').waitFor({ timeout: 30_000 });
      await checkState(page, 'desktop-signed', found, { reference: true });
      expect(found).toEqual({});
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
    await expectSignedValues(id, { city: 'Haarlem', when: '2026-12-01', amount: '12,5' });
  }, 120_000);

  it('375 px, by keyboard: pinch allowed, zoom buttons redraw the page wider and sharper, fields filled on the page, signed', async () => {
    const { id, signUrl } = await createTransaction('nl-NL');
    const win = await openWindow('phone', [s.service.url], { locale: 'nl-NL', reducedMotion: true, deviceScaleFactor: 1 });
    const { page } = win;
    await page.clock.setFixedTime(BROWSER_TIME);
    const found: Record<string, string[]> = {};
    const width = () => page.evaluate<number>("document.querySelector('.page').getBoundingClientRect().width");
    /** The width in device pixels the page was last drawn at (the canvas, not its CSS box). */
    const drawn = () => page.evaluate<number>("Number(document.querySelector('.page').dataset.drawnWidth ?? 0)");
    try {
      await page.goto(signUrl);
      await expect.poll(() => page.locator('.page canvas').count(), { timeout: 20_000 }).toBe(1);
      const viewport = (await page.locator('meta[name="viewport"]').getAttribute('content')) ?? '';
      expect(viewport).not.toMatch(/user-scalable\s*=\s*(no|0)|maximum-scale/);
      const fit = await width();
      const fitPixels = await drawn();
      expect(fit).toBeLessThanOrEqual(375);
      expect(await pagesFit(page)).toBe(true);

      await tabTo(page, '#zoom-in');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await expect.poll(width).toBeGreaterThan(fit * 1.5);
      await expect.poll(drawn).toBeGreaterThan(fitPixels * 1.5);
      expect(await page.locator('#zoom-level').textContent()).toMatch(/156/);
      // The wider page scrolls inside its card; the window itself never scrolls sideways.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      await checkState(page, 'phone-zoomed', found);
      await tabTo(page, '#zoom-fit');
      await page.keyboard.press('Enter');
      await expect.poll(width).toBeCloseTo(fit, 0);
      expect(await pagesFit(page)).toBe(true);

      // "Next field" goes to the first required field still empty; then Tab follows the page.
      await tabTo(page, '#next-field');
      await page.keyboard.press('Enter');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('f1.city');
      await page.keyboard.type('Zwolle');
      await page.keyboard.press('Tab');
      await page.keyboard.type('2026-12-24');
      await page.keyboard.press('Tab');
      await page.keyboard.type('7');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('plan');
      await page.keyboard.press('ArrowRight');
      for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+Tab');
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-field')")).toBe('f1.agree');
      await page.keyboard.press('Space');
      expect(await onPage(page, 'f1.agree').isChecked()).toBe(true);
      expect(await onPage(page, 'plan', 'Premium').isChecked()).toBe(true);
      await checkState(page, 'phone-filled', found, { reference: true });

      await tabTo(page, '#consent-box');
      await page.keyboard.press('Space');
      await tabTo(page, '#consent-confirm');
      await page.keyboard.press('Enter');
      await page.locator('#step-scribble').waitFor();
      await tabTo(page, '#scribble-confirm');
      await page.keyboard.press('Enter');
      await page.locator('#step-sign').waitFor();
      await checkState(page, 'phone-ready', found);
      await tabTo(page, '#sign-button');
      await page.keyboard.press('Enter');
      await page.locator('#message.success').waitFor({ timeout: 30_000 });
      await checkState(page, 'phone-signed', found, { reference: true });
      expect(found).toEqual({});
      expect(win.problems).toEqual([]);
    } finally {
      await win.close();
    }
    await expectSignedValues(id, { city: 'Zwolle', when: '2026-12-24', amount: '7' });
  }, 120_000);
});
