/** Base documents of the incremental-writer tests: a pdf-lib file of N pages, and qpdf's rewrites of it. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from '../../src/pdf/pdf-lib.js';

/** `pages` A4 pages with one line of text each; a classic xref table, or an xref stream with object streams. */
export async function basePdf(pages: number, objectStreams: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([595, 842]).drawText(`Page ${i + 1} of the contract`, { x: 50, y: 780, size: 14, font });
  return doc.save({ useObjectStreams: objectStreams });
}

/** `pdf` rewritten by `qpdf <args> in out`. */
export function qpdf(pdf: Uint8Array, args: readonly string[]): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-base-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', [...args, join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    return new Uint8Array(readFileSync(join(dir, 'out.pdf')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
