/**
 * The attack corpus: small PDFs made from the published PDF-signature attacks (incremental saving, signature
 * wrapping, Evil Annotation, Sneaky Signature, FieldMDP locks, cross-reference and object-stream tricks) and honest
 * controls. Every update is written by hand (raw objects and a cross-reference section), never by a PDF library's
 * save, so that each file is exactly the attack it names. scripts/generate-attack-corpus.ts writes them to
 * fixtures/attacks/ with a manifest of the verdicts a correct verifier gives; the tests read them from there.
 */
import { deflateSync } from 'node:zlib';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  lastStartxref,
  signLastPlaceholder,
  signatureDict,
  stream,
  timestampLastPlaceholder,
  writeSection,
  writeTsaConfig,
  type ObjectSpec,
  type OpensslIdentity,
} from './verify-helpers.js';

/** What a correct verifier says about one file. */
export interface AttackCase {
  /** File name in fixtures/attacks/. */
  readonly file: string;
  /** The attack class (or `control` for an honest file). */
  readonly class: string;
  readonly description: string;
  /** `valid`: verify exits 0; `invalid`: it exits 3 naming `rule`. */
  readonly expected: 'valid' | 'invalid';
  /** The rule the refusal names (in brackets in the report). */
  readonly rule?: string;
  /** Whether the attack changes what poppler and MuPDF show (checked by rendering). */
  readonly changesPixels?: boolean;
  readonly bytes: Uint8Array;
}

/** An entry of fixtures/attacks/manifest.json. */
export interface ManifestEntry extends Omit<AttackCase, 'bytes'> {
  /** pyHanko's verdict on the file, or `pending`. */
  readonly pyhanko: string;
}

const CORPUS_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'attacks');

/** The manifest of the corpus in fixtures/attacks/. */
export function readManifest(): { files: ManifestEntry[] } {
  return JSON.parse(readFileSync(join(CORPUS_DIR, 'manifest.json'), 'utf8')) as { files: ManifestEntry[] };
}

/** A file of the corpus. */
export const attackFile = (file: string): Uint8Array => readFileSync(join(CORPUS_DIR, file));

/** The PKI files the corpus signs with. */
export interface CorpusPki {
  readonly signer: OpensslIdentity;
  readonly tsa: { readonly certPath: string; readonly keyPath: string; readonly chainPath: string };
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
const refs = (ns: readonly number[]): string => ns.map((n) => `${n} 0 R`).join(' ');

/** The page text the signer signed, and what the attacks paint over it. */
const SIGNED_TEXT = 'BT /F1 14 Tf 20 150 Td (I agree to pay 100 EUR.) Tj ET';
const FORGED = (x: number, y: number): string => `1 1 1 rg 0 0 235 30 re f 0 g BT /F1 14 Tf ${x} ${y} Td (I agree to pay 1,000,000 EUR.) Tj ET`;
/** A box over the signed line. */
const OVER_TEXT = '[15 140 250 170]';
const FORGED_AP = (num: number): ObjectSpec => ({ num, body: stream(FORGED(5, 10), '/Type /XObject /Subtype /Form /BBox [0 0 235 30] /Resources << /Font << /F1 6 0 R >> >>') });

interface BaseOptions {
  /** Extra entries of the signature dictionary (a /Reference with DocMDP or FieldMDP). */
  readonly sigExtra?: string;
  /** Extra entries of the signed field Sig1 (a /Lock). */
  readonly fieldExtra?: string;
  /** Certifies with this DocMDP level (adds /Perms and the DocMDP reference). */
  readonly certify?: 1 | 2 | 3;
  /** The field Amount is a hidden widget over the signed text whose appearance already shows the forgery. */
  readonly hiddenForgery?: boolean;
}

/** Objects of the signed document: Sig1 (signed, invisible), an empty text field Amount, an empty Sig2, /Info. */
const FIELDS = [5, 8, 10];
const catalog = (fields: readonly number[], extra = ''): ObjectSpec => ({ num: 1, body: `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${refs(fields)}] /SigFlags 3 /DR << /Font << /F1 6 0 R >> >> >>${extra} >>` });
const page = (annots: readonly number[], contents = '4 0 R'): ObjectSpec => ({
  num: 3,
  body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents ${contents} /Resources << /Font << /F1 6 0 R >> >> /Annots [${refs(annots)}] >>`,
});
const amountField = (extra = '', rect = '[20 60 200 80]'): string => `<< /Type /Annot /Subtype /Widget /FT /Tx /T (Amount) /Rect ${rect} /P 3 0 R /F 4 /DA (/F1 12 Tf 0 g) /AP << /N 9 0 R >>${extra} >>`;

function baseObjects(options: BaseOptions): ObjectSpec[] {
  const docMdp = options.certify ? ` /Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${options.certify} /V /1.2 >> >>]` : '';
  const sig = signatureDict().replace('/Type /Sig ', `/Type /Sig${docMdp}${options.sigExtra ?? ''} `);
  return [
    catalog(FIELDS, options.certify ? ' /Perms << /DocMDP 7 0 R >>' : ''),
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    page(FIELDS),
    { num: 4, body: stream(SIGNED_TEXT) },
    { num: 5, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /F 132 /V 7 0 R${options.fieldExtra ?? ''} >>` },
    { num: 6, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    { num: 7, body: sig },
    { num: 8, body: options.hiddenForgery ? amountField('', OVER_TEXT).replace('/F 4', '/F 6').replace('/AP << /N 9 0 R >>', '/AP << /N 12 0 R >>') : amountField() },
    { num: 9, body: stream('', '/Type /XObject /Subtype /Form /BBox [0 0 180 20]') },
    { num: 10, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig2) /Rect [0 0 0 0] /P 3 0 R /F 132 >>' },
    { num: 11, body: '<< /Title (Contract) /Producer (hand-written) >>' },
    ...(options.hiddenForgery ? [FORGED_AP(12)] : []),
  ];
}

const SIZE = 13;
const INFO = ' /Info 11 0 R';

/** An incremental update with a classic xref table (the trailer keeps /Info). */
const update = (pdf: Uint8Array, objects: readonly ObjectSpec[], size: number, extraTrailer = ''): Uint8Array => writeSection(pdf, objects, 1, size, '', `${INFO}${extraTrailer}`);

/** Filling Amount: a value and an appearance showing it. */
const fillAmount = (pdf: Uint8Array, value = '250 EUR'): Uint8Array =>
  update(pdf, [{ num: 8, body: amountField(` /V (${value})`).replace('/AP << /N 9 0 R >>', '/AP << /N 20 0 R >>') }, { num: 20, body: stream(`BT /F1 12 Tf 2 5 Td (${value}) Tj ET`, '/Type /XObject /Subtype /Form /BBox [0 0 180 20] /Resources << /Font << /F1 6 0 R >> >>') }], 21);

/** Appends a new signature field `name` (objects `field`, `sig`) signed or time-stamped in the same revision. */
function appendSignatureField(pdf: Uint8Array, fields: number[], name: string, field: number, sig: number, kind: 'signature' | 'timestamp', extra: readonly ObjectSpec[] = [], catalogExtra = ''): Uint8Array {
  fields.push(field);
  const options = kind === 'timestamp' ? { type: 'DocTimeStamp', subFilter: 'ETSI.RFC3161' } : {};
  return update(pdf, [catalog(fields, catalogExtra), page(fields), { num: field, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (${name}) /Rect [0 0 0 0] /P 3 0 R /F 132 /V ${sig} 0 R >>` }, { num: sig, body: signatureDict(options) }, ...extra], Math.max(field, sig, ...extra.map((o) => o.num)) + 1);
}

/** A hand-written xref stream section (type 1 and type 2 entries), optionally hybrid-free; returns the file. */
function xrefStreamUpdate(pdf: Uint8Array, objects: readonly { num: number; bytes: Buffer }[], entries: ReadonlyMap<number, [1, number] | [2, number, number]>, xrefNum: number, size: number): Buffer {
  const parts: Buffer[] = [Buffer.from(pdf)];
  let offset = pdf.length;
  const all = new Map(entries);
  for (const o of objects) {
    all.set(o.num, [1, offset]);
    parts.push(o.bytes);
    offset += o.bytes.length;
  }
  all.set(xrefNum, [1, offset]);
  const numbers = [...all.keys()].sort((a, b) => a - b);
  const rows = numbers.map((n) => {
    const e = all.get(n)!;
    const row = Buffer.alloc(7);
    row.writeUInt8(e[0], 0);
    row.writeUInt32BE(e[1], 1);
    row.writeUInt16BE(e[0] === 2 ? e[2] : 0, 5);
    return row;
  });
  const data = deflateSync(Buffer.concat(rows));
  parts.push(
    latin1(`${xrefNum} 0 obj\n<< /Type /XRef /Size ${size} /W [1 4 2] /Index [${numbers.map((n) => `${n} 1`).join(' ')}] /Root 1 0 R${INFO} /Prev ${lastStartxref(pdf)} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`),
    data,
    latin1(`\nendstream\nendobj\nstartxref\n${offset}\n%%EOF\n`),
  );
  return Buffer.concat(parts);
}

const objectBytes = (num: number, body: string): Buffer => latin1(`${num} 0 obj\n${body}\nendobj\n`);

/** Offset of the last `N 0 obj` of `pdf`. */
function offsetOf(pdf: Uint8Array, num: number): number {
  const at = Buffer.from(pdf).lastIndexOf(latin1(`\n${num} 0 obj`));
  if (at < 0) throw new Error(`object ${num} not found`);
  return at + 1;
}

/** Builds the whole corpus. Signatures are made with openssl, so the bytes differ from run to run. */
export function buildAttackCorpus(pki: CorpusPki): AttackCase[] {
  const sign = (pdf: Uint8Array): Uint8Array => signLastPlaceholder(pdf, pki.signer);
  const signedBase = (options: BaseOptions = {}): Uint8Array => sign(writeSection(undefined, baseObjects(options), 1, SIZE, '', INFO));
  const tsaDir = mkdtempSync(join(tmpdir(), 'paraph-attacks-tsa-'));
  try {
    const tsaConfig = writeTsaConfig(tsaDir, pki.tsa);
    const stamp = (pdf: Uint8Array): Uint8Array => timestampLastPlaceholder(pdf, tsaConfig);
    const approval = signedBase();
    const cases: AttackCase[] = [];
    const add = (c: Omit<AttackCase, 'bytes'>, bytes: Uint8Array): void => void cases.push({ ...c, bytes });

    // --- Class 1: new fields, widgets, annotations and actions over signed content (incremental saving attacks).
    add(
      { file: 'new-signature-field-visible.pdf', class: 'new fields and widgets', description: 'an unsigned signature field whose widget paints "1,000,000 EUR" over the signed text', expected: 'invalid', rule: 'new-visible-signature-field', changesPixels: true },
      update(approval, [catalog([...FIELDS, 20]), page([...FIELDS, 20]), { num: 20, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig3) /Rect ${OVER_TEXT} /P 3 0 R /F 4 /AP << /N 21 0 R >> >>` }, FORGED_AP(21)], 22),
    );
    add(
      { file: 'new-text-field.pdf', class: 'new fields and widgets', description: 'a new text field over the signed text, filled with "1,000,000 EUR"', expected: 'invalid', rule: 'new-form-field', changesPixels: true },
      update(approval, [catalog([...FIELDS, 20]), page([...FIELDS, 20]), { num: 20, body: `<< /Type /Annot /Subtype /Widget /FT /Tx /T (Total) /V (1,000,000 EUR) /Rect ${OVER_TEXT} /P 3 0 R /F 4 /DA (/F1 14 Tf 0 g) /AP << /N 21 0 R >> >>` }, FORGED_AP(21)], 22),
    );
    add(
      { file: 'extra-widget.pdf', class: 'new fields and widgets', description: 'a second widget of the existing field Amount, placed over the signed text', expected: 'invalid', rule: 'new-widget', changesPixels: true },
      update(
        approval,
        [page([...FIELDS, 20]), { num: 8, body: amountField(' /Kids [20 0 R]') }, { num: 20, body: `<< /Type /Annot /Subtype /Widget /Parent 8 0 R /Rect ${OVER_TEXT} /P 3 0 R /F 4 /AP << /N 21 0 R >> >>` }, FORGED_AP(21)],
        22,
      ),
    );
    add(
      { file: 'moved-widget.pdf', class: 'new fields and widgets', description: 'the existing field Amount moved over the signed text and filled', expected: 'invalid', rule: 'widget-moved', changesPixels: true },
      update(approval, [{ num: 8, body: amountField(' /V (1,000,000 EUR)', OVER_TEXT).replace('/AP << /N 9 0 R >>', '/AP << /N 21 0 R >>') }, FORGED_AP(21)], 22),
    );
    add(
      { file: 'hidden-widget-shown.pdf', class: 'new fields and widgets', description: 'a hidden widget signed with a forged appearance over the text is shown by clearing its Hidden flag', expected: 'invalid', rule: 'widget-flags', changesPixels: true },
      update(signedBase({ hiddenForgery: true }), [{ num: 8, body: amountField('', OVER_TEXT).replace('/AP << /N 9 0 R >>', '/AP << /N 12 0 R >>') }], SIZE),
    );
    add(
      { file: 'field-javascript-action.pdf', class: 'new fields and widgets', description: 'an /AA JavaScript action added to the existing field Amount', expected: 'invalid', rule: 'action-added' },
      update(approval, [{ num: 8, body: amountField(' /AA << /Fo << /S /JavaScript /JS (app.alert\\(1\\)) >> >>') }], SIZE),
    );
    add(
      { file: 'link-uri-action.pdf', class: 'new fields and widgets', description: 'a link annotation with a URI action added over the page', expected: 'invalid', rule: 'action-added' },
      update(approval, [page([...FIELDS, 20]), { num: 20, body: '<< /Type /Annot /Subtype /Link /Rect [0 0 300 300] /Border [0 0 0] /A << /S /URI /URI (https://attacker.example/) >> >>' }], 21),
    );
    add(
      { file: 'approval-free-text.pdf', class: 'new fields and widgets', description: 'a FreeText annotation over the signed text after an approval signature', expected: 'invalid', rule: 'annotation-after-approval', changesPixels: true },
      update(approval, [page([...FIELDS, 20]), { num: 20, body: `<< /Type /Annot /Subtype /FreeText /Rect ${OVER_TEXT} /Contents (1,000,000 EUR) /DA (/Helv 14 Tf 0 g) /AP << /N 21 0 R >> >>` }, FORGED_AP(21)], 22),
    );
    add(
      { file: 'control-fill-field.pdf', class: 'control', description: 'the empty field Amount filled after an approval signature', expected: 'valid' },
      fillAmount(approval),
    );
    add(
      { file: 'control-sign-existing-field.pdf', class: 'control', description: 'the empty signature field Sig2 signed after the first signature', expected: 'valid' },
      sign(update(approval, [{ num: 10, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig2) /Rect [0 0 0 0] /P 3 0 R /F 132 /V 20 0 R >>' }, { num: 20, body: signatureDict() }], 21)),
    );
    add(
      { file: 'control-cosigner-new-field.pdf', class: 'control', description: 'a co-signer adds an invisible signature field and signs it in the same revision', expected: 'valid' },
      sign(appendSignatureField(approval, [...FIELDS], 'Sig3', 20, 21, 'signature')),
    );

    // --- Certification (Evil Annotation, Sneaky Signature): what each DocMDP level allows.
    const p1 = signedBase({ certify: 1 });
    const p2 = signedBase({ certify: 2 });
    const p3 = signedBase({ certify: 3 });
    add(
      { file: 'p2-sneaky-signature.pdf', class: 'certification', description: 'after P=2: a new visible signature field painting over the signed text (Sneaky Signature)', expected: 'invalid', rule: 'new-visible-signature-field', changesPixels: true },
      update(p2, [catalog([...FIELDS, 20], ' /Perms << /DocMDP 7 0 R >>'), page([...FIELDS, 20]), { num: 20, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig3) /Rect ${OVER_TEXT} /P 3 0 R /F 4 /AP << /N 21 0 R >> >>` }, FORGED_AP(21)], 22),
    );
    add(
      { file: 'p2-evil-annotation.pdf', class: 'certification', description: 'after P=2: a FreeText annotation over the signed text (Evil Annotation)', expected: 'invalid', rule: 'docmdp-p2', changesPixels: true },
      update(p2, [page([...FIELDS, 20]), { num: 20, body: `<< /Type /Annot /Subtype /FreeText /Rect ${OVER_TEXT} /Contents (1,000,000 EUR) /DA (/Helv 14 Tf 0 g) /AP << /N 21 0 R >> >>` }, FORGED_AP(21)], 22),
    );
    add({ file: 'p1-fill-field.pdf', class: 'certification', description: 'after P=1: the field Amount filled', expected: 'invalid', rule: 'docmdp-p1' }, fillAmount(p1));
    add({ file: 'control-p2-fill-field.pdf', class: 'control', description: 'after P=2: the field Amount filled', expected: 'valid' }, fillAmount(p2));
    add(
      { file: 'control-p3-text-annotation.pdf', class: 'control', description: 'after P=3: a sticky-note (Text) annotation added', expected: 'valid' },
      update(p3, [page([...FIELDS, 20]), { num: 20, body: '<< /Type /Annot /Subtype /Text /Rect [260 260 280 280] /Contents (Checked) /Name /Comment >>' }], 21),
    );
    {
      // pyHanko's `ltvfix` after P=1: /DSS and an /Info update that changes nothing shown, then a document time-stamp.
      const dss = update(
        p1,
        [catalog(FIELDS, ' /Perms << /DocMDP 7 0 R >> /DSS 20 0 R'), { num: 20, body: '<< /Certs [21 0 R] >>' }, { num: 21, body: stream('not really a certificate') }, { num: 11, body: "<< /Title (Contract) /Producer (pyHanko 0.20.1) /ModDate (D:20261122100000Z) >>" }],
        22,
      );
      add(
        { file: 'control-p1-dss-info-doc-timestamp.pdf', class: 'control', description: 'after P=1: /DSS and /Info /Producer and /ModDate (as pyHanko ltvfix writes), then a document time-stamp', expected: 'valid' },
        stamp(appendSignatureField(dss, [...FIELDS], 'DocTS', 22, 23, 'timestamp', [], ' /Perms << /DocMDP 7 0 R >> /DSS 20 0 R')),
      );
      add(
        { file: 'p1-info-title.pdf', class: 'certification', description: 'after P=1: the /Info /Title changed (a viewer may show it)', expected: 'invalid', rule: 'docmdp-p1' },
        update(p1, [{ num: 11, body: '<< /Title (Paid in full) /Producer (hand-written) >>' }], SIZE),
      );
      // A document time-stamp in the same revision as a new text field does not carry it.
      const withField = [...FIELDS, 20];
      add(
        { file: 'p1-doc-timestamp-carries-field.pdf', class: 'document time-stamp', description: 'after P=1: a revision adds a text field over the signed text and a valid document time-stamp', expected: 'invalid', rule: 'new-form-field', changesPixels: true },
        stamp(
          appendSignatureField(p1, withField, 'DocTS', 22, 23, 'timestamp', [
            { num: 20, body: `<< /Type /Annot /Subtype /Widget /FT /Tx /T (Total) /V (1,000,000 EUR) /Rect ${OVER_TEXT} /P 3 0 R /F 4 /DA (/F1 14 Tf 0 g) /AP << /N 21 0 R >> >>` },
            FORGED_AP(21),
          ], ' /Perms << /DocMDP 7 0 R >>'),
        ),
      );
    }

    // --- FieldMDP.
    const fieldMdp = (action: string, fields: string): string => ` /Reference [<< /Type /SigRef /TransformMethod /FieldMDP /TransformParams << /Type /TransformParams /Action /${action}${fields ? ` /Fields [${fields}]` : ''} /V /1.2 >> >>]`;
    add({ file: 'fieldmdp-include.pdf', class: 'FieldMDP', description: 'FieldMDP /Include [Amount]: Amount filled after signing', expected: 'invalid', rule: 'fieldmdp-lock' }, fillAmount(signedBase({ sigExtra: fieldMdp('Include', '(Amount)') })));
    add({ file: 'fieldmdp-all.pdf', class: 'FieldMDP', description: 'FieldMDP /All: Amount filled after signing', expected: 'invalid', rule: 'fieldmdp-lock' }, fillAmount(signedBase({ sigExtra: fieldMdp('All', '') })));
    add({ file: 'fieldmdp-exclude.pdf', class: 'FieldMDP', description: 'FieldMDP /Exclude [Sig2]: Amount filled after signing', expected: 'invalid', rule: 'fieldmdp-lock' }, fillAmount(signedBase({ sigExtra: fieldMdp('Exclude', '(Sig2)') })));
    add(
      { file: 'field-lock.pdf', class: 'FieldMDP', description: 'the signed field carries /Lock /Include [Amount]: Amount filled after signing', expected: 'invalid', rule: 'fieldmdp-lock' },
      fillAmount(signedBase({ fieldExtra: ' /Lock << /Type /SigFieldLock /Action /Include /Fields [(Amount)] >>' })),
    );
    add(
      { file: 'control-fieldmdp-other-field.pdf', class: 'control', description: 'FieldMDP /Include [Sig2]: Amount (not locked) filled after signing', expected: 'valid' },
      fillAmount(signedBase({ sigExtra: fieldMdp('Include', '(Sig2)') })),
    );

    // --- Replayed signature dictionary, /Encrypt added later.
    {
      const body = Buffer.from(approval).toString('latin1');
      const start = body.indexOf('7 0 obj\n') + '7 0 obj\n'.length;
      const copy = body.slice(start, body.indexOf('\nendobj', start)).replace('/Type /Sig ', '/Type /Sig /Reason (Approved by the CFO) ');
      add(
        { file: 'replayed-signature.pdf', class: 'replayed signature', description: 'a copy of the signature dictionary, with a forged /Reason, as the value of the empty field Sig2 in a later revision', expected: 'invalid', rule: 'signature-replayed' },
        update(approval, [{ num: 10, body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig2) /Rect [0 0 0 0] /P 3 0 R /F 132 /V 20 0 R >>' }, { num: 20, body: copy }], 21),
      );
    }
    add(
      { file: 'encrypt-added.pdf', class: '/Encrypt added', description: 'a later trailer adds an /Encrypt dictionary: readers decrypt the signed strings and streams into garbage', expected: 'invalid', rule: 'encrypt-added', changesPixels: true },
      update(approval, [{ num: 20, body: '<< /Filter /Standard /V 1 /R 2 /O <0000000000000000000000000000000000000000000000000000000000000000> /U <0000000000000000000000000000000000000000000000000000000000000000> /P -4 >>' }], 21, ' /Encrypt 20 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]'),
    );

    // --- Cross-reference ambiguity.
    const forgedContent = stream('BT /F1 14 Tf 20 150 Td (I agree to pay 1,000,000 EUR.) Tj ET');
    {
      // Object 4 listed twice in one table: first its signed definition, last a new one.
      const parts: Buffer[] = [Buffer.from(approval)];
      const newAt = approval.length;
      parts.push(objectBytes(4, forgedContent));
      const xrefAt = newAt + parts[1]!.length;
      const entry = (at: number): string => `${String(at).padStart(10, '0')} 00000 n \n`;
      parts.push(latin1(`xref\n4 1\n${entry(offsetOf(approval, 4))}4 1\n${entry(newAt)}trailer\n<< /Size ${SIZE} /Root 1 0 R${INFO} /Prev ${lastStartxref(approval)} >>\nstartxref\n${xrefAt}\n%%EOF\n`));
      add({ file: 'xref-duplicate-entry.pdf', class: 'cross-reference ambiguity', description: 'object 4 (the page content) listed twice in one xref table: the first entry is the signed content, the last a forged one', expected: 'invalid', rule: 'xref-ambiguous' }, Buffer.concat(parts));
    }
    {
      // 19-byte entries (no space before the end of line) and an unlisted redefinition of the page content.
      const parts: Buffer[] = [Buffer.from(approval)];
      const infoAt = approval.length;
      parts.push(objectBytes(11, '<< /Title (Contract) /Producer (hand-written) /ModDate (D:20261122100000Z) >>'));
      parts.push(objectBytes(4, forgedContent));
      const xrefAt = infoAt + parts[1]!.length + parts[2]!.length;
      parts.push(latin1(`xref\n11 1\n${String(infoAt).padStart(10, '0')} 00000 n\ntrailer\n<< /Size ${SIZE} /Root 1 0 R${INFO} /Prev ${lastStartxref(approval)} >>\nstartxref\n${xrefAt}\n%%EOF\n`));
      add({ file: 'xref-19-byte-entries.pdf', class: 'cross-reference ambiguity', description: 'xref entries of 19 bytes and an unlisted redefinition of the page content, which a reader rebuilding the table takes', expected: 'invalid', rule: 'xref-ambiguous' }, Buffer.concat(parts));
    }
    {
      // An object stream holding the page twice: index 0 the signed page, index 1 one whose content is forged.
      const signedPage = page(FIELDS).body;
      const forgedPage = page(FIELDS, '20 0 R').body;
      const header = `3 0 3 ${signedPage.length + 1} `;
      const objStmData = `${header}${signedPage}\n${forgedPage}\n`;
      const objStm = objectBytes(21, `<< /Type /ObjStm /N 2 /First ${header.length} /Length ${objStmData.length} >>\nstream\n${objStmData}\nendstream`);
      add(
        { file: 'objstm-duplicate-number.pdf', class: 'cross-reference ambiguity', description: 'an object stream defines the page twice; the xref stream points at the signed one, a reader looking up by number takes the forged one', expected: 'invalid', rule: 'xref-ambiguous' },
        xrefStreamUpdate(approval, [{ num: 20, bytes: objectBytes(20, forgedContent) }, { num: 21, bytes: objStm }], new Map([[3, [2, 21, 0]]]), 22, 23),
      );
    }
    {
      // A hybrid update: the table keeps the signed page, its /XRefStm points at a forged one.
      const parts: Buffer[] = [Buffer.from(approval)];
      let at = approval.length;
      const contentAt = at;
      parts.push(objectBytes(20, forgedContent));
      at += parts[1]!.length;
      const pageAt = at;
      parts.push(objectBytes(3, page(FIELDS, '20 0 R').body));
      at += parts[2]!.length;
      const rows = Buffer.concat(
        [
          [3, pageAt],
          [20, contentAt],
        ].map(([, offset]) => {
          const row = Buffer.alloc(5);
          row.writeUInt8(1, 0);
          row.writeUInt32BE(offset!, 1);
          return row;
        }),
      );
      const xrefStmAt = at;
      const xrefStm = objectBytes(21, `<< /Type /XRef /Size 22 /W [1 4 0] /Index [3 1 20 1] /Length ${rows.length} >>\nstream\n${rows.toString('latin1')}\nendstream`);
      parts.push(xrefStm);
      at += xrefStm.length;
      const entry = (offset: number): string => `${String(offset).padStart(10, '0')} 00000 n \n`;
      parts.push(latin1(`xref\n3 1\n${entry(offsetOf(approval, 3))}20 2\n${entry(contentAt)}${entry(xrefStmAt)}trailer\n<< /Size 22 /Root 1 0 R${INFO} /Prev ${lastStartxref(approval)} /XRefStm ${xrefStmAt} >>\nstartxref\n${at}\n%%EOF\n`));
      add({ file: 'hybrid-xrefstm-disagrees.pdf', class: 'cross-reference ambiguity', description: "a hybrid update whose table keeps the signed page while its /XRefStm points at a page with forged content", expected: 'invalid', rule: 'xref-ambiguous' }, Buffer.concat(parts));
    }
    add({ file: 'control-signed.pdf', class: 'control', description: 'the signed document, unchanged', expected: 'valid' }, approval);
    return cases;
  } finally {
    rmSync(tsaDir, { recursive: true, force: true });
  }
}
