/**
 * Property test of the modification check: random sequences of incremental updates after a signature (new
 * signature fields, signing an empty field, form fill, /DSS, document information, document time-stamps) stay
 * allowed; one disallowed update anywhere in the sequence (content change, non-widget annotation, removed field,
 * page geometry, catalog action, a change to any object the page reaches — resources, nested form XObjects, a
 * pattern, a font and its descriptor —, a new text field, an extra or moved widget, a field action, a visible
 * unsigned signature field, an /Encrypt added) is always caught, naming its rule, while the signature's digest keeps holding. Each update is written with a classic xref table or, at
 * random, an xref stream with a PNG predictor.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyPdf } from '../../src/pades/verify.js';
import { PKI_DIR } from '../../src/testing/test-pki.js';
import { signLastPlaceholder, signatureDict, stream, writeSection, writeXrefStreamSection, type ObjectSpec } from './verify-helpers.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const rootPem = readFileSync(join(PKI_DIR, 'root-ca.pem'));

type Op =
  | { kind: 'sign-field' }
  | { kind: 'fill'; value: string }
  | { kind: 'dss' }
  | { kind: 'info'; title: string }
  | { kind: 'content' }
  | { kind: 'free-text' }
  | { kind: 'remove-field' }
  | { kind: 'media-box' }
  | { kind: 'open-action' }
  | { kind: 'font' }
  | { kind: 'reachable'; target: number }
  | { kind: 'doc-timestamp' }
  | { kind: 'sign-existing' }
  | { kind: 'new-text-field' }
  | { kind: 'extra-widget' }
  | { kind: 'move-widget' }
  | { kind: 'field-action' }
  | { kind: 'visible-signature-field' }
  | { kind: 'encrypt' };

const ALLOWED = new Set(['sign-field', 'fill', 'dss', 'info', 'doc-timestamp', 'sign-existing']);

/** The rule each disallowed operation is refused by. */
const RULE: Record<string, string> = {
  content: 'page-content',
  'free-text': 'annotation-after-approval',
  'remove-field': 'field-removed',
  'media-box': 'page-changed',
  'open-action': 'action-added',
  font: 'page-content',
  reachable: 'page-content',
  'new-text-field': 'new-form-field',
  'extra-widget': 'new-widget',
  'move-widget': 'widget-moved',
  'field-action': 'action-added',
  'visible-signature-field': 'new-visible-signature-field',
  encrypt: 'encrypt-added',
};

/** The document model the updates are written from. */
interface Model {
  fields: number[];
  annots: number[];
  next: number;
  dss: number | undefined;
  dssCerts: number[];
  extraCatalog: string;
  mediaBox: string;
  /** The empty signature field 26 was signed. */
  signedExisting: boolean;
  encrypt: string;
}

const catalog = (m: Model): ObjectSpec => ({
  num: 1,
  body: `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${m.fields.map((n) => `${n} 0 R`).join(' ')}] /SigFlags 3 >>${m.dss ? ` /DSS ${m.dss} 0 R` : ''}${m.extraCatalog} >>`,
});
const page = (m: Model, contents = 4): ObjectSpec => ({
  num: 3,
  body: `<< /Type /Page /Parent 2 0 R /MediaBox ${m.mediaBox} /Contents ${contents} 0 R /Resources << /Font << /F1 6 0 R >> /XObject << /Fm1 20 0 R >> >> /Annots [${m.annots.map((n) => `${n} 0 R`).join(' ')}] >>`,
});
const textField = (value: string | undefined): string =>
  `<< /Type /Annot /Subtype /Widget /FT /Tx /T (Name) /Rect [10 10 100 30] /P 3 0 R /DA (/F1 10 Tf 0 g)${value === undefined ? '' : ` /V (${value})`} >>`;

function baseObjects(m: Model): ObjectSpec[] {
  return [
    catalog(m),
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    page(m),
    { num: 4, body: stream('BT /F1 12 Tf 20 150 Td (I agree to pay 100 EUR.) Tj ET') },
    { num: 5, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /F 132 /V 7 0 R >>' },
    { num: 6, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    { num: 7, body: signatureDict() },
    // The unsigned field's appearance is also the nested form the page draws (the shadow-attack set-up).
    { num: 8, body: textField(undefined).replace(' >>', ' /AP << /N 21 0 R >> >>') },
    { num: 9, body: '<< /Title (Contract) >>' },
    { num: 26, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Empty) /Rect [0 0 0 0] /P 3 0 R /F 132 >>' },
    ...REACHABLE.map((num) => ({ num, body: reachableBody(num, false) })),
  ];
}

/** Objects the page reaches only through nested resources: form → form → pattern, font → descriptor. */
const REACHABLE = [20, 21, 22, 23, 24];

function reachableBody(num: number, changed: boolean): string {
  const text = changed ? 'PAID IN FULL' : 'Payment terms: 30 days';
  switch (num) {
    case 20:
      return stream('/Fm2 Do', `/Type /XObject /Subtype /Form /BBox [0 0 250 20] /Resources << /XObject << /Fm2 21 0 R >> >>${changed ? ' /Matrix [2 0 0 2 0 0]' : ''}`);
    case 21:
      return stream(`/Pattern cs /P1 scn BT /F2 10 Tf (${text}) Tj ET`, '/Type /XObject /Subtype /Form /BBox [0 0 250 20] /Resources << /Font << /F2 23 0 R >> /Pattern << /P1 22 0 R >> >>');
    case 22:
      return stream(changed ? '1 1 1 rg 0 0 8 8 re f' : '0 0 0 rg 0 0 8 8 re f', '/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 8 8] /XStep 8 /YStep 8 /Resources << >>');
    case 23:
      return `<< /Type /Font /Subtype /Type1 /BaseFont /${changed ? 'Courier' : 'Times-Roman'} /FontDescriptor 24 0 R >>`;
    default:
      return `<< /Type /FontDescriptor /FontName /Times-Roman /Flags ${changed ? 4 : 34} /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 700 /Descent -200 /CapHeight 700 /StemV 80 >>`;
  }
}

/** The objects one operation writes, updating the model. */
function apply(m: Model, op: Op): ObjectSpec[] {
  switch (op.kind) {
    case 'sign-field': {
      const field = m.next++;
      const sig = m.next++;
      m.fields.push(field);
      m.annots.push(field);
      // A placeholder-sized dictionary is enough: only the first signature's verdict is under test.
      return [catalog(m), page(m), { num: field, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (S${field}) /Rect [0 0 0 0] /P 3 0 R /F 132 /V ${sig} 0 R >>` }, { num: sig, body: '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 0 0 0] /Contents <> >>' }];
    }
    case 'fill': {
      const ap = m.next++;
      return [{ num: 8, body: textField(op.value).replace(' >>', ` /AP << /N ${ap} 0 R >> >>`) }, { num: ap, body: stream(`BT /F1 10 Tf 2 5 Td (${op.value}) Tj ET`, '/Type /XObject /Subtype /Form /BBox [0 0 90 20]') }];
    }
    case 'dss': {
      const cert = m.next++;
      if (m.dss === undefined) m.dss = m.next++;
      m.dssCerts.push(cert);
      // /DSS updates only add (ETSI EN 319 142-1 §5.4.2): earlier certificates stay listed.
      return [catalog(m), { num: m.dss, body: `<< /Certs [${m.dssCerts.map((c) => `${c} 0 R`).join(' ')}] >>` }, { num: cert, body: stream('not really a certificate') }];
    }
    case 'info':
      return [{ num: 9, body: `<< /Title (${op.title}) >>` }];
    case 'content':
      return [{ num: 4, body: stream('BT /F1 12 Tf 20 150 Td (I agree to pay 900 EUR.) Tj ET') }];
    case 'free-text': {
      const annot = m.next++;
      m.annots.push(annot);
      return [page(m), { num: annot, body: '<< /Type /Annot /Subtype /FreeText /Rect [0 0 300 300] /Contents (void) /DA (/F1 12 Tf) >>' }];
    }
    case 'remove-field':
      m.fields = m.fields.filter((n) => n !== 8);
      return [catalog(m)];
    case 'media-box':
      m.mediaBox = '[0 0 300 150]';
      return [page(m)];
    case 'open-action':
      m.extraCatalog = ' /OpenAction << /S /JavaScript /JS (app.alert(1)) >>';
      return [catalog(m)];
    case 'font':
      return [{ num: 6, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>' }];
    case 'reachable':
      return [{ num: op.target, body: reachableBody(op.target, true) }];
    case 'doc-timestamp': {
      const field = m.next++;
      const sig = m.next++;
      m.fields.push(field);
      m.annots.push(field);
      return [catalog(m), page(m), { num: field, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (TS${field}) /Rect [0 0 0 0] /P 3 0 R /F 132 /V ${sig} 0 R >>` }, { num: sig, body: '<< /Type /DocTimeStamp /SubFilter /ETSI.RFC3161 /ByteRange [0 0 0 0] /Contents <> >>' }];
    }
    case 'sign-existing': {
      if (m.signedExisting) return [{ num: 9, body: '<< /Title (Contract) >>' }];
      m.signedExisting = true;
      const sig = m.next++;
      return [{ num: 26, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Empty) /Rect [0 0 0 0] /P 3 0 R /F 132 /V ${sig} 0 R >>` }, { num: sig, body: '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 0 0 0] /Contents <> >>' }];
    }
    case 'new-text-field': {
      const field = m.next++;
      m.fields.push(field);
      m.annots.push(field);
      return [catalog(m), page(m), { num: field, body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (Total) /V (1,000,000 EUR) /Rect [15 140 250 170] /P 3 0 R /DA (/F1 14 Tf 0 g) >>' }];
    }
    case 'extra-widget': {
      const widget = m.next++;
      m.annots.push(widget);
      return [page(m), { num: 8, body: textField(undefined).replace(' >>', ` /AP << /N 21 0 R >> /Kids [${widget} 0 R] >>`) }, { num: widget, body: `<< /Type /Annot /Subtype /Widget /Parent 8 0 R /Rect [15 140 250 170] /P 3 0 R >>` }];
    }
    case 'move-widget':
      return [{ num: 8, body: textField(undefined).replace('/Rect [10 10 100 30]', '/Rect [15 140 250 170]').replace(' >>', ' /AP << /N 21 0 R >> >>') }];
    case 'field-action':
      return [{ num: 8, body: textField(undefined).replace(' >>', ' /AP << /N 21 0 R >> /AA << /K << /S /JavaScript /JS (1) >> >> >>') }];
    case 'visible-signature-field': {
      const field = m.next++;
      m.fields.push(field);
      m.annots.push(field);
      return [catalog(m), page(m), { num: field, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (V${field}) /Rect [15 140 250 170] /P 3 0 R /F 4 >>` }];
    }
    case 'encrypt': {
      const dict = m.next++;
      m.encrypt = ` /Encrypt ${dict} 0 R /ID [<00> <00>]`;
      return [{ num: dict, body: '<< /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >>' }];
    }
  }
}

const newModel = (): Model => ({ fields: [5, 8, 26], annots: [5, 8, 26], next: 30, dss: undefined, dssCerts: [], extraCatalog: '', mediaBox: '[0 0 300 300]', signedExisting: false, encrypt: '' });
let signed: Buffer;

beforeAll(() => {
  signed = signLastPlaceholder(writeSection(undefined, baseObjects(newModel()), 1, 30, '', ' /Info 9 0 R'), {
    certPath: join(PKI_DIR, 'signer-p256.pem'),
    keyPath: join(PKI_DIR, 'signer-p256.key.pem'),
    chainPaths: [join(PKI_DIR, 'intermediate-ca.pem')],
  });
});

const allowedOp: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'sign-field' }),
  fc.stringMatching(/^[A-Za-z ]{1,12}$/).map<Op>((value) => ({ kind: 'fill', value })),
  fc.constant<Op>({ kind: 'dss' }),
  fc.stringMatching(/^[A-Za-z ]{1,12}$/).map<Op>((title) => ({ kind: 'info', title })),
  fc.constant<Op>({ kind: 'doc-timestamp' }),
  fc.constant<Op>({ kind: 'sign-existing' }),
);
const disallowedOp: fc.Arbitrary<Op> = fc.constantFrom<Op>(
  { kind: 'content' },
  { kind: 'free-text' },
  { kind: 'remove-field' },
  { kind: 'media-box' },
  { kind: 'open-action' },
  { kind: 'font' },
  ...REACHABLE.map((target): Op => ({ kind: 'reachable', target })),
  { kind: 'new-text-field' },
  { kind: 'extra-widget' },
  { kind: 'move-widget' },
  { kind: 'field-action' },
  { kind: 'visible-signature-field' },
  { kind: 'encrypt' },
);

async function verdict(ops: readonly Op[], xrefStreams: readonly boolean[]): Promise<{ ok: boolean; digestOk: boolean; disallowed: readonly string[] }> {
  const m = newModel();
  let pdf: Uint8Array = signed;
  ops.forEach((op, i) => {
    const objects = apply(m, op);
    // The xref stream takes the next object number; an /Encrypt entry, once added, stays in every later trailer.
    const trailer = ` /Info 9 0 R${m.encrypt}`;
    pdf = xrefStreams[i % xrefStreams.length] ? writeXrefStreamSection(pdf, objects, 1, m.next++, trailer) : writeSection(pdf, objects, 1, m.next, '', trailer);
  });
  const report = await verifyPdf(pdf, { trustRoots: [rootPem], now: NOW });
  const first = report.signatures.find((s) => s.fieldName === 'Sig1')!;
  return { ok: first.modifications.ok, digestOk: first.digestOk, disallowed: first.modifications.disallowed };
}

describe('modification check over random update sequences', () => {
  it('accepts any sequence of allowed updates', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(allowedOp, { minLength: 1, maxLength: 5 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), async (ops, streams) => {
        const result = await verdict(ops, streams);
        expect(result.disallowed).toEqual([]);
        expect(result.ok).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('catches one disallowed update anywhere among allowed ones', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(allowedOp, { maxLength: 4 }), disallowedOp, fc.nat(), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), async (ops, bad, where, streams) => {
        const sequence = [...ops];
        sequence.splice(where % (ops.length + 1), 0, bad);
        expect(sequence.filter((op) => !ALLOWED.has(op.kind))).toHaveLength(1);
        const result = await verdict(sequence, streams);
        expect(result.digestOk).toBe(true);
        expect(result.ok).toBe(false);
        // The refusal names its rule, and the object that was changed.
        expect(result.disallowed.join('\n')).toContain(`[${RULE[bad.kind]}]`);
        if (bad.kind === 'reachable') expect(result.disallowed.join('\n')).toContain(`${bad.target} 0 R`);
      }),
      { numRuns: 40 },
    );
  });
});
