/**
 * The receipt in each of its seven languages, read back with poppler's pdftotext: its own title, section headings,
 * introduction and verification steps appear character for character (Polish ą ć ę ł ń ó ś ź ż, German ß and „ “,
 * French « », accents), and nothing was drawn as U+FFFD.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReceipt } from '../../src/receipt/receipt.js';
import { RECEIPT_LANGUAGES, receiptTextFor } from '../../src/receipt/receipt-text.js';
import { DOCUMENTS, sampleAuditLog, sampleTransaction } from './sample-transaction.js';

const exec = promisify(execFile);
const GENERATED_AT = new Date('2026-06-01T10:00:00Z');
const squeeze = (s: string): string => s.replace(/\s+/g, '');

describe('receipt in every language (pdftotext)', () => {
  let dir = '';
  const texts = new Map<string, string>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paraph-receipt-languages-'));
    for (const language of RECEIPT_LANGUAGES) {
      const file = join(dir, `${language}.pdf`);
      await writeFile(file, await renderReceipt({ transaction: sampleTransaction(language), documents: DOCUMENTS, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT }));
      texts.set(language, (await exec('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 64 << 20 })).stdout);
    }
  }, 60_000);
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each(RECEIPT_LANGUAGES)('%s: title, sections, introduction, steps and page numbers in its own words', (language) => {
    const t = receiptTextFor(language);
    const text = texts.get(language) ?? '';
    const flat = squeeze(text);
    const pages = text.split('\f').filter((page) => page.trim() !== '').length; // pdftotext ends each page with a form feed
    expect(pages, language).toBeGreaterThan(1);
    for (const phrase of [t.title, ...Object.values(t.sections), t.intro, ...t.howToVerify, t.pageOf(1, pages), t.pageOf(pages, pages), t.labels.originalSha256, t.events['signer.signed']]) {
      expect(flat, `${language}: ${phrase}`).toContain(squeeze(phrase));
    }
    for (const other of RECEIPT_LANGUAGES) {
      if (receiptTextFor(other).title !== t.title) expect(text, `${language} shows ${other}`).not.toContain(receiptTextFor(other).title);
    }
  });

  it('draws every letter: no U+FFFD, and the special characters come back', () => {
    for (const [language, text] of texts) expect(text.includes('\uFFFD'), language).toBe(false);
    const all = [...texts.values()].join('');
    for (const ch of 'ąćęłńóśźżßäöüÄ„“«»éèêàÉáíñúù’–→·') expect(all, ch).toContain(ch);
  });
});
