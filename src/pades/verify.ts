/**
 * `verifyPdf`: validates every signature and document time-stamp of a PDF (ISO 32000-2 §12.8, ETSI EN 319 142-1
 * PAdES baseline B-B/B-T/B-LT/B-LTA) and returns the verdict as data (compare pyHanko's validation status): byte
 * range sanity, message digest, CMS signature, signing-certificate attribute, certificate chain to the caller's
 * trust roots, signature time-stamp, level, and whether later incremental updates only made allowed changes.
 * It never throws for a bad document: an unreadable file is a report with `valid: false` and a problem.
 */
import './crypto-engine.js';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFString, type PDFObject } from '../pdf/pdf-lib.js';
import { hasPdfHeader } from '../pdf/load-pdf.js';
import { findRevisions, readRevisionSections, type PdfRevision, type RevisionSection } from '../pdf/revisions.js';
import { XrefView } from '../pdf/xref.js';
import { findOrphanSignatures, findSignatures, type FoundSignature } from './find-signatures.js';
import { policyRefusals, readFieldLocks, type ModificationPolicy } from './change-policy.js';
import { diffRevisions, type ObjectState, type RevisionChanges } from './modification-check.js';
import { checkChain, createCertificateParser, describeName, parseCertificates, type CertificateParser } from './verify-chain.js';
import { checkCmsSignature, checkTimestampToken, createDigest, type CmsCheck } from './verify-cms.js';
import { findCertification, type Certification, type DocMdpPermission } from './verify-docmdp.js';
import { checkRevocationCoverage, readDss, type DssData } from './verify-revocation.js';

/** Options of {@link verifyPdf}. */
export interface VerifyOptions {
  /** Certificates (DER bytes, or PEM bytes or text with one or more certificates) that anchor trust. */
  readonly trustRoots: readonly (Uint8Array | string)[];
  /**
   * The time to judge certificate validity at when a signature has no valid time-stamp (the time-stamp's time is
   * used otherwise). Without it, validity periods of untimestamped signatures are not checked (a warning says so).
   */
  readonly now?: Date;
}

/** PAdES baseline level of a signature, as far as the file shows it. */
export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

/** The verdict on a signature's RFC 3161 time-stamp (or on a document time-stamp's own token). */
export interface TimestampReport {
  /** `genTime` of the token. */
  readonly time: Date | undefined;
  /** The token's imprint matches what it covers and its own CMS signature holds. */
  readonly valid: boolean;
  /** Subject of the time-stamping authority's certificate. */
  readonly tsa: string | undefined;
  readonly chainOk: boolean;
  readonly chainReason: string;
}

/** Whether the revisions after a signature only made allowed changes. */
export interface ModificationReport {
  /** No disallowed change after the signed revision. */
  readonly ok: boolean;
  /** Number of revisions after the one the signature covers. */
  readonly laterRevisions: number;
  readonly allowed: readonly string[];
  readonly disallowed: readonly string[];
}

/** The verdict on one signature or document time-stamp. */
export interface SignatureReport {
  /** Fully qualified name of the signature field, when a field references the signature. */
  readonly fieldName: string | undefined;
  readonly kind: 'signature' | 'document-timestamp';
  /** The /SubFilter, e.g. `ETSI.CAdES.detached`, `adbe.pkcs7.detached`, `ETSI.RFC3161`. */
  readonly subFilter: string | undefined;
  /** The signer (or, for a document time-stamp, the TSA) certificate. */
  readonly signer: { readonly subject: string; readonly issuer: string; readonly serialNumber: string } | undefined;
  /** The claimed signing time /M (not trusted: only a time-stamp proves time). */
  readonly signingTime: Date | undefined;
  readonly byteRange: readonly number[];
  /** Index of the revision whose end the byte range reaches (0 = original document). */
  readonly coveredRevision: number | undefined;
  /** Number of bytes from the file start to the end of the byte range. */
  readonly coveredBytes: number;
  readonly coversWholeDocument: boolean;
  readonly digestAlgorithm: string | undefined;
  readonly signatureAlgorithm: string | undefined;
  readonly digestOk: boolean;
  readonly signatureOk: boolean;
  readonly signingCertificateOk: boolean | undefined;
  readonly chainOk: boolean;
  readonly chainReason: string;
  /** The signature time-stamp (for `signature`), or the token itself (for `document-timestamp`). */
  readonly timestamp: TimestampReport | undefined;
  /** Baseline level; undefined for document time-stamps. */
  readonly level: PadesLevel | undefined;
  readonly modifications: ModificationReport;
  /** The DocMDP permission P when this is the document's certification signature. */
  readonly certification: DocMdpPermission | undefined;
  readonly valid: boolean;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** The verdict on a whole document. */
export interface VerificationReport {
  /** At least one signature, and every signature valid and trusted with no disallowed modification. */
  readonly valid: boolean;
  /** False when the bytes are not a PDF that could be read (not a PDF, truncated, unparsable, bad trust roots). */
  readonly readable: boolean;
  readonly revisions: number;
  /** Signatures and document time-stamps in file order. */
  readonly signatures: readonly SignatureReport[];
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /**
   * When `readable` is false: the documented error code (docs/errors.md) of why — `PDF_EMPTY`, `PDF_NOT_A_PDF`,
   * `PDF_UNREADABLE`, or `INVALID_CERTIFICATE` for trust roots that do not parse.
   */
  readonly code?: UnreadableCode;
}

/** The codes of {@link VerificationReport.code}. */
export type UnreadableCode = 'PDF_EMPTY' | 'PDF_NOT_A_PDF' | 'PDF_UNREADABLE' | 'INVALID_CERTIFICATE';

function failure(problem: string, code: UnreadableCode, revisions = 0): VerificationReport {
  return { valid: false, readable: false, revisions, signatures: [], problems: [problem], warnings: [], code };
}

function unsigned(revisions: number): VerificationReport {
  return { valid: false, readable: true, revisions, signatures: [], problems: ['the document has no signatures'], warnings: [] };
}

function nameValue(dict: PDFDict | undefined, key: string): string | undefined {
  const value = dict?.get(PDFName.of(key));
  return value instanceof PDFName ? value.decodeText() : undefined;
}

/** Parses a PDF date (`D:YYYYMMDDHHmmSS+HH'mm'`, ISO 32000-2 §7.9.4). */
export function parsePdfDate(value: string): Date | undefined {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?/.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh = '00', om = '00'] = m;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const offset = sign === '+' || sign === '-' ? (sign === '+' ? 1 : -1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const date = new Date(utc - offset);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

interface ByteRangeCheck {
  readonly range: number[];
  readonly ok: boolean;
  readonly problems: string[];
  /** The signature value decoded from the gap (equal to /Contents), when the byte range is sound. */
  readonly contents: Uint8Array | undefined;
}

/** The /Contents value as lower-case hex, read without decoding a literal string byte by byte when it is hex. */
function contentsHex(value: PDFObject | undefined): string | undefined {
  if (value instanceof PDFHexString) return value.asString().replace(/\s+/g, '').toLowerCase();
  if (value instanceof PDFString) return Buffer.from(value.asBytes()).toString('hex');
  return undefined;
}

/** Checks that /ByteRange is `[0 a b c]` with the gap exactly the /Contents hex string, inside the file. */
function checkByteRange(pdf: Uint8Array, dict: PDFDict): ByteRangeCheck {
  const problems: string[] = [];
  const array = dict.get(PDFName.of('ByteRange'));
  const range = array instanceof PDFArray ? array.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : NaN)) : [];
  if (range.length !== 4 || range.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    return { range, ok: false, problems: [`/ByteRange must be four non-negative integers, found [${range.join(' ')}]`], contents: undefined };
  }
  const [start, length1, start2, length2] = range as [number, number, number, number];
  if (start !== 0) problems.push(`/ByteRange does not start at 0 (starts at ${start}): the file start is not signed`);
  if (start2 < start + length1) problems.push('/ByteRange ranges overlap or are out of order');
  if (start2 + length2 > pdf.length) problems.push(`/ByteRange reaches byte ${start2 + length2}, beyond the end of the file (${pdf.length} bytes)`);
  let contents: Uint8Array | undefined;
  if (problems.length === 0) {
    const gapStart = start + length1;
    const gap = Buffer.from(pdf.buffer, pdf.byteOffset + gapStart, start2 - gapStart);
    const hex = gap.length >= 2 && gap[0] === 0x3c && gap[gap.length - 1] === 0x3e ? gap.toString('latin1', 1, gap.length - 1) : undefined;
    if (hex === undefined || hex.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(hex)) {
      problems.push('the unsigned gap of /ByteRange is not exactly the /Contents hex string');
    } else if (contentsHex(dict.get(PDFName.of('Contents'))) !== hex.toLowerCase()) {
      problems.push("the unsigned gap of /ByteRange does not hold this signature's /Contents");
    } else contents = Buffer.from(hex, 'hex');
  }
  return { range, ok: problems.length === 0, problems, contents };
}

/** Hashes the byte ranges in place (no concatenated copy). */
function digestRanges(pdf: Uint8Array, range: readonly number[], digestName: string): Uint8Array {
  const [a = 0, b = 0, c = 0, d = 0] = range;
  return createDigest(digestName).update(pdf.subarray(a, a + b)).update(pdf.subarray(c, c + d)).digest();
}

/** Hands the byte ranges out in place, in order. */
function feedRanges(pdf: Uint8Array, range: readonly number[], update: (chunk: Uint8Array) => void): void {
  const [a = 0, b = 0, c = 0, d = 0] = range;
  update(pdf.subarray(a, a + b));
  update(pdf.subarray(c, c + d));
}

/** The revision whose `%%EOF` the signed bytes end at (white space after the marker may be signed too). */
function coveredRevisionOf(pdf: Uint8Array, revisions: readonly PdfRevision[], end: number): PdfRevision | undefined {
  const white = (b: number | undefined): boolean => b === 0x0a || b === 0x0d || b === 0x20 || b === 0x09 || b === 0x0c || b === 0x00;
  return revisions.find((r) => {
    if (end < r.eofEnd || end > pdf.length) return false;
    for (let i = r.eofEnd; i < end; i++) if (!white(pdf[i])) return false;
    return true;
  });
}

/** Judges every revision after the signed one: its outright refusals, and its changes under the signature's policy. */
function summarizeModifications(changes: readonly RevisionChanges[], covered: PdfRevision | undefined, extraProblem: string | undefined, policy: ModificationPolicy): ModificationReport {
  const later = covered ? changes.filter((c) => c.revision > covered.index) : [];
  const disallowed: string[] = [];
  const allowed: string[] = [];
  for (const c of later) {
    const judged = policyRefusals(c, policy);
    disallowed.push(...[...c.disallowed, ...judged.refused].map((d) => `revision ${c.revision}: ${d}`));
    allowed.push(...judged.allowed.map((a) => `revision ${c.revision}: ${a}`));
  }
  if (!covered) disallowed.push('the signed bytes do not end at a revision boundary, so later changes cannot be judged');
  if (extraProblem) disallowed.push(extraProblem);
  return { ok: disallowed.length === 0, laterRevisions: later.length, allowed, disallowed };
}

/**
 * A signature dictionary belongs to the revision its /ByteRange ends with and starts before the unsigned gap: a
 * copy placed in a later revision (a replayed signature) is refused, as is one stored where no byte range reaches.
 */
function replayProblem(ctx: Context, found: FoundSignature, range: readonly number[], covered: PdfRevision): string | undefined {
  const n = found.objectNumber ?? found.fieldObject;
  if (n === undefined) return undefined;
  const entry = ctx.final.objects instanceof XrefView ? ctx.final.objects.entries.get(n) : undefined;
  if (entry === undefined) return undefined;
  const what = found.objectNumber !== undefined ? `the signature dictionary ${n} 0 R` : `the field ${n} 0 R holding the signature dictionary`;
  if (entry.kind !== 'offset') return `[signature-replayed] ${what} is stored in an object stream, outside the bytes its /ByteRange covers`;
  const gapStart = range[1] ?? 0;
  if (entry.offset < covered.start || entry.offset >= gapStart) {
    return `[signature-replayed] ${what} is stored at offset ${entry.offset}, not inside revision ${covered.index} (bytes ${covered.start}–${covered.end}) before the gap its /ByteRange leaves at ${gapStart}: it was copied from elsewhere`;
  }
  return undefined;
}

function certificateSummary(der: Uint8Array | undefined, parse: CertificateParser): SignatureReport['signer'] {
  if (!der) return undefined;
  try {
    const cert = parse(der);
    return { subject: describeName(cert.subject), issuer: describeName(cert.issuer), serialNumber: cert.serialNumber };
  } catch {
    return undefined;
  }
}

interface Context {
  readonly pdf: Uint8Array;
  readonly final: ObjectState;
  readonly certification: Certification | undefined;
  /** Where two conforming readers could read the file differently (each names the object and the readings). */
  readonly ambiguities: readonly string[];
  readonly revisions: readonly PdfRevision[];
  readonly changes: readonly RevisionChanges[];
  readonly trustRoots: readonly Uint8Array[];
  readonly dss: DssData | undefined;
  readonly now: Date | undefined;
  readonly trailingProblem: string | undefined;
  readonly parse: CertificateParser;
}

async function verifyOne(ctx: Context, found: FoundSignature): Promise<VerifiedSignature> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const { dict } = found;
  if (found.orphan) problems.push(`signature dictionary ${found.objectNumber ?? '?'} 0 R is not referenced by any signature field of the final document`);
  const subFilter = nameValue(dict, 'SubFilter');
  const kind = nameValue(dict, 'Type') === 'DocTimeStamp' || subFilter === 'ETSI.RFC3161' ? 'document-timestamp' : 'signature';
  const mValue = dict.get(PDFName.of('M'));
  const signingTime = mValue instanceof PDFString || mValue instanceof PDFHexString ? parsePdfDate(mValue.decodeText()) : undefined;
  const br = checkByteRange(ctx.pdf, dict);
  const { contents } = br;
  problems.push(...br.problems);
  const end = br.range.length === 4 ? (br.range[2] ?? 0) + (br.range[3] ?? 0) : 0;
  const covered = br.ok ? coveredRevisionOf(ctx.pdf, ctx.revisions, end) : undefined;
  if (br.ok && !covered) problems.push(`the signed bytes end at ${end}, which is not the end of a revision (%%EOF)`);
  const coversWholeDocument = br.ok && end === ctx.pdf.length;
  const certifies = ctx.certification !== undefined && ctx.certification.objectNumber === found.objectNumber;
  const policy: ModificationPolicy = { docMdp: certifies ? ctx.certification?.permission : undefined, locks: readFieldLocks(ctx.final, dict, found.field) };
  const modifications = summarizeModifications(ctx.changes, covered, coversWholeDocument ? undefined : ctx.trailingProblem, policy);
  const replayed = covered ? replayProblem(ctx, found, br.range, covered) : undefined;
  if (replayed) problems.push(replayed);
  problems.push(...ctx.ambiguities);
  if (covered && !modifications.ok) problems.push('the document was changed after signing in ways a signed document may not be');
  const base = {
    fieldName: found.fieldName,
    kind,
    subFilter,
    signingTime,
    byteRange: br.range,
    coveredRevision: covered?.index,
    coveredBytes: end,
    coversWholeDocument,
    modifications,
  } as const;
  if (kind === 'signature' && subFilter !== 'ETSI.CAdES.detached' && subFilter !== 'adbe.pkcs7.detached') {
    problems.push(`unsupported /SubFilter ${subFilter ?? '(none)'}: only ETSI.CAdES.detached and adbe.pkcs7.detached are verified`);
  }
  let cms: CmsCheck | undefined;
  if (!(dict.get(PDFName.of('Contents')) instanceof PDFHexString || dict.get(PDFName.of('Contents')) instanceof PDFString)) {
    problems.push('the signature has no /Contents');
  } else if (contents) {
    try {
      cms = checkCmsSignature(
        contents,
        (digestName) => digestRanges(ctx.pdf, br.range, digestName),
        (update) => feedRanges(ctx.pdf, br.range, update),
      );
    } catch (error) {
      problems.push(`/Contents is not a CMS SignedData (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const pool = [...(cms?.certificates ?? []), ...(ctx.dss?.certs ?? [])];
  let digestOk = false;
  let signatureOk = false;
  let timestamp: TimestampReport | undefined;
  let tsaPath: readonly Uint8Array[] = [];
  let validationTime = ctx.now;
  if (cms && kind === 'signature') {
    problems.push(...cms.problems);
    warnings.push(...cms.warnings);
    digestOk = cms.digestOk;
    signatureOk = cms.signatureOk;
    if (cms.hasSigningTime && subFilter === 'ETSI.CAdES.detached') warnings.push('the CMS carries a signingTime attribute, which PAdES baseline forbids');
    if (!cms.hasSignedAttributes && subFilter === 'ETSI.CAdES.detached') problems.push('an ETSI.CAdES.detached signature must have signed attributes');
    if (cms.hasSignedAttributes && cms.signingCertificateOk === undefined && subFilter === 'ETSI.CAdES.detached') {
      warnings.push('the CMS has no signing-certificate(-v2) attribute, which PAdES baseline requires');
    }
    if (cms.timestampToken) {
      const signatureValue = cms.signatureValue;
      const tst = checkTimestampToken(cms.timestampToken, (h) => createDigest(h).update(signatureValue).digest());
      const checked = timestampReport(tst, ctx, problems);
      timestamp = checked.report;
      tsaPath = checked.path;
      if (timestamp.valid) validationTime = tst.time;
      // /M is written before the signature exists, the time-stamp after: a later /M is a claim the token contradicts.
      if (timestamp.valid && tst.time && signingTime && signingTime.getTime() > tst.time.getTime() + 5 * 60_000) {
        warnings.push(`the claimed signing time /M (${signingTime.toISOString()}) is after the time-stamp (${tst.time.toISOString()})`);
      }
    }
  } else if (cms) {
    // A document time-stamp's /Contents is the token itself; its imprint covers the byte ranges.
    const tst = checkTimestampToken(contents!, (h) => digestRanges(ctx.pdf, br.range, h));
    digestOk = tst.imprintOk;
    signatureOk = tst.tokenOk;
    problems.push(...tst.problems);
    timestamp = timestampReport(tst, ctx, problems).report;
    validationTime = ctx.now ?? tst.time;
  }
  let chainOk = false;
  let chainReason = 'no signer certificate';
  let path: readonly Uint8Array[] = [];
  if (cms?.signerCertificate) {
    if (!validationTime) warnings.push('certificate validity periods were not checked: no valid time-stamp and no `now` given');
    const chain = checkChain(cms.signerCertificate, pool, ctx.trustRoots, validationTime, ctx.parse);
    chainOk = chain.chainOk;
    chainReason = chain.reason;
    path = chain.path;
    if (!chainOk) problems.push(`certificate chain: ${chain.reason}`);
  }
  const valid =
    br.ok && covered !== undefined && digestOk && signatureOk && chainOk && modifications.ok && (cms?.signingCertificateOk ?? true) && (timestamp?.valid ?? true) && (timestamp?.chainOk ?? true) && problems.length === 0;
  return {
    ...base,
    signer: certificateSummary(cms?.signerCertificate, ctx.parse),
    digestAlgorithm: cms?.digestAlgorithm,
    signatureAlgorithm: cms?.signatureScheme || undefined,
    digestOk,
    signatureOk,
    signingCertificateOk: cms?.signingCertificateOk,
    chainOk,
    chainReason,
    timestamp,
    valid,
    problems,
    warnings,
    path,
    tsaPath,
  };
}

type VerifiedSignature = Omit<SignatureReport, 'level' | 'certification'> & { path: readonly Uint8Array[]; tsaPath: readonly Uint8Array[] };

/** The report of a signature whose verification failed unexpectedly. */
function unverifiable(found: FoundSignature, error: unknown): VerifiedSignature {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    fieldName: found.fieldName,
    kind: nameValue(found.dict, 'Type') === 'DocTimeStamp' ? 'document-timestamp' : 'signature',
    subFilter: nameValue(found.dict, 'SubFilter'),
    signer: undefined,
    signingTime: undefined,
    byteRange: [],
    coveredRevision: undefined,
    coveredBytes: 0,
    coversWholeDocument: false,
    digestAlgorithm: undefined,
    signatureAlgorithm: undefined,
    digestOk: false,
    signatureOk: false,
    signingCertificateOk: undefined,
    chainOk: false,
    chainReason: 'not checked',
    timestamp: undefined,
    modifications: { ok: false, laterRevisions: 0, allowed: [], disallowed: ['not checked'] },
    valid: false,
    problems: [`the signature could not be verified (${reason})`],
    warnings: [],
    path: [],
    tsaPath: [],
  };
}

function timestampReport(tst: ReturnType<typeof checkTimestampToken>, ctx: Context, problems: string[]): { report: TimestampReport; path: readonly Uint8Array[] } {
  const valid = tst.tokenOk && tst.imprintOk;
  const tsaCert = tst.cms?.signerCertificate;
  let chainOk = false;
  let chainReason = 'no TSA certificate in the token';
  let path: readonly Uint8Array[] = [];
  if (tsaCert) {
    const chain = checkChain(tsaCert, [...(tst.cms?.certificates ?? []), ...(ctx.dss?.certs ?? [])], ctx.trustRoots, tst.time, ctx.parse);
    chainOk = chain.chainOk;
    chainReason = chain.reason;
    path = chain.path;
    if (!chainOk) problems.push(`time-stamp certificate chain: ${chain.reason}`);
    const eku = ctx.parse(tsaCert).keyUsage;
    if (eku !== undefined && !eku.includes('1.3.6.1.5.5.7.3.8')) problems.push('the time-stamp certificate lacks the timeStamping extended key usage');
  } else problems.push('the time-stamp token does not carry the TSA certificate');
  if (!valid && !tst.problems.length) problems.push('the time-stamp token is not valid');
  return { report: { time: tst.time, valid, tsa: certificateSummary(tsaCert, ctx.parse)?.subject, chainOk, chainReason }, path };
}

/**
 * Verifies every signature and document time-stamp of `pdf`. Resolves to a report; never rejects for a bad
 * document.
 *
 * @example
 * const report = await verifyPdf(bytes, { trustRoots: [rootPem] });
 * if (!report.valid) console.log(report.problems, report.signatures.map((s) => s.problems));
 */
export async function verifyPdf(pdf: Uint8Array, options: VerifyOptions): Promise<VerificationReport> {
  if (pdf.length === 0) return failure('the file is empty: not a PDF', 'PDF_EMPTY');
  if (!hasPdfHeader(pdf)) return failure('the file is not a PDF (no "%PDF-" header)', 'PDF_NOT_A_PDF');
  let trustRoots: Uint8Array[];
  try {
    trustRoots = parseCertificates(options.trustRoots);
  } catch (error) {
    return failure(error instanceof Error ? error.message : String(error), 'INVALID_CERTIFICATE');
  }
  const revisions = findRevisions(pdf);
  if (revisions.length === 0) return failure('no "startxref … %%EOF" trailer found: the PDF is truncated or damaged', 'PDF_UNREADABLE');
  let sections: RevisionSection[];
  try {
    sections = readRevisionSections(pdf, revisions);
  } catch (error) {
    return failure(`the PDF cannot be parsed (${error instanceof Error ? error.message : String(error)})`, 'PDF_UNREADABLE', revisions.length);
  }
  const { changes, final } = diffRevisions(sections);
  const warnings: string[] = [];
  const last = revisions[revisions.length - 1]!;
  const trailing = Buffer.from(pdf.buffer, pdf.byteOffset + last.end, pdf.length - last.end).toString('latin1');
  const trailingProblem = /\S/.test(trailing) ? `${pdf.length - last.end} bytes follow the last %%EOF and are not signed` : undefined;
  if (trailingProblem) warnings.push(trailingProblem);
  if (sections.some((s) => s.encrypted)) warnings.push('the document is encrypted: strings such as field names are shown as stored (encrypted)');
  const parse = createCertificateParser();
  const dss = readDss(final, warnings, parse);
  const certification = findCertification(final);
  const ambiguities = [...new Set(sections.flatMap((s) => s.ambiguities))].map((a) => `[xref-ambiguous] ${a}`);
  const ctx: Context = { pdf, final, certification, ambiguities, revisions, changes, trustRoots, dss, now: options.now, trailingProblem, parse };
  const broken: string[] = [];
  const inFields = findSignatures(final, broken);
  const found = [...inFields, ...findOrphanSignatures(sections, final, inFields)];
  if (found.length === 0) return { ...unsigned(revisions.length), problems: ['the document has no signatures', ...broken], warnings };
  const results = [];
  for (const f of found) {
    try {
      results.push({ ...(await verifyOne(ctx, f)), objectNumber: f.objectNumber });
    } catch (error) {
      // A verdict, not a crash: whatever slipped through the checks above makes this one signature unverifiable.
      results.push({ ...unverifiable(f, error), objectNumber: f.objectNumber });
    }
  }
  results.sort((a, b) => (a.byteRange[1] ?? 0) - (b.byteRange[1] ?? 0));
  const dictionaries = new Map<number, number>();
  for (const f of found) if (f.objectNumber !== undefined) dictionaries.set(f.objectNumber, (dictionaries.get(f.objectNumber) ?? 0) + 1);
  const signatures: SignatureReport[] = [];
  for (let i = 0; i < results.length; i++) {
    const { path, tsaPath, objectNumber, ...result } = results[i]!;
    const certifies = certification !== undefined && certification.objectNumber === objectNumber;
    const problems = [...result.problems];
    if (certifies && i > 0) problems.push('the certification signature is not the first signature of the document');
    if (objectNumber !== undefined && (dictionaries.get(objectNumber) ?? 0) > 1) {
      problems.push(`[signature-replayed] the signature dictionary ${objectNumber} 0 R is the value of ${dictionaries.get(objectNumber)} signature fields: one signature counted as several`);
    }
    const base = { ...result, certification: certifies ? certification.permission : undefined };
    if (result.kind === 'document-timestamp') {
      signatures.push({ ...base, level: undefined, problems, valid: result.valid && problems.length === result.problems.length });
      continue;
    }
    const { level, revoked, warnings: levelWarnings } = await levelOf(result, path, tsaPath, trustRoots, dss, results.slice(i + 1)).catch(
      (error: unknown) => ({ level: 'B-T' as const, revoked: [], warnings: [`the /DSS revocation data could not be read (${error instanceof Error ? error.message : String(error)})`] }),
    );
    problems.push(...revoked.map((r) => `revocation data reports the certificate of ${r} as revoked`));
    const valid = result.valid && problems.length === result.problems.length;
    signatures.push({ ...base, level, valid, problems, warnings: [...result.warnings, ...levelWarnings] });
  }
  const valid = signatures.every((s) => s.valid) && broken.length === 0;
  const problems = [...(signatures.every((s) => s.valid) ? [] : ['at least one signature is not valid']), ...broken];
  // A change is "after signing" only after the first revision a signature covers; the incremental updates of the
  // unsigned document before it are its history (every signature covers them), and warn of nothing.
  const covered = signatures.map((s) => s.coveredRevision).filter((r): r is number => r !== undefined);
  const firstSigned = covered.length === signatures.length ? Math.min(...covered) : 0;
  for (const c of changes) if (c.revision > firstSigned) warnings.push(...c.warnings.map((w) => `revision ${c.revision}: ${w}`));
  return { valid, readable: true, revisions: revisions.length, signatures, problems, warnings };
}

async function levelOf(
  signature: Omit<SignatureReport, 'level' | 'certification'>,
  path: readonly Uint8Array[],
  tsaPath: readonly Uint8Array[],
  trustRoots: readonly Uint8Array[],
  dss: DssData | undefined,
  later: readonly Omit<SignatureReport, 'level' | 'certification'>[],
): Promise<{ level: PadesLevel; revoked: readonly string[]; warnings: readonly string[] }> {
  if (!signature.timestamp?.valid) return { level: 'B-B', revoked: [], warnings: [] };
  if (!dss || path.length === 0) return { level: 'B-T', revoked: [], warnings: [] };
  const coverage = await checkRevocationCoverage(path, trustRoots, dss);
  const revoked = [...coverage.revoked];
  const warnings = [...coverage.warnings];
  if (!coverage.covered) return { level: 'B-T', revoked, warnings };
  // ETSI EN 319 142-1 asks for the time-stamp chain's validation data too; its absence is reported, not demoted.
  const tsaCoverage = tsaPath.length > 0 ? await checkRevocationCoverage(tsaPath, trustRoots, dss) : undefined;
  if (tsaCoverage) {
    revoked.push(...tsaCoverage.revoked);
    warnings.push(...tsaCoverage.warnings);
    if (!tsaCoverage.covered) warnings.push(`the /DSS has no revocation data for the time-stamp chain (${tsaCoverage.missing.join('; ')})`);
  }
  const docTimestamp = later.some((s) => s.kind === 'document-timestamp' && s.digestOk && s.signatureOk);
  return { level: docTimestamp ? 'B-LTA' : 'B-LT', revoked, warnings };
}
