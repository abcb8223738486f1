/**
 * The evidential receipt rendered for every language of the signing page, first pages
 * to PNG with `pdftoppm` into test-artifacts/receipts/ (look at them). Unsealed: rendering only, the seal is
 * covered by receipt.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/i18n/languages.js';
import { renderReceipt } from '../../src/receipt/receipt.js';
import { DOCUMENTS, sampleAuditLog, sampleTransaction } from './sample-transaction.js';

const run = promisify(execFile);
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'receipts');
const GENERATED_AT = new Date('2026-06-01T10:00:00Z');

describe('receipt renders', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('renders the first two pages of the receipt of every language to PNG', async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const dir = await mkdtemp(join(tmpdir(), 'paraph-receipt-renders-'));
    dirs.push(dir);
    for (const language of LANGUAGES) {
      const pdf = await renderReceipt({ transaction: sampleTransaction(language), documents: DOCUMENTS, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT });
      const file = join(dir, `${language}.pdf`);
      await writeFile(file, pdf);
      await run('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '2', file, join(ARTIFACTS, `receipt-${language}`)]);
    }
    const pngs = (await readdir(ARTIFACTS)).filter((f) => f.startsWith('receipt-') && f.endsWith('.png'));
    for (const language of LANGUAGES) expect(pngs.some((f) => f.startsWith(`receipt-${language}-`)), language).toBe(true);
  }, 60_000);
});
