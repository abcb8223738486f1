/**
 * Fields closer together than a phone's "fit width" can give each a 24 px target (WCAG 2.5.8): the page's list of
 * fields, the equivalent control with full-size targets, opens by itself; where every field has room it stays closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWindow } from '../a11y/browser.js';
import { startSignerService, createSigningTransaction, type SignerService } from '../service/signer/signer-fixture.js';

let s: SignerService;

beforeAll(async () => {
  s = await startSignerService();
}, 60_000);

afterAll(async () => {
  await s?.service.dispose();
});

const ONE_SIGNER = [{ Email: 'alice@example.com', ScribbleName: 'Alice Janssen', SendSignRequest: false, Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] }];

/** Whether the field list of the contract's first page is open at 375 px, once the page's controls are placed. */
async function listOpenOnPhone(moreFields?: Record<string, unknown>): Promise<boolean> {
  const tx = await createSigningTransaction(s.service.url, { signers: ONE_SIGNER, ...(moreFields ? { moreFields } : {}) });
  const win = await openWindow('phone', [s.service.url], { reducedMotion: true });
  try {
    const { page } = win;
    await page.goto(tx.signers[0]!.signUrl);
    await expect.poll(() => page.locator('.page .overlay input.on-page').count(), { timeout: 20_000 }).toBeGreaterThan(1);
    const list = page.locator('details.field-list').first();
    await expect.poll(() => list.count()).toBe(1);
    const open = (await list.getAttribute('open')) !== null;
    expect(win.problems).toEqual([]);
    return open;
  } finally {
    await win.close();
  }
}

describe('fields too close for their own targets', () => {
  it('opens the page\'s list at 375 px when two check boxes are 18 pt apart; keeps it closed when fields have room', async () => {
    expect(await listOpenOnPhone()).toBe(false);
    expect(await listOpenOnPhone({ also: { Type: 'Check', Value: 'Yes', Location: { PageNumber: 1, Left: 90, Top: 200 } } })).toBe(true);
  });
});
