/**
 * The evidential receipt, checked from the outside: text through poppler's pdftotext, the attachment through qpdf,
 * the seal through pdfsig, openssl and verifyPdf, the layout through pdf.js text boxes and pdftoppm renders
 * (kept in test-artifacts/receipt/ for a person to look at).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { appendAuditEntry, verifyAuditLog, type AuditEntry } from '../../src/receipt/audit-log.js';
import { AUDIT_LOG_ATTACHMENT, buildReceipt, renderReceipt, type ReceiptSealer } from '../../src/receipt/receipt.js';
import { readAuditLogAttachment } from '../../src/receipt/verify-receipt.js';
import { receiptTextFor } from '../../src/receipt/receipt-text.js';
import type { ReceiptTransaction } from '../../src/receipt/types.js';
import { sealPdf } from '../../src/pades/seal-pdf.js';
import { verifyPdf } from '../../src/pades/verify.js';
import { ParaphError } from '../../src/errors.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { DOCUMENTS, SIGNERS, USER_AGENT, largeAuditLog, sampleAuditLog, sampleTransaction } from './sample-transaction.js';

const exec = promisify(execFile);
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'receipt');
const GENERATED_AT = new Date('2026-11-21T11:00:00.000Z');
const identity: ReceiptSealer = async (pdf) => pdf;

const fx = usePadesFixture();
let realSealer: ReceiptSealer;
beforeAll(() => {
  mkdirSync(ARTIFACTS, { recursive: true });
  realSealer = async (pdf) =>
    (await sealPdf(pdf, { signer: fx.pki.seal.signer, signingTime: GENERATED_AT, organizationName: 'Example Organisation B.V.' })).bytes;
});

async function withFile<T>(pdf: Uint8Array, work: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-receipt-'));
  try {
    const file = join(dir, 'receipt.pdf');
    await writeFile(file, pdf);
    return await work(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const pdftotext = (pdf: Uint8Array): Promise<string> =>
  withFile(pdf, async (file) => (await exec('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 256 << 20 })).stdout);

/** Every pdf.js text item's box (user space) and its page's size. */
async function textBoxes(pdf: Uint8Array, pages?: readonly number[]) {
  const doc = await pdfjs.getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise;
  const boxes: { page: number; text: string; x: number; y: number; width: number; height: number; pageWidth: number; pageHeight: number }[] = [];
  try {
    for (const n of pages ?? Array.from({ length: doc.numPages }, (_, i) => i + 1)) {
      const page = await doc.getPage(n);
      const [x0, y0, x1, y1] = page.view as [number, number, number, number];
      const content = await page.getTextContent();
      for (const item of content.items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        const [a, b, , , e, f] = item.transform as number[];
        expect(b).toBe(0); // no rotated text
        expect(a).toBeGreaterThan(0);
        boxes.push({ page: n, text: item.str, x: e! - x0, y: f! - y0, width: item.width, height: item.height, pageWidth: x1 - x0, pageHeight: y1 - y0 });
      }
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  return boxes;
}

/** Asserts that every text box lies inside the page, and indeed inside the 50 pt margins. */
function expectInsidePage(boxes: Awaited<ReturnType<typeof textBoxes>>): void {
  expect(boxes.length).toBeGreaterThan(0);
  const outside = boxes.filter(
    (b) => b.x < 50 - 0.01 || b.x + b.width > b.pageWidth - 50 + 0.01 || b.y < 20 || b.y + b.height > b.pageHeight - 50 + 0.01,
  );
  expect(outside).toEqual([]);
}

describe('buildReceipt: a sealed receipt of a three-signer transaction', () => {
  let log: readonly AuditEntry[];
  let receipt: Uint8Array;
  let text: string;

  beforeAll(async () => {
    log = sampleAuditLog();
    receipt = await buildReceipt({
      transaction: sampleTransaction(),
      documents: DOCUMENTS,
      auditLog: log,
      sealer: realSealer,
      generatedAt: GENERATED_AT,
      receiptSeal: { level: 'advanced', certificate: { subject: 'CN=Example Organization B.V. seal', serial: '3001', issuer: 'CN=paraph Test Intermediate CA' } },
    });
    writeFileSync(join(ARTIFACTS, 'three-signers-en.pdf'), receipt);
    text = await pdftotext(receipt);
  });

  it('shows every signer with e-mail, IP address, user agent, certificate and verifications (pdftotext)', () => {
    const flat = text.replace(/\s+/g, ' ');
    for (const s of SIGNERS) {
      expect(flat).toContain(s.name);
      expect(flat).toContain(s.email);
      expect(flat).toContain(s.ip);
      expect(flat).toContain(`CN=${s.name},E=${s.email}`);
    }
    expect(flat).toContain(USER_AGENT.slice(0, 40));
    expect(flat).toContain('PhoneNumber failed');
    expect(flat).toContain('Number: ••••••••79');
    expect(flat).toContain('Legal department legal@example-organisation.eu 2026-11-21 10:43:00 UTC');
    expect(flat).toContain('Archive archive@example.invalid not sent');
  });

  it('shows both hashes of every document, each unbroken on one line (pdftotext)', () => {
    for (const d of DOCUMENTS) {
      expect(text).toMatch(new RegExp(`SHA-256 as uploaded\\s+${d.originalSha256}`));
      expect(text).toMatch(new RegExp(`SHA-256 signed\\s+${d.finalSha256!}`));
      expect(text).toContain(d.displayName);
    }
  });

  it('lists every audit entry with its event, actor and hash prefix, and prints the head hash (pdftotext)', () => {
    const t = receiptTextFor('en-US');
    const rows = text.split('\n');
    for (const entry of log) {
      const row = rows.find((line) => line.includes(entry.hash.slice(0, 12)) && /^\s*\d+\s+2026-/.test(line));
      expect(row, `entry ${entry.seq}`).toBeDefined();
      expect(row!.trimStart().startsWith(`${entry.seq} `)).toBe(true);
      expect(row).toContain(entry.actor);
      // The event label may wrap onto the next line; its first word is on the row.
      expect(row).toContain(t.events[entry.type].split(' ')[0]!);
    }
    expect(text).toMatch(new RegExp(`Audit trail head \\(SHA-256\\)\\s+${log[log.length - 1]!.hash}`));
    expect(text).toMatch(new RegExp(`Audit trail entries\\s+${log.length}\n`));
  });

  it('attaches the audit log as application/json with AFRelationship /Data; qpdf extracts the same entries', async () => {
    const fromQpdf = await withFile(receipt, async (file, dir) => {
      const out = join(dir, 'log.json');
      await exec('qpdf', [`--show-attachment=${AUDIT_LOG_ATTACHMENT}`, file], { maxBuffer: 64 << 20 }).then(({ stdout }) => writeFile(out, stdout));
      const listing = (await exec('qpdf', ['--list-attachments', '--verbose', file])).stdout;
      expect(listing).toContain('application/json');
      return JSON.parse(await readFile(out, 'utf8')) as { entries: unknown[]; count: number; head: string; transactionId: string };
    });
    expect(fromQpdf.entries).toEqual(JSON.parse(JSON.stringify(log)));
    expect(fromQpdf).toMatchObject({ count: log.length, head: log[log.length - 1]!.hash, transactionId: sampleTransaction().id });
    expect(verifyAuditLog(fromQpdf.entries)).toEqual({ ok: true, head: log[log.length - 1]!.hash, count: log.length });
    const json = await withFile(receipt, async (file) => (await exec('qpdf', ['--json', '--json-key=qpdf', file], { maxBuffer: 64 << 20 })).stdout);
    expect(json).toMatch(/"\/AFRelationship": "\/Data"/);
    expect(json).toContain('"/Subtype": "/application/json"');
    expect((await readAuditLogAttachment(receipt)).entries).toEqual(fromQpdf.entries);
  });

  it('carries a seal that pdfsig, openssl and verifyPdf accept, covering the whole file; qpdf --check is clean', async () => {
    const pdfsig = await pdfsigCheck(receipt);
    expect(pdfsig.signatures).toHaveLength(1);
    expect(pdfsig.signatures[0]).toMatchObject({ valid: true, totalDocumentSigned: true, type: 'ETSI.CAdES.detached' });
    expect((await opensslCmsVerify(receipt, 0, fx.pki.rootPem)).ok).toBe(true);
    const report = await verifyPdf(receipt, { trustRoots: [new TextEncoder().encode(fx.pki.rootPem)] });
    expect(report.valid).toBe(true);
    expect(report.signatures[0]).toMatchObject({ valid: true, coversWholeDocument: true, chainOk: true });
    expect((await qpdfCheck(receipt)).ok).toBe(true);
  });

  it('keeps all text inside the page margins (pdf.js boxes) and renders every page to PNG', async () => {
    expectInsidePage(await textBoxes(receipt));
    await withFile(receipt, async (file) => {
      await exec('pdftoppm', ['-r', '80', '-png', file, join(ARTIFACTS, 'three-signers-en')]);
    });
  });
});

describe('renderReceipt: languages, long values, size and determinism', () => {
  it('writes nl-NL for a Dutch transaction and falls back to en-US for a language the receipt does not speak', async () => {
    const nl = (await pdftotext(
      await renderReceipt({ transaction: sampleTransaction('nl-NL'), documents: DOCUMENTS, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT }),
    )).replace(/\s+/g, ' ');
    for (const word of ['Bewijsrapport', 'Ondertekenaars', 'Audittrail', 'SHA-256 bij upload', 'Gebeurtenis', 'geslaagd', 'pagina 1 van']) {
      expect(nl).toContain(word);
    }
    const sv = await pdftotext(
      await renderReceipt({ transaction: sampleTransaction(), documents: DOCUMENTS, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT, language: 'sv-SE' }),
    );
    expect(sv).toContain('Evidential receipt');
    expect(sv).not.toContain('Bewijsrapport');
  });

  it('wraps very long values (user agent, e-mail, names without spaces, hashes in details) inside the page', async () => {
    const base = sampleTransaction();
    const long = 'x'.repeat(300);
    const transaction: ReceiptTransaction = {
      ...base,
      reference: `REF-${'Ω'.repeat(180)}`,
      signers: base.signers.map((s, i) => ({
        ...s,
        name: i === 0 ? `Ünïcødé${'ŁŻŚ'.repeat(60)}` : s.name,
        email: `${'very.long.local.part.'.repeat(12)}@${'sub.'.repeat(20)}example.com`,
        userAgent: `${USER_AGENT} ${long} ${'(compatible; agent/1.0)'.repeat(20)}`,
        verifications: [...s.verifications, { type: 'iDIN', result: 'passed', evidence: { Attributes: 'a=b;'.repeat(400) } }],
      })),
    };
    let log = sampleAuditLog();
    log = appendAuditEntry(log, {
      at: new Date('2026-11-21T12:00:00Z'),
      type: 'transaction.failed',
      actor: 'system',
      data: { reason: `control\u0007chars\ttabs\nnew lines 🙂 CJK 漢字 and ${'y'.repeat(2000)}` },
    });
    const pdf = await renderReceipt({ transaction, documents: DOCUMENTS, auditLog: log, generatedAt: GENERATED_AT });
    writeFileSync(join(ARTIFACTS, 'long-values.pdf'), pdf);
    expectInsidePage(await textBoxes(pdf));
    const text = (await pdftotext(pdf)).replace(/\s+/g, '');
    expect(text).toContain('y'.repeat(500));
    expect(text).toContain(`${'very.long.local.part.'.repeat(12)}@`);
  });

  it('builds a 10,000-entry receipt whose attachment re-verifies and whose audit pages stay inside the margins', async () => {
    const log = largeAuditLog(10_000);
    const pdf = await buildReceipt({ transaction: sampleTransaction(), documents: DOCUMENTS, auditLog: log, generatedAt: GENERATED_AT, sealer: identity });
    const attachment = await readAuditLogAttachment(pdf);
    expect(attachment.entries).toHaveLength(10_000);
    expect(verifyAuditLog(attachment.entries, { count: 10_000, head: log[9_999]!.hash }).ok).toBe(true);
    const doc = await pdfjs.getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 }).promise;
    const pages = doc.numPages;
    await doc.destroy();
    expect(pages).toBeGreaterThan(100);
    const sample = [1, 2, 3, 4, 5, Math.floor(pages / 2), pages - 1, pages];
    const boxes = await textBoxes(pdf, sample);
    expectInsidePage(boxes);
    const last = boxes.filter((b) => b.page === pages).map((b) => b.text);
    expect(last).toContain('10000');
    expect(last).toContain(`page ${pages} of ${pages}`);
  });

  it('shows a rejected transaction: the reason, the signers who did not sign, and no signed hashes', async () => {
    const base = sampleTransaction();
    const transaction: ReceiptTransaction = {
      ...base,
      status: 40,
      seal: undefined,
      signers: base.signers.map((s, i) =>
        i === 0
          ? s
          : i === 1
            ? { ...s, outcome: 'rejected', signedAt: undefined, certificate: undefined, rejectedAt: new Date('2026-11-21T09:47:00Z'), rejectReason: 'Salary in §3 is wrong' }
            : { ...s, outcome: 'not signed', signedAt: undefined, certificate: undefined, ipAddress: undefined, userAgent: undefined, verifications: [], activities: [] },
      ),
    };
    const documents = DOCUMENTS.map((d) => ({ ...d, finalSha256: undefined, finalBytes: undefined }));
    const text = (await pdftotext(await renderReceipt({ transaction, documents, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT }))).replace(/\s+/g, ' ');
    expect(text).toContain('Status 40 – rejected');
    expect(text).toContain('Seal on the documents No seal was requested');
    expect(text).toContain('Outcome rejected Rejected at 2026-11-21 09:47:00 UTC Reason for rejection Salary in §3 is wrong');
    expect(text).toContain('Outcome not signed IP address not available');
    expect(text).toContain('SHA-256 signed not available');
  });

  it('is deterministic: the same snapshot gives the same bytes', async () => {
    const options = { transaction: sampleTransaction(), documents: DOCUMENTS, auditLog: sampleAuditLog(), generatedAt: GENERATED_AT };
    expect(Buffer.from(await renderReceipt(options)).equals(Buffer.from(await renderReceipt(options)))).toBe(true);
  });

  it('refuses a broken audit log, an invalid date and a sealer that rewrites the file', async () => {
    const log = structuredClone(sampleAuditLog()) as AuditEntry[];
    (log[3]!.data as { bytes: number }).bytes = 1;
    const options = { transaction: sampleTransaction(), documents: DOCUMENTS, generatedAt: GENERATED_AT, sealer: identity };
    await expect(buildReceipt({ ...options, auditLog: log })).rejects.toMatchObject({ code: 'RECEIPT_AUDIT_LOG_INVALID', message: expect.stringContaining('entry 4') });
    await expect(buildReceipt({ ...options, auditLog: sampleAuditLog(), generatedAt: new Date(Number.NaN) })).rejects.toBeInstanceOf(ParaphError);
    await expect(
      buildReceipt({ ...options, auditLog: sampleAuditLog(), sealer: async (pdf) => pdf.subarray(10) }),
    ).rejects.toMatchObject({ code: 'RECEIPT_SEALER_REWROTE' });
  });
});
