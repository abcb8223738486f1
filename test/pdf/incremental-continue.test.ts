/**
 * Several incremental updates from one parse: `continueUpdates` carries the parsed document on after an
 * update, so a signer's form values and each of their signatures are successive updates without parsing the file
 * again. Every revision must stay a byte prefix of the next, open in pdf-lib and pdf.js and pass qpdf --check, and
 * every signature must stay valid, whatever the kind of the file's cross-reference section.
 */
import fc from 'fast-check';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber } from '../../src/pdf/pdf-lib.js';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { appendPageAnnotation, continueUpdates, openPdfForUpdate, writeIncrementalUpdate, type PdfUpdateSession } from '../../src/pdf/incremental.js';
import { readPdfTail } from '../../src/pdf/pdf-tail.js';
import { signInSession } from '../../src/pades/sign-pdf.js';
import { basePdf, qpdf } from '../helpers/base-pdfs.js';
import { pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { testPki } from '../../src/testing/test-pki.js';
import { TEST_NOW } from '../helpers/test-now.js';

const T0 = new Date(TEST_NOW);

async function fixtures(): Promise<Record<string, Uint8Array>> {
  const classic = await basePdf(3, false);
  let end = classic.length;
  while (classic[end - 1] === 0x0a || classic[end - 1] === 0x0d) end--;
  return {
    'classic xref table': classic,
    'classic table, no EOL after %%EOF': classic.slice(0, end),
    'pdf-lib xref stream': await basePdf(3, true),
    'qpdf xref stream + object streams': qpdf(classic, ['--object-streams=generate']),
    'linearized (qpdf --linearize)': qpdf(classic, ['--linearize', '--object-streams=disable']),
  };
}

type Op = { kind: 'sign'; visible: boolean } | { kind: 'add-annotation'; page: number; text: string } | { kind: 'nothing' };

/** Applies `op` as the session's next update; returns the file and the session that continues after it. */
async function applyOp(session: PdfUpdateSession, op: Op): Promise<{ bytes: Uint8Array; session: PdfUpdateSession }> {
  if (op.kind === 'sign') {
    const placement = op.visible ? { pageNumber: 1, left: 40, top: 40, width: 150, height: 60 } : undefined;
    return signInSession(session, { signer: (await testPki()).signers.p256.signer, signingTime: T0, placement });
  }
  if (op.kind === 'add-annotation') {
    const { doc } = session;
    const annot = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [20, 20, 40, 40], Contents: PDFHexString.fromText(op.text) }));
    appendPageAnnotation(session, doc.getPage(op.page % doc.getPageCount()).ref, annot);
  }
  const { bytes } = writeIncrementalUpdate(session);
  return { bytes, session: continueUpdates(session, bytes) };
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
  return prefix.length <= whole.length && Buffer.from(whole.buffer, whole.byteOffset, prefix.length).equals(Buffer.from(prefix));
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('sign' as const), visible: fc.boolean() }),
  fc.record({ kind: fc.constant('add-annotation' as const), page: fc.nat(5), text: fc.string({ maxLength: 30 }) }),
  fc.constant({ kind: 'nothing' as const }),
);

describe('incremental updates continued from one parse', () => {
  it('keep every revision a byte prefix of the next; every revision opens and passes qpdf --check; every signature stays valid', async () => {
    for (const [name, base] of Object.entries(await fixtures())) {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 5 }), async (ops) => {
          let session = await openPdfForUpdate(base);
          const revisions = [base];
          let annotations = 0;
          for (const op of ops) {
            const next = await applyOp(session, op);
            session = next.session;
            revisions.push(next.bytes);
            if (op.kind !== 'nothing') annotations += 1; // a signature's widget (visible or not) is an annotation too
          }
          const final = revisions[revisions.length - 1] as Uint8Array;
          for (const revision of revisions) {
            expect(isPrefix(revision, final), `${name}: revision is a prefix`).toBe(true);
            expect((await PDFDocument.load(revision, { updateMetadata: false })).getPageCount()).toBe(3);
            const check = await qpdfCheck(revision);
            expect(check.ok, `${name}: qpdf --check\n${check.stdout}${check.stderr}`).toBe(true);
          }
          expect(await openWithPdfjs(final)).toEqual({ pages: 3, annotations });
          const signatures = ops.filter((op) => op.kind === 'sign').length;
          if (signatures > 0) {
            const sig = await pdfsigCheck(final);
            expect(sig.signatures.map((s) => s.validation), `${name}: ${sig.stdout}`).toEqual(Array(signatures).fill('Signature is Valid.'));
          }
        }),
        { numRuns: 8 },
      );
    }
  }, 120_000);

  it('chains each cross-reference section to the one before it (/Prev) and keeps /Root', async () => {
    for (const [name, base] of Object.entries(await fixtures())) {
      const first = readPdfTail(base, (await PDFDocument.load(base)).context);
      let session = await openPdfForUpdate(base);
      let previous = first.startxref;
      for (let i = 0; i < 3; i++) {
        const next = await applyOp(session, { kind: 'add-annotation', page: i, text: `note ${i}` });
        session = next.session;
        const tail = readPdfTail(next.bytes, (await PDFDocument.load(next.bytes)).context);
        expect(tail.kind, name).toBe(first.kind);
        expect(tail.trailer.get(PDFName.of('Prev'))?.toString(), name).toBe(String(previous));
        expect(tail.trailer.get(PDFName.of('Root'))?.toString(), name).toBe(first.trailer.get(PDFName.of('Root'))?.toString());
        previous = tail.startxref;
      }
    }
  });

  it('writes an object of an earlier update that pdf-lib replaced, and only what changed', async () => {
    const session = await openPdfForUpdate(await basePdf(1, false));
    const ctx = session.doc.context;
    const ref = ctx.register(ctx.obj({ Label: 'first' }));
    const annot = ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Text', Rect: [1, 1, 2, 2], Note: ref }));
    appendPageAnnotation(session, session.doc.getPage(0).ref, annot);
    const first = writeIncrementalUpdate(session).bytes;
    const next = continueUpdates(session, first);
    ctx.assign(ref, ctx.obj({ Label: 'second' }));
    const { bytes, objectOffsets } = writeIncrementalUpdate(next);
    expect([...objectOffsets.keys()].filter((n) => n <= ref.objectNumber)).toEqual([ref.objectNumber]);
    const reread = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(reread.context.lookup(ref, PDFDict).get(PDFName.of('Label'))?.toString()).toBe('/second');
    expect((await qpdfCheck(bytes)).ok).toBe(true);
  });

  it('refuses to continue a session that wrote nothing yet, or with bytes that are not the update it wrote', async () => {
    const base = await basePdf(1, false);
    const session = await openPdfForUpdate(base);
    expect(() => continueUpdates(session, base)).toThrow(TypeError);
    const ctx = session.doc.context;
    ctx.register(ctx.obj({ N: PDFNumber.of(1) }));
    const { bytes } = writeIncrementalUpdate(session);
    expect(() => continueUpdates(session, bytes.subarray(1))).toThrow(/was \d+ bytes, got \d+/);
    const next = continueUpdates(session, bytes);
    expect(next.original).toBe(bytes);
    expect(() => continueUpdates(session, bytes)).toThrow(TypeError);
    expect(() => writeIncrementalUpdate(session)).toThrow(TypeError);
  });
});
