/**
 * Signing in stages (ISO 32000-2 §12.8.1, ETSI EN 319 142-1 §5; compare pyHanko's PdfTBSDocument): prepare the
 * signature dictionary in its own incremental update with a fixed-width /ByteRange and a zero-filled /Contents
 * placeholder, digest the two signed byte ranges, then embed the CMS in place. Each stage returns a plain value, so a
 * remote signer or a time-stamp authority can sit in between. Offsets of /ByteRange and /Contents are recorded while
 * the update is written, never searched for.
 */
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFObject, PDFString, PDFRef, type PDFContext } from '../pdf/pdf-lib.js';
import { PlacementError, SigningError } from '../errors.js';
import { openPdfForUpdate, writeIncrementalUpdate, type PdfUpdateSession } from '../pdf/incremental.js';
import { readPageGeometry } from '../pdf/page-boxes.js';
import { readerRectToUser } from '../pdf/page-geometry.js';
import { createSignatureAppearance, forgetAppearanceFonts, type SignatureAppearance } from './appearance.js';
import { nodeHashName } from './cms.js';
import { addDocMdpReference, addFieldMdpReference, lockPermission, readDocMdpPermission, setDocMdpPerms, type DocMdpPermission } from './docmdp.js';
import {
  createSignatureField,
  listAllFieldNames,
  listSignatureFields,
  prepareAcroFormForSignature,
  unusedFieldName,
  type SignatureFieldInfo,
} from './signature-field.js';
import type { HashAlgorithm } from './types.js';

/**
 * A box on a page as the reader sees it (docs/design/locations.md#units): points from the visible page's top-left, y
 * down.
 */
export interface SignaturePlacement {
  /** 1-based. */
  readonly pageNumber: number;
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** Options of {@link prepareSignature}. */
export interface PrepareSignatureOptions {
  /** Fully qualified name of the field to sign. An unsigned /Sig field of that name is filled; otherwise one is created at `placement` (without `placement`, an unknown name is an error). */
  readonly field?: string;
  /** Where a new field's widget goes; without it (and without an existing field) the signature is invisible. */
  readonly placement?: SignaturePlacement;
  /** `signature` writes `/Type /Sig`, `doc-timestamp` writes `/Type /DocTimeStamp` (ISO 32000-2 §12.8.5). */
  readonly type: 'signature' | 'doc-timestamp';
  /** Default `ETSI.CAdES.detached` for a signature, `ETSI.RFC3161` for a document time-stamp. */
  readonly subFilter?: string;
  /** Bytes of DER the /Contents placeholder can hold; default 16384. */
  readonly contentsSize?: number;
  /** The time written as `/M` (required for a signature; a document time-stamp carries its time in the token). */
  readonly signingTime?: Date;
  readonly name?: string;
  readonly reason?: string;
  readonly location?: string;
  readonly contactInfo?: string;
  /** What the widget shows; only drawn when the widget has a non-empty rectangle. */
  readonly appearance?: SignatureAppearance;
  /** Certify the document with this DocMDP permission (only for the first signature). */
  readonly docMdp?: DocMdpPermission;
  /** Without `field`: picks an existing unsigned field to fill (sealPdf picks the Seal field this way). */
  readonly selectField?: (fields: readonly SignatureFieldInfo[]) => SignatureFieldInfo | undefined;
  /** Name prefix for a created field (`Signature` → `Signature1`, …). */
  readonly fieldNamePrefix?: string;
}

/** A document with its signature placeholder in place, waiting for the CMS. */
export interface PreparedSignature {
  /** The whole file: the input followed by the update holding the signature dictionary. */
  readonly bytes: Uint8Array;
  /** `[0, a, b, c]`: the signed ranges are `[0, a)` and `[b, b + c)`. */
  readonly byteRange: readonly [number, number, number, number];
  /** Offset of the `<` that opens the /Contents hex string. */
  readonly contentsOffset: number;
  /** Length of the /Contents hex string including `<` and `>`. */
  readonly contentsLength: number;
  /** The name of the field the signature went into. */
  readonly fieldName: string;
}

/** Bytes of DER the /Contents placeholder holds by default: room for a B-T CMS with an RSA chain and TSA token. */
export const DEFAULT_CONTENTS_SIZE = 16384;
/** Digits per /ByteRange number: enough for files up to ~9.3 GB. */
const RANGE_DIGITS = 10;

/** The /ByteRange placeholder: `[` + four zero-filled fixed-width numbers + `]`; records where it was written. */
class ByteRangePlaceholder extends PDFObject {
  writtenAt = -1;
  override clone(): ByteRangePlaceholder {
    return new ByteRangePlaceholder();
  }
  override toString(): string {
    return `[${Array(4).fill('0'.repeat(RANGE_DIGITS)).join(' ')}]`;
  }
  override sizeInBytes(): number {
    return 2 + 4 * RANGE_DIGITS + 3;
  }
  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    this.writtenAt = offset;
    const text = this.toString();
    for (let i = 0; i < text.length; i++) buffer[offset + i] = text.charCodeAt(i);
    return text.length;
  }
}

/** The /Contents placeholder: a hex string of `size` zero bytes; records where it was written. */
class ContentsPlaceholder extends PDFObject {
  writtenAt = -1;
  constructor(readonly size: number) {
    super();
  }
  override clone(): ContentsPlaceholder {
    return new ContentsPlaceholder(this.size);
  }
  override toString(): string {
    return `<${'0'.repeat(this.size * 2)}>`;
  }
  override sizeInBytes(): number {
    return this.size * 2 + 2;
  }
  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    this.writtenAt = offset;
    buffer[offset] = 0x3c;
    buffer.fill(0x30, offset + 1, offset + 1 + this.size * 2);
    buffer[offset + 1 + this.size * 2] = 0x3e;
    return this.size * 2 + 2;
  }
}

/** `D:YYYYMMDDHHmmSS+00'00'`, the PDF date of `time` in UTC. */
export function pdfDate(time: Date): string {
  const iso = time.toISOString();
  return `D:${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}+00'00'`;
}

function assertValidTime(time: Date | undefined, label: string): asserts time is Date {
  if (!(time instanceof Date) || Number.isNaN(time.getTime())) {
    throw new SigningError('SIGNING_TIME_INVALID', `${label} must be a valid Date; got ${String(time)}.`);
  }
}

function resolvePlacement(session: PdfUpdateSession, placement: SignaturePlacement): { pageRef: PDFRef; rect: [number, number, number, number]; rotation: number } {
  const { doc } = session;
  const count = doc.getPageCount();
  if (!Number.isInteger(placement.pageNumber) || placement.pageNumber < 1 || placement.pageNumber > count) {
    throw new PlacementError('PAGE_OUT_OF_RANGE', `Signature placement page ${placement.pageNumber} does not exist: the document has ${count} page(s).`);
  }
  if (!(placement.width > 0) || !(placement.height > 0)) {
    throw new PlacementError('PLACEMENT_EMPTY', `A signature box needs a positive width and height; got ${placement.width} × ${placement.height}.`);
  }
  const page = doc.getPage(placement.pageNumber - 1);
  const geometry = readPageGeometry(page, placement.pageNumber);
  const user = readerRectToUser(geometry, placement);
  return { pageRef: page.ref, rect: [user.x, user.y, user.x + user.width, user.y + user.height], rotation: geometry.rotation };
}

function rotationOfPage(session: PdfUpdateSession, pageRef: PDFRef | undefined): number {
  if (!pageRef) return 0;
  const pages = session.doc.getPages();
  // Looking the page up in the page tree, then its /Rotate the way the placement read it (inherited, and read even
  // where the page's /Parent is not a page tree node).
  const index = pages.findIndex((p) => p.ref === pageRef || (p.ref.objectNumber === pageRef.objectNumber && p.ref.generationNumber === pageRef.generationNumber));
  return index >= 0 ? readPageGeometry(pages[index]!, index + 1).rotation : 0;
}

function pickField(session: PdfUpdateSession, options: PrepareSignatureOptions): { field: SignatureFieldInfo; rotation?: number } {
  const { doc } = session;
  const fields = listSignatureFields(doc);
  if (options.field !== undefined) {
    const existing = fields.find((f) => f.name === options.field);
    if (existing) {
      if (existing.signed) {
        throw new SigningError('FIELD_ALREADY_SIGNED', `The signature field "${options.field}" is already signed: choose an unsigned field or leave the field out to add a new one.`);
      }
      return { field: existing };
    }
    if (listAllFieldNames(doc).includes(options.field)) {
      throw new SigningError('FIELD_NOT_A_SIGNATURE_FIELD', `The field "${options.field}" is not a signature field: give the name of a signature field, or a new name.`);
    }
    if (!options.placement) {
      const unsigned = fields.filter((f) => !f.signed).map((f) => `"${f.name}"`);
      throw new SigningError(
        'FIELD_NOT_FOUND',
        `The document has no signature field "${options.field}"; ${unsigned.length > 0 ? `unsigned signature fields: ${unsigned.join(', ')}` : 'it has no unsigned signature fields'}. Give one of those, or a placement to create the field.`,
      );
    }
  }
  if (options.field === undefined && options.selectField && !options.placement) {
    const selected = options.selectField(fields);
    if (selected && !selected.signed) return { field: selected };
  }
  if (options.field !== undefined && (options.field.includes('.') || options.field === '')) {
    throw new SigningError('FIELD_NAME_INVALID', `A new signature field cannot be named "${options.field}": use a non-empty name without a period (a period separates the levels of a field name).`);
  }
  const name = options.field ?? unusedFieldName(doc, options.fieldNamePrefix ?? (options.type === 'doc-timestamp' ? 'DocTimeStamp' : 'Signature'));
  if (options.placement) {
    const { pageRef, rect, rotation } = resolvePlacement(session, options.placement);
    return { field: createSignatureField(session, { name, pageRef, rect }), rotation };
  }
  return { field: createSignatureField(session, { name, pageRef: doc.getPage(0).ref, rect: [0, 0, 0, 0] }) };
}

function setText(dict: PDFDict, key: string, value: string | undefined): void {
  if (value !== undefined) dict.set(PDFName.of(key), PDFHexString.fromText(value));
}

function signatureDictionary(
  context: PDFContext,
  options: PrepareSignatureOptions,
  byteRange: ByteRangePlaceholder,
  contents: ContentsPlaceholder,
): PDFDict {
  const timestamp = options.type === 'doc-timestamp';
  const dict = context.obj({
    Type: timestamp ? 'DocTimeStamp' : 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: options.subFilter ?? (timestamp ? 'ETSI.RFC3161' : 'ETSI.CAdES.detached'),
  }) as PDFDict;
  dict.set(PDFName.of('ByteRange'), byteRange);
  dict.set(PDFName.of('Contents'), contents);
  if (options.signingTime) dict.set(PDFName.of('M'), PDFString.of(pdfDate(options.signingTime)));
  setText(dict, 'Name', options.name);
  setText(dict, 'Reason', options.reason);
  setText(dict, 'Location', options.location);
  setText(dict, 'ContactInfo', options.contactInfo);
  return dict;
}

/**
 * Stage 1: appends an incremental update that fills (or creates) a signature field with a signature dictionary
 * whose /Contents is a zero-filled placeholder of `contentsSize` bytes and whose /ByteRange already names the final
 * ranges. Refuses a document certified with DocMDP P=1 (`DOCMDP_NO_CHANGES`), certification on a document that is
 * already signed (`CERTIFICATION_NOT_FIRST`), an unknown field without a placement (`FIELD_NOT_FOUND`) and a field
 * already signed (`FIELD_ALREADY_SIGNED`).
 */
export async function prepareSignature(pdf: Uint8Array, options: PrepareSignatureOptions): Promise<PreparedSignature> {
  checkOptions(options); // before the parse: bad options are reported before a bad file
  return prepareSignatureInSession(await openPdfForUpdate(pdf), options);
}

function checkOptions(options: PrepareSignatureOptions): void {
  if (options.type === 'signature') assertValidTime(options.signingTime, 'signingTime');
  else if (options.signingTime !== undefined) assertValidTime(options.signingTime, 'signingTime');
  const contentsSize = options.contentsSize ?? DEFAULT_CONTENTS_SIZE;
  if (!Number.isInteger(contentsSize) || contentsSize < 64 || contentsSize > 4 * 1024 * 1024) {
    throw new SigningError('CONTENTS_SIZE_INVALID', `contentsSize must be a whole number of bytes between 64 and 4194304; got ${contentsSize}.`);
  }
}

/**
 * Stage 1 on a document already open for an update ({@link prepareSignature} without the parse): whatever else the
 * session changed goes in the same update. The session's update is written; once the CMS is embedded, continue
 * with `continueUpdates(session, finalBytes)` for a further update of the same parse. Same errors as
 * {@link prepareSignature}.
 */
export async function prepareSignatureInSession(session: PdfUpdateSession, options: PrepareSignatureOptions): Promise<PreparedSignature> {
  checkOptions(options);
  const contentsSize = options.contentsSize ?? DEFAULT_CONTENTS_SIZE;
  const { doc } = session;
  const context = doc.context;

  const permission = readDocMdpPermission(doc);
  if (permission === 1 && options.type === 'signature') {
    throw new SigningError('DOCMDP_NO_CHANGES', 'The document is certified with DocMDP permission 1 (no changes allowed): another signature would invalidate the certification, so it is refused.');
  }
  if (options.docMdp !== undefined) {
    if (![1, 2, 3].includes(options.docMdp)) {
      throw new SigningError('DOCMDP_INVALID', `docMdp must be 1, 2 or 3; got ${String(options.docMdp)}.`);
    }
    if (options.type !== 'signature') {
      throw new SigningError('DOCMDP_INVALID', 'A document time-stamp cannot certify a document: docMdp is for signatures.');
    }
    if (permission !== undefined || listSignatureFields(doc).some((f) => f.signed)) {
      throw new SigningError('CERTIFICATION_NOT_FIRST', 'Only the first signature of a document can certify it (docMdp): this document is already signed or certified.');
    }
  }

  const { field, rotation } = pickField(session, options);
  prepareAcroFormForSignature(session);

  const byteRange = new ByteRangePlaceholder();
  const contents = new ContentsPlaceholder(contentsSize);
  const signature = signatureDictionary(context, options, byteRange, contents);
  // A field's /Lock says what its signature locks: the signature declares it (FieldMDP), and its /P certifies
  // the document when this is the document's first signature.
  const lock = options.type === 'signature' ? field.dict.lookupMaybe(PDFName.of('Lock'), PDFDict) : undefined;
  const firstSignature = permission === undefined && !listSignatureFields(doc).some((f) => f.signed);
  const certifyAs = options.docMdp ?? (firstSignature ? lockPermission(lock) : undefined);
  if (certifyAs !== undefined) addDocMdpReference(context, signature, certifyAs);
  if (lock) {
    const root = context.trailerInfo.Root;
    addFieldMdpReference(context, signature, lock, root instanceof PDFRef ? root : undefined);
  }
  const signatureRef = context.register(signature);
  if (certifyAs !== undefined) setDocMdpPerms(session, signatureRef);

  field.dict.set(PDFName.of('V'), signatureRef);
  session.markModified(field.ref);

  if (options.appearance) {
    for (const widget of field.widgets) {
      const numbers = rectNumbers(context, widget.dict);
      if (!numbers) continue;
      const w = Math.abs(numbers[2] - numbers[0]);
      const h = Math.abs(numbers[3] - numbers[1]);
      if (w < 1 || h < 1) continue;
      const r = rotation ?? rotationOfPage(session, widget.pageRef);
      const swap = r === 90 || r === 270;
      const ap = await createSignatureAppearance(doc, options.appearance, { width: swap ? h : w, height: swap ? w : h, rotation: r }, options.signingTime ?? new Date(0));
      widget.dict.set(PDFName.of('AP'), context.obj({ N: ap }));
      session.markModified(widget.ref);
    }
    // Fonts and images are embedded (their objects created) on flush.
    await doc.flush();
  }

  const { bytes } = writeIncrementalUpdate(session);
  // A later update of the same parse draws with fonts of its own: re-embedding a subset that is already written
  // would change an object this signature covers.
  forgetAppearanceFonts(doc);
  if (byteRange.writtenAt < 0 || contents.writtenAt < 0) {
    throw new SigningError('PLACEHOLDER_NOT_WRITTEN', 'The signature dictionary was not written in the update.', { origin: 'internal' });
  }
  const contentsOffset = contents.writtenAt;
  const contentsLength = contents.sizeInBytes();
  const after = contentsOffset + contentsLength;
  const range: [number, number, number, number] = [0, contentsOffset, after, bytes.length - after];
  const text = `[${range.map((n) => String(n)).join(' ')}`;
  const slot = byteRange.sizeInBytes() - 1;
  // Same width as the placeholder: the numbers, then spaces, then the closing bracket.
  for (let i = 0; i < slot; i++) bytes[byteRange.writtenAt + i] = i < text.length ? text.charCodeAt(i) : 0x20;
  return { bytes, byteRange: range, contentsOffset, contentsLength, fieldName: field.name };
}

function rectNumbers(context: PDFContext, widget: PDFDict): [number, number, number, number] | undefined {
  const array = widget.lookupMaybe(PDFName.of('Rect'), PDFArray);
  if (!array || array.size() !== 4) return undefined;
  const values = array.asArray().map((v) => {
    const n = context.lookup(v);
    return n instanceof PDFNumber ? n.asNumber() : Number.NaN;
  });
  return values.every(Number.isFinite) ? (values as [number, number, number, number]) : undefined;
}

/**
 * Stage 2: the digest of the two signed byte ranges, hashed in place (streaming over the file, never concatenated).
 */
export function digestPreparedSignature(prepared: PreparedSignature, hash: HashAlgorithm): Uint8Array {
  const [a, b, c, d] = prepared.byteRange;
  return new Uint8Array(
    createHash(nodeHashName(hash))
      .update(prepared.bytes.subarray(a, a + b))
      .update(prepared.bytes.subarray(c, c + d))
      .digest(),
  );
}

/**
 * Stage 3: writes the DER CMS (or time-stamp token) into the /Contents placeholder and returns the final file.
 * `prepared` is left unchanged. Throws SigningError `PLACEHOLDER_TOO_SMALL` (nothing written) when `der` does not fit.
 */
export function embedSignature(prepared: PreparedSignature, der: Uint8Array): Uint8Array {
  checkFits(prepared, der);
  return writeContents(prepared.bytes.slice(), prepared, der);
}

/**
 * Stage 3 for a caller that owns `prepared` and drops it afterwards (signPdf): writes into `prepared.bytes` itself,
 * saving a copy of the whole file. Same checks as {@link embedSignature}.
 */
export function embedSignatureInPlace(prepared: PreparedSignature, der: Uint8Array): Uint8Array {
  checkFits(prepared, der);
  return writeContents(prepared.bytes, prepared, der);
}

function checkFits(prepared: PreparedSignature, der: Uint8Array): void {
  const capacity = (prepared.contentsLength - 2) / 2;
  if (der.length > capacity) {
    throw new SigningError(
      'PLACEHOLDER_TOO_SMALL',
      `The signature is ${der.length} bytes but the placeholder holds ${capacity}: sign again with contentsSize of at least ${der.length + 1024}.`,
    );
  }
}

function writeContents(bytes: Uint8Array, prepared: PreparedSignature, der: Uint8Array): Uint8Array {
  const hex = Buffer.from(der).toString('hex');
  const start = prepared.contentsOffset + 1;
  for (let i = 0; i < hex.length; i++) bytes[start + i] = hex.charCodeAt(i);
  return bytes;
}
