/**
 * The audit chain is RFC 8785 (JCS): a third party re-computes it from a receipt with the `canonicalize` package and
 * SHA-256 alone; receipts written before (attachment format `paraph-audit-log/1`) still verify.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream, type PDFRef } from '../../src/pdf/pdf-lib.js';
import { GENESIS_HASH, type AuditEntry } from '../../src/receipt/audit-log.js';
import { canonicalJson } from '../../src/receipt/canonical-json.js';
import { buildReceipt } from '../../src/receipt/receipt.js';
import { readAuditLogAttachment, verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { DOCUMENTS, sampleAuditLog, sampleTransaction } from './sample-transaction.js';

const jcs = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string;
let unsealed: Uint8Array;

beforeAll(async () => {
  unsealed = await buildReceipt({
    transaction: sampleTransaction(),
    documents: DOCUMENTS,
    auditLog: sampleAuditLog(),
    generatedAt: new Date('2026-11-21T11:00:00.000Z'),
    sealer: async (pdf) => pdf,
  });
});

function attachmentRef(doc: PDFDocument): PDFRef {
  const ef = doc.catalog.lookup(PDFName.of('AF'), PDFArray).lookup(0, PDFDict).lookup(PDFName.of('EF'), PDFDict);
  return ef.get(PDFName.of('F')) as PDFRef;
}

/** The attached audit-log text, read with pdf-lib only (as a third party would). */
async function attachmentText(pdf: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const stream = doc.context.lookup(attachmentRef(doc)) as PDFRawStream;
  return new TextDecoder().decode(decodePDFRawStream(stream).decode());
}

async function withAttachmentText(pdf: Uint8Array, text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  doc.context.assign(attachmentRef(doc), doc.context.flateStream(new TextEncoder().encode(text), { Type: 'EmbeddedFile', Subtype: 'application/json' }));
  return doc.save();
}

/** paraph's canonical JSON before JCS was named (format 1), kept here as the oracle for old receipts. */
function formatOneCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(formatOneCanonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${formatOneCanonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('audit chain as RFC 8785 (JCS)', () => {
  it('a new receipt declares format 2 and its chain re-computes with the canonicalize package and SHA-256 alone', async () => {
    const attachment = JSON.parse(await attachmentText(unsealed)) as { format: string; count: number; head: string; entries: AuditEntry[] };
    expect(attachment.format).toBe('paraph-audit-log/2');
    let prevHash = GENESIS_HASH;
    for (const entry of attachment.entries) {
      const { hash, ...unsigned } = entry;
      expect(unsigned.prevHash).toBe(prevHash);
      expect(createHash('sha256').update(jcs(unsigned), 'utf8').digest('hex')).toBe(hash);
      prevHash = hash;
    }
    expect(attachment.entries.length).toBe(attachment.count);
    expect(prevHash).toBe(attachment.head);
    expect((await verifyReceipt(unsealed, { trustRoots: [], requireSeal: false })).ok).toBe(true);
  });

  it('a receipt whose attachment says format 1 still verifies, and a third format is refused by name', async () => {
    const text = await attachmentText(unsealed);
    const formatOne = await withAttachmentText(unsealed, text.replace('"paraph-audit-log/2"', '"paraph-audit-log/1"'));
    expect((await readAuditLogAttachment(formatOne)).format).toBe('paraph-audit-log/1');
    const verdict = await verifyReceipt(formatOne, { trustRoots: [], requireSeal: false });
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);
    const formatThree = await withAttachmentText(unsealed, text.replace('"paraph-audit-log/2"', '"paraph-audit-log/3"'));
    await expect(readAuditLogAttachment(formatThree)).rejects.toThrow(/paraph-audit-log\/1 or paraph-audit-log\/2/);
  });

  it('for every JSON value an entry can hold, JCS, format 1 and canonicalJson write the same bytes (old hashes stay valid)', () => {
    const json = fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        expect(text).toBe(jcs(value));
        expect(text).toBe(formatOneCanonicalJson(value));
      }),
      { numRuns: 300 },
    );
  });
});
