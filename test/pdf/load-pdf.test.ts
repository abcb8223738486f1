import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPdf } from '../../src/pdf/load-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'paraph-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function onePagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  return doc.save();
}

describe('loadPdf', () => {
  it('opens a one-page PDF without changing its bytes', async () => {
    const bytes = await onePagePdf();
    const copy = bytes.slice();
    const doc = await loadPdf(bytes);
    expect(doc.getPageCount()).toBe(1);
    expect(bytes).toEqual(copy);
  });

  it.each([
    ['an empty file', () => new Uint8Array(0), 'PDF_EMPTY'],
    ['text that is not a PDF', () => new TextEncoder().encode('hello, world'), 'PDF_NOT_A_PDF'],
    ['a PDF header followed by garbage', () => new TextEncoder().encode('%PDF-1.7\n\x00\x01garbage'), 'PDF_UNREADABLE'],
  ])('refuses %s with %s', async (_name, make, code) => {
    await expect(loadPdf(make())).rejects.toMatchObject({ code, origin: 'input' });
  });

  it('refuses an encrypted PDF with PDF_ENCRYPTED, also when it has no user password', async () => {
    const plain = join(dir, 'plain.pdf');
    writeFileSync(plain, await onePagePdf());
    for (const userPassword of ['secret', '']) {
      const encrypted = join(dir, `encrypted-${userPassword.length}.pdf`);
      execFileSync('qpdf', ['--encrypt', userPassword, 'owner', '256', '--', plain, encrypted]);
      await expect(loadPdf(readFileSync(encrypted))).rejects.toMatchObject({
        code: 'PDF_ENCRYPTED',
        message: expect.stringMatching(/encrypted.*remove the password/),
      });
    }
  });

  it('refuses a PDF without pages with PDF_NO_PAGES', async () => {
    const doc = await PDFDocument.create();
    await expect(loadPdf(await doc.save({ addDefaultPage: false }))).rejects.toMatchObject({ code: 'PDF_NO_PAGES' });
  });
});
