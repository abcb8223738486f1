import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, PDFString } from '../../src/pdf/pdf-lib.js';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { basePdf, qpdf } from '../helpers/base-pdfs.js';
import { describe, expect, it } from 'vitest';
import {
  appendPageAnnotation,
  openPdfForUpdate,
  writeIncrementalUpdate,
  type PdfUpdateSession,
} from '../../src/pdf/incremental.js';
import { readPdfTail } from '../../src/pdf/pdf-tail.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { testPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = new Date(TEST_NOW);

function qpdfObjectStreams(pdf: Uint8Array, extra: readonly string[] = []): Uint8Array {
  return qpdf(pdf, ['--object-streams=generate', ...extra]);
}

/**
 * A hybrid-reference file (ISO 32000-2 §7.5.8.4): qpdf's object-stream output with a classic table appended that
 * lists the uncompressed objects, whose trailer points at the xref stream with /XRefStm.
 */
function hybrid(pdf: Uint8Array): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'paraph-hybrid-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), qpdfObjectStreams(pdf));
    const xref = execFileSync('qpdf', ['--show-xref', join(dir, 'in.pdf')], { encoding: 'utf8' });
    const offsets = new Map<number, number>();
    for (const m of xref.matchAll(/^(\d+)\/0: uncompressed; offset = (\d+)$/gm)) offsets.set(Number(m[1]), Number(m[2]));
    const text = readFileSync(join(dir, 'in.pdf')).toString('latin1');
    const tail = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)!;
    const streamOffset = Number(tail[1]);
    const trailer = /\/Root (\d+ \d+ R)/.exec(text.slice(streamOffset))!;
    const size = Number(/\/Size (\d+)/.exec(text.slice(streamOffset))![1]);
    const body = text.slice(0, tail.index);
    let table = 'xref\n0 1\n0000000000 65535 f \n';
    for (const [num, offset] of [...offsets].sort((a, b) => a[0] - b[0])) {
      table += `${num} 1\n${String(offset).padStart(10, '0')} 00000 n \n`;
    }
    const out = `${body}${table}trailer\n<< /Size ${size} /Root ${trailer[1]} /XRefStm ${streamOffset} >>\nstartxref\n${body.length}\n%%EOF\n`;
    return new Uint8Array(Buffer.from(out, 'latin1'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The kinds of base document the writer must handle. */
async function fixtures(): Promise<Record<string, Uint8Array>> {
  const classic = await basePdf(3, false);
  let end = classic.length;
  while (classic[end - 1] === 0x0a || classic[end - 1] === 0x0d) end--;
  return {
    'classic xref table': classic,
    'classic table, no EOL after %%EOF': classic.slice(0, end),
    'pdf-lib xref stream': await basePdf(3, true),
    'qpdf xref stream + object streams': qpdfObjectStreams(classic),
    'hybrid: table with /XRefStm': hybrid(classic),
    'linearized (qpdf --linearize)': qpdfObjectStreams(classic, ['--linearize', '--object-streams=disable']),
  };
}

function acroForm(session: PdfUpdateSession): PDFDict {
  const { doc } = session;
  const catalog = doc.catalog;
  const existing = catalog.get(PDFName.of('AcroForm'));
  if (existing instanceof PDFRef) return doc.context.lookup(existing, PDFDict);
  if (existing instanceof PDFDict) {
    session.markModified(doc.context.trailerInfo.Root as PDFRef);
    return existing;
  }
  const form = doc.context.obj({ Fields: [] });
  const formRef = doc.context.register(form);
  catalog.set(PDFName.of('AcroForm'), formRef);
  session.markModified(doc.context.trailerInfo.Root as PDFRef);
  return form;
}

type Op =
  | { kind: 'sign'; visible: boolean }
  | { kind: 'add-field'; page: number; name: string }
  | { kind: 'fill-field'; value: string }
  | { kind: 'add-annotation'; page: number; text: string };

/** Applies one operation as its own update; returns the new bytes. */
async function applyOp(pdf: Uint8Array, op: Op): Promise<Uint8Array> {
  if (op.kind === 'sign') {
    const placement = op.visible ? { pageNumber: 1, left: 40, top: 40, width: 150, height: 60 } : undefined;
    return (await signPdf(pdf, { signer: (await testPki()).signers.p256.signer, signingTime: T0, placement })).bytes;
  }
  const session = await openPdfForUpdate(pdf);
  const { doc } = session;
  const context = doc.context;
  const pageRef = (n: number): PDFRef => doc.getPage(n % doc.getPageCount()).ref;
  if (op.kind === 'add-field') {
    const form = acroForm(session);
    const field = context.register(
      context.obj({
        FT: 'Tx', T: PDFString.of(op.name), Type: 'Annot', Subtype: 'Widget', F: 4,
        Rect: [50, 700, 250, 720], P: pageRef(op.page),
      }),
    );
    const fields = form.lookup(PDFName.of('Fields'), PDFArray);
    fields.push(field);
    const fieldsRef = form.get(PDFName.of('Fields'));
    if (fieldsRef instanceof PDFRef) session.markModified(fieldsRef);
    const formRef = doc.catalog.get(PDFName.of('AcroForm'));
    if (formRef instanceof PDFRef) session.markModified(formRef);
    appendPageAnnotation(session, pageRef(op.page), field);
  } else if (op.kind === 'fill-field') {
    const form = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
    const fields = form?.lookupMaybe(PDFName.of('Fields'), PDFArray);
    const first = fields?.asArray().find((f) => f instanceof PDFRef && context.lookup(f, PDFDict).get(PDFName.of('FT')) === PDFName.of('Tx'));
    if (!(first instanceof PDFRef)) return pdf; // no text field to fill yet: no update
    context.lookup(first, PDFDict).set(PDFName.of('V'), PDFHexString.fromText(op.value));
    session.markModified(first);
  } else {
    const annot = context.register(
      context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [20, 20, 40, 40], Contents: PDFHexString.fromText(op.text) }),
    );
    appendPageAnnotation(session, pageRef(op.page), annot);
  }
  return writeIncrementalUpdate(session).bytes;
}

async function openWithPdfjs(pdf: Uint8Array): Promise<{ pages: number; annotations: number }> {
  const task = getDocument({ data: pdf.slice(), isEvalSupported: false, verbosity: 0 });
  const doc = await task.promise;
  try {
    let annotations = 0;
    for (let i = 1; i <= doc.numPages; i++) annotations += (await (await doc.getPage(i)).getAnnotations()).length;
    return { pages: doc.numPages, annotations };
  } finally {
    await task.destroy();
  }
}

function isPrefix(prefix: Uint8Array, whole: Uint8Array): boolean {
  if (prefix.length > whole.length) return false;
  return Buffer.from(whole.buffer, whole.byteOffset, prefix.length).equals(Buffer.from(prefix));
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('sign' as const), visible: fc.boolean() }),
  fc.record({ kind: fc.constant('add-field' as const), page: fc.nat(5), name: fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/) }),
  fc.record({ kind: fc.constant('fill-field' as const), value: fc.string({ maxLength: 30 }) }),
  fc.record({ kind: fc.constant('add-annotation' as const), page: fc.nat(5), text: fc.string({ maxLength: 30 }) }),
);

describe('incremental updates', () => {
  it('keep every earlier revision as a byte prefix; every revision opens in pdf-lib and pdf.js and passes qpdf --check', async () => {
    const bases = await fixtures();
    for (const [name, base] of Object.entries(bases)) {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 5 }), async (ops) => {
          const revisions = [base];
          let annotations = 0;
          for (const op of ops) {
            const next = await applyOp(revisions[revisions.length - 1] as Uint8Array, op);
            revisions.push(next);
            if (op.kind !== 'fill-field') annotations += 1;
          }
          const signatures = ops.filter((op) => op.kind === 'sign').length;
          const final = revisions[revisions.length - 1] as Uint8Array;
          for (const revision of revisions) {
            expect(isPrefix(revision, final), `${name}: revision is a prefix`).toBe(true);
            const loaded = await PDFDocument.load(revision, { updateMetadata: false });
            expect(loaded.getPageCount()).toBe(3);
            const check = await qpdfCheck(revision);
            expect(check.ok, `${name}: qpdf --check\n${check.stdout}${check.stderr}`).toBe(true);
          }
          const viewed = await openWithPdfjs(final);
          expect(viewed).toEqual({ pages: 3, annotations });
          if (signatures > 0) {
            // Later updates leave every signature's bytes intact.
            const sig = await pdfsigCheck(final);
            expect(sig.signatures.map((s) => s.validation), `${name}: ${sig.stdout}`).toEqual(Array(signatures).fill('Signature is Valid.'));
          }
        }),
        { numRuns: 12 },
      );
    }
  }, 120_000);

  it('writes a cross-reference section of the same kind as the file’s last one, with /Prev at the old startxref', async () => {
    const bases = await fixtures();
    for (const [name, base] of Object.entries(bases)) {
      const before = readPdfTail(base, (await PDFDocument.load(base)).context);
      const after = await applyOp(base, { kind: 'add-annotation', page: 0, text: 'x' });
      const tail = readPdfTail(after, (await PDFDocument.load(after)).context);
      expect(tail.kind, name).toBe(before.kind);
      expect(tail.trailer.get(PDFName.of('Prev'))?.toString(), name).toBe(String(before.startxref));
      expect(tail.startxref).toBeGreaterThan(base.length);
      expect(tail.size).toBeGreaterThanOrEqual(before.size);
      expect(tail.trailer.get(PDFName.of('Root'))?.toString()).toBe(before.trailer.get(PDFName.of('Root'))?.toString());
    }
  });

  it('adds an end-of-line before the update when the original ends right after %%EOF', async () => {
    const { 'classic table, no EOL after %%EOF': bare } = await fixtures();
    const after = await applyOp(bare as Uint8Array, { kind: 'add-annotation', page: 0, text: 'x' });
    expect(after[(bare as Uint8Array).length]).toBe(0x0a);
    expect(isPrefix(bare as Uint8Array, after)).toBe(true);
  });

  it('writes only new objects and the ones marked modified, and reports their offsets', async () => {
    const base = await basePdf(3, false);
    const session = await openPdfForUpdate(base);
    const pageRef = session.doc.getPage(1).ref;
    const annot = session.doc.context.register(session.doc.context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [1, 1, 2, 2] }));
    appendPageAnnotation(session, pageRef, annot);
    const { bytes, objectOffsets } = writeIncrementalUpdate(session);
    expect([...objectOffsets.keys()].sort((a, b) => a - b)).toEqual([pageRef.objectNumber, annot.objectNumber].sort((a, b) => a - b));
    for (const [num, offset] of objectOffsets) {
      expect(Buffer.from(bytes.subarray(offset, offset + 12)).toString('latin1')).toMatch(new RegExp(`^${num} 0 obj\\n`));
    }
  });

  it('gives new objects numbers above the original /Size even when the last objects are free or xref streams', async () => {
    const base = await basePdf(2, true);
    const before = readPdfTail(base, (await PDFDocument.load(base)).context);
    const session = await openPdfForUpdate(base);
    const ref = session.doc.context.register(session.doc.context.obj({ Note: 'new' }));
    expect(ref.objectNumber).toBeGreaterThanOrEqual(before.size);
  });

  it('appends an update to a 1000-page document without rewriting it', async () => {
    const base = await basePdf(1000, false);
    const after = await applyOp(base, { kind: 'add-field', page: 999, name: 'sig' });
    expect(isPrefix(base, after)).toBe(true);
    expect(after.length - base.length).toBeLessThan(2000);
    expect((await qpdfCheck(after)).ok).toBe(true);
  }, 60_000);

  it('refuses a file whose startxref points nowhere, naming the problem', async () => {
    const base = await basePdf(1, false);
    const text = Buffer.from(base).toString('latin1').replace(/startxref\n\d+/, 'startxref\n99999999');
    await expect(openPdfForUpdate(new Uint8Array(Buffer.from(text, 'latin1')))).rejects.toMatchObject({
      code: 'PDF_XREF_UNREADABLE',
    });
  });
  it('returns the input unchanged when an update has nothing to write (no empty cross-reference section)', async () => {
    const base = await basePdf(1, false);
    const { bytes, objectOffsets } = writeIncrementalUpdate(await openPdfForUpdate(base));
    expect(bytes).toBe(base);
    expect(objectOffsets.size).toBe(0);
  });

  it('writes only the generation that was changed when a file reused an object number with a new generation', async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([595, 842]);
    const spare = doc.context.register(doc.context.obj({ Spare: 'old' }));
    const base = await doc.save({ useObjectStreams: false });
    // An earlier update (as another product writes it) redefines the spare object under generation 1.
    const text = Buffer.from(base).toString('latin1');
    const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
    const size = Number(/\/Size (\d+)/.exec(text)![1]);
    const root = /\/Root (\d+ \d+ R)/.exec(text)![1];
    const objectAt = base.length;
    const object = `${spare.objectNumber} 1 obj\n<< /Spare (reused) >>\nendobj\n`;
    const xrefAt = objectAt + object.length;
    const update =
      object +
      `xref\n0 1\n0000000000 65535 f \n${spare.objectNumber} 1\n${String(objectAt).padStart(10, '0')} 00001 n \n` +
      `trailer\n<< /Size ${size} /Root ${root} /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const reused = new Uint8Array(Buffer.concat([Buffer.from(base), Buffer.from(update, 'latin1')]));
    expect((await qpdfCheck(reused)).ok).toBe(true);

    const session = await openPdfForUpdate(reused);
    const current = PDFRef.of(spare.objectNumber, 1);
    session.doc.context.lookup(current, PDFDict).set(PDFName.of('Spare'), PDFString.of('changed'));
    session.markModified(current);
    const { bytes } = writeIncrementalUpdate(session);
    const added = Buffer.from(bytes.subarray(reused.length)).toString('latin1');
    expect(added.match(new RegExp(`^${spare.objectNumber} \\d+ obj`, 'gm'))).toEqual([`${spare.objectNumber} 1 obj`]);
    expect((await qpdfCheck(bytes)).ok).toBe(true);
  });
});
