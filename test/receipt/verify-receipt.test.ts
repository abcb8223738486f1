/**
 * verifyReceipt against tampering: a flipped byte in the sealed file, an edited or truncated log swapped in by an
 * incremental update, a fully re-chained forgery, a changed character in the log of an unsealed receipt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, type PDFRef } from '../../src/pdf/pdf-lib.js';
import { createHash } from 'node:crypto';
import { appendAuditEntry, GENESIS_HASH, hashAuditEntry, type AuditEntry } from '../../src/receipt/audit-log.js';
import { AUDIT_LOG_ATTACHMENT, buildReceipt, type ReceiptSealer } from '../../src/receipt/receipt.js';
import { readAuditLogAttachment, verifyReceipt } from '../../src/receipt/verify-receipt.js';
import { openPdfForUpdate, writeIncrementalUpdate } from '../../src/pdf/incremental.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { addDocumentTimestamp } from '../../src/pades/doc-timestamp.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { pdfsigCheck } from '../helpers/external-tools.js';
import { DOCUMENTS, sampleAuditLog, sampleTransaction } from './sample-transaction.js';

const GENERATED_AT = new Date('2026-11-21T11:00:00.000Z');
const fx = usePadesFixture({ tsaAt: GENERATED_AT });
let trustRoots: Uint8Array[];
let log: readonly AuditEntry[];
let sealed: Uint8Array;
let unsealed: Uint8Array;

beforeAll(async () => {
  trustRoots = [new TextEncoder().encode(fx.pki.rootPem)];
  log = sampleAuditLog();
  const sealer: ReceiptSealer = async (pdf) =>
    (await sealPdf(pdf, { signer: fx.pki.seal.signer, signingTime: GENERATED_AT, organizationName: 'Example Organisation B.V.' })).bytes;
  const options = { transaction: sampleTransaction(), documents: DOCUMENTS, auditLog: log, generatedAt: GENERATED_AT };
  sealed = await buildReceipt({ ...options, sealer });
  unsealed = await buildReceipt({ ...options, sealer: async (pdf) => pdf });
});

/** The attachment's embedded-file stream and its reference. */
function attachmentStream(doc: PDFDocument): { ref: PDFRef; stream: PDFRawStream } {
  const ef = doc.catalog.lookup(PDFName.of('AF'), PDFArray).lookup(0, PDFDict).lookup(PDFName.of('EF'), PDFDict);
  const ref = ef.get(PDFName.of('F')) as PDFRef;
  return { ref, stream: doc.context.lookup(ref) as PDFRawStream };
}

/** The receipt with its attached log text replaced: as an incremental update (keeping the seal's revision) or by rewriting the file. */
async function withLogText(pdf: Uint8Array, text: string, incremental: boolean): Promise<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  if (incremental) {
    const session = await openPdfForUpdate(pdf);
    const { ref } = attachmentStream(session.doc);
    session.doc.context.assign(ref, session.doc.context.flateStream(bytes, { Type: 'EmbeddedFile', Subtype: 'application/json' }));
    session.markModified(ref);
    return writeIncrementalUpdate(session).bytes;
  }
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const { ref } = attachmentStream(doc);
  doc.context.assign(ref, doc.context.flateStream(bytes, { Type: 'EmbeddedFile', Subtype: 'application/json' }));
  return doc.save();
}

function logText(entries: readonly unknown[], count = entries.length, head = (entries[entries.length - 1] as AuditEntry).hash): string {
  const header = JSON.stringify({ format: 'paraph-audit-log/1', transactionId: sampleTransaction().id, count, head }).slice(0, -1);
  return `${header},"entries":[\n${entries.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`;
}

describe('verifyReceipt', () => {
  it('accepts the sealed receipt: seal valid over the whole file, chain intact with the declared head and count', async () => {
    const verdict = await verifyReceipt(sealed, { trustRoots });
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.seal.ok).toBe(true);
    expect(verdict.auditLog).toEqual({ ok: true, head: log[log.length - 1]!.hash, count: log.length });
    expect(verdict.attachment?.transactionId).toBe(sampleTransaction().id);
  });

  it('accepts a time-stamped seal followed by a document time-stamp (B-LTA) and still names the seal', async () => {
    const receipt = await buildReceipt({
      transaction: sampleTransaction(),
      documents: DOCUMENTS,
      auditLog: log,
      generatedAt: GENERATED_AT,
      sealer: async (pdf) => {
        const sealedPdf = await sealPdf(pdf, { signer: fx.pki.seal.signer, signingTime: GENERATED_AT, organizationName: 'Example Organisation B.V.', timestamper: fx.tsa.timestamper() });
        return (await addDocumentTimestamp(sealedPdf.bytes, { timestamper: fx.tsa.timestamper() })).bytes;
      },
    });
    const verdict = await verifyReceipt(receipt, { trustRoots });
    expect(verdict.problems).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.seal.signature?.kind).toBe('signature');
    expect(verdict.seal.signature?.signer?.subject).toMatch(/seal/);
    expect(verdict.seal.signature?.coversWholeDocument).toBe(false);
    const pdfsig = await pdfsigCheck(receipt);
    // Debian 12's pdfsig cannot check ETSI.RFC3161 document time-stamps; it does check the seal under it.
    expect(pdfsig.signatures.map((sig) => [sig.valid, sig.type])).toEqual([[true, 'ETSI.CAdES.detached'], [false, 'unknown']]);
    expect(pdfsig.signatures[1]?.totalDocumentSigned).toBe(true);
    const appended = new Uint8Array([...receipt, ...new TextEncoder().encode('\n% appended\n')]);
    expect((await verifyReceipt(appended, { trustRoots })).ok).toBe(false);
  });

  it('refuses an untrusted seal and an unsealed receipt, unless the seal is explicitly not required', async () => {
    const untrusted = await verifyReceipt(sealed, { trustRoots: [] });
    expect(untrusted.ok).toBe(false);
    expect(untrusted.problems.join()).toMatch(/seal: not valid/);
    const bare = await verifyReceipt(unsealed, { trustRoots });
    expect(bare.ok).toBe(false);
    expect(bare.problems).toContain('seal: the receipt is not sealed');
    expect(bare.auditLog?.ok).toBe(true);
    expect((await verifyReceipt(unsealed, { trustRoots, requireSeal: false })).ok).toBe(true);
  });

  it('detects one flipped byte anywhere in the attached log\'s bytes in the sealed file', async () => {
    const doc = await PDFDocument.load(sealed, { updateMetadata: false });
    const raw = attachmentStream(doc).stream.contents;
    const start = Buffer.from(sealed).indexOf(Buffer.from(raw));
    expect(start).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: raw.length - 1 }), fc.integer({ min: 1, max: 255 }), async (offset, mask) => {
        const tampered = sealed.slice();
        tampered[start + offset]! ^= mask;
        const verdict = await verifyReceipt(tampered, { trustRoots });
        expect(verdict.ok).toBe(false);
        expect(verdict.seal.ok).toBe(false);
        expect(verdict.problems.join('\n')).toMatch(/seal: not valid/);
      }),
      { numRuns: 8 },
    );
    const once = sealed.slice();
    once[start + (raw.length >> 1)]! ^= 0x01;
    expect((await pdfsigCheck(once)).signatures[0]?.valid).toBe(false);
  });

  it('an entry edited in a log swapped in after sealing: the seal no longer covers the file and the chain breaks at that entry', async () => {
    const entries = structuredClone(log) as AuditEntry[];
    (entries[20]!.data as { ip?: string }).ip = '192.0.2.1';
    const tampered = await withLogText(sealed, logText(entries), true);
    const verdict = await verifyReceipt(tampered, { trustRoots });
    expect(verdict.ok).toBe(false);
    expect(verdict.seal.signature?.coversWholeDocument).toBe(false);
    expect(verdict.auditLog).toMatchObject({ ok: false, position: 20, code: 'HASH' });
    expect(verdict.problems.join('\n')).toMatch(/audit log: broken at entry 21/);
    expect((await pdfsigCheck(tampered)).signatures[0]).toMatchObject({ valid: true, totalDocumentSigned: false });
  });

  it('a fully re-chained forgery passes the chain but not the seal', async () => {
    const forged: AuditEntry[] = [];
    let prevHash = GENESIS_HASH;
    for (const entry of log) {
      const data = entry.type === 'signer.signed' ? { ...entry.data, ip: '192.0.2.99' } : entry.data;
      const unsigned = { ...entry, data, prevHash } as Omit<AuditEntry, 'hash'>;
      const next = { ...unsigned, hash: hashAuditEntry(unsigned) } as AuditEntry;
      forged.push(next);
      prevHash = next.hash;
    }
    const tampered = await withLogText(sealed, logText(forged), true);
    const verdict = await verifyReceipt(tampered, { trustRoots });
    expect(verdict.auditLog?.ok).toBe(true);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems.join('\n')).toMatch(/does not cover the whole file/);
  });

  it('a log cut short, or one whose header was made to match, is refused', async () => {
    const cut = await withLogText(unsealed, logText(log.slice(0, 30), log.length, log[log.length - 1]!.hash), false);
    const verdict = await verifyReceipt(cut, { trustRoots, requireSeal: false });
    expect(verdict.auditLog).toMatchObject({ ok: false, position: 30, code: 'MISSING_ENTRIES' });
    const consistent = await withLogText(sealed, logText(log.slice(0, 30)), true);
    const sealedVerdict = await verifyReceipt(consistent, { trustRoots });
    expect(sealedVerdict.auditLog?.ok).toBe(true);
    expect(sealedVerdict.ok).toBe(false);
  });

  it('one changed character in any entry of the attached log fails at exactly that entry', async () => {
    const original = logText(log);
    const lines = original.split('\n');
    let placed = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: log.length - 1 }), fc.nat(), fc.integer({ min: 0x21, max: 0x7e }), async (index, pick, code) => {
        const line = lines[index + 1]!; // line 0 is the header
        const body = line.endsWith(',') ? line.length - 1 : line.length;
        const at = pick % body;
        fc.pre(line.charCodeAt(at) !== code);
        const changed = [...lines];
        changed[index + 1] = line.slice(0, at) + String.fromCharCode(code) + line.slice(at + 1);
        const text = changed.join('\n');
        const verdict = await verifyReceipt(await withLogText(unsealed, text, false), { trustRoots, requireSeal: false });
        expect(verdict.ok).toBe(false);
        // A change that breaks the JSON syntax cannot be placed in an entry; one that parses must fail at its entry.
        let parsed: { entries?: unknown[] } | undefined;
        try {
          parsed = JSON.parse(text) as { entries?: unknown[] };
        } catch {
          parsed = undefined;
        }
        if (parsed?.entries?.length === log.length) {
          placed++;
          expect(verdict.auditLog).toMatchObject({ ok: false, position: index });
        } else {
          expect(verdict.auditLog?.ok).not.toBe(true);
          expect(verdict.problems.join('\n')).toMatch(/audit log/);
        }
      }),
      { numRuns: 40 },
    );
    expect(placed).toBeGreaterThan(10);
  });

  it('finds handed-in documents in the log by SHA-256, as signed or as uploaded, and fails for one it does not record', async () => {
    const original = new TextEncoder().encode('%PDF-1.7 original');
    const signed = new TextEncoder().encode('%PDF-1.7 signed');
    const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
    let withFiles = appendAuditEntry(log, {
      at: new Date('2026-11-21T12:00:00Z'),
      type: 'file.uploaded',
      actor: 'api',
      data: { fileId: 'x.pdf', displayName: 'X', sha256: sha(original), bytes: original.length, pages: 1 },
    });
    withFiles = appendAuditEntry(withFiles, {
      at: new Date('2026-11-21T12:01:00Z'),
      type: 'document.finalized',
      actor: 'system',
      data: { fileId: 'x.pdf', sha256: sha(signed), bytes: signed.length },
    });
    const receipt = await buildReceipt({
      transaction: sampleTransaction(), documents: DOCUMENTS, auditLog: withFiles, generatedAt: GENERATED_AT, sealer: async (pdf) => pdf,
    });
    const found = await verifyReceipt(receipt, { trustRoots, requireSeal: false, documents: [signed, original] });
    expect(found.ok).toBe(true);
    expect(found.documents).toEqual([
      { index: 0, sha256: sha(signed), fileId: 'x.pdf', as: 'signed' },
      { index: 1, sha256: sha(original), fileId: 'x.pdf', as: 'uploaded' },
    ]);
    const stranger = new TextEncoder().encode('%PDF-1.7 something else');
    const missing = await verifyReceipt(receipt, { trustRoots, requireSeal: false, documents: [signed, stranger] });
    expect(missing.ok).toBe(false);
    expect(missing.documents[1]).toMatchObject({ as: undefined, fileId: undefined });
    expect(missing.problems).toEqual([`document 2 (SHA-256 ${sha(stranger)}) is not recorded in the audit log`]);
  });

  it('explains a file without the attachment and bytes that are no PDF', async () => {
    const plain = await PDFDocument.create({ updateMetadata: false });
    plain.addPage();
    const none = await verifyReceipt(await plain.save(), { trustRoots });
    expect(none.ok).toBe(false);
    expect(none.problems.join('\n')).toContain(`no attached ${AUDIT_LOG_ATTACHMENT}`);
    await expect(readAuditLogAttachment(await plain.save())).rejects.toMatchObject({ code: 'RECEIPT_AUDIT_LOG_MISSING' });
    const junk = await verifyReceipt(new TextEncoder().encode('not a pdf'), { trustRoots });
    expect(junk.ok).toBe(false);
    expect(junk.problems.length).toBeGreaterThanOrEqual(2);
  });
});
