/**
 * Validation data for PAdES B-LT (ETSI EN 319 142-1 §5.4; ISO 32000-2 §12.8.4.3 "Document Security Store"):
 * collects the certificate chain of every signature and time-stamp in the document (the signers' CMS, their
 * signature time-stamp tokens, document time-stamps), fetches OCSP responses (or CRLs) for each certificate through
 * the handed-in fetcher, and writes them as a `/DSS` dictionary (/Certs, /OCSPs, /CRLs and one /VRI entry per
 * signature, keyed by the uppercase hex SHA-1 of the signature's /Contents) in a new incremental update, merged
 * with any /DSS the document already has.
 */
import './crypto-engine.js';
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFStream, PDFString, decodePDFRawStream, type PDFContext, type PDFObject } from '../pdf/pdf-lib.js';
import * as pkijs from 'pkijs';
import { SigningError } from '../errors.js';
import { openPdfForUpdate, writeIncrementalUpdate } from '../pdf/incremental.js';
import { isSignatureDictionary } from '../pdf/acroform.js';
import { pemToDer } from './keys/software.js';
import { pdfDate } from './prepare-signature.js';
import { fetchCrl, fetchOcsp, isIssuedBy, revocationUrls, type RevocationStatus } from './revocation.js';
import type { RevocationFetcher } from './types.js';

/** Options of `addValidationData`. */
export interface AddValidationDataOptions {
  /** Fetches OCSP responses and CRLs (the core opens no connection itself). */
  readonly fetcher: RevocationFetcher;
  /** The time the revocation data must be current at; also written as each VRI's /TU. */
  readonly now: Date;
  /** Trust anchors (DER or PEM): complete chains whose root the CMS leaves out (the root goes into /Certs too). */
  readonly trustRoots?: readonly (Uint8Array | string)[];
  /** Further certificates (DER or PEM) that may complete chains (e.g. intermediates the CMS does not embed). */
  readonly extraCertificates?: readonly (Uint8Array | string)[];
  /** Write the /DSS even when some certificate has no revocation data (default: throw `VALIDATION_DATA_INCOMPLETE`). */
  readonly allowIncomplete?: boolean;
}

/** What was found out about one certificate. */
export interface CertificateValidation {
  readonly subject: string;
  /** `none` for trust anchors and OCSP responders marked id-pkix-ocsp-nocheck. */
  readonly source: 'ocsp' | 'crl' | 'none';
  readonly status: RevocationStatus | 'not-checked';
  /** Why no revocation data was found, when it was not. */
  readonly problem?: string;
}

/** The result of `addValidationData`. */
export interface AddValidationDataResult {
  /** The document with the /DSS update appended (the input is an exact prefix). */
  readonly bytes: Uint8Array;
  /** VRI keys of the signatures and document time-stamps covered. */
  readonly vriKeys: readonly string[];
  readonly certificates: readonly CertificateValidation[];
  readonly warnings: readonly string[];
}

const OID_TST_ATTRIBUTE = '1.2.840.113549.1.9.16.2.14';
const OID_OCSP_NOCHECK = '1.3.6.1.5.5.7.48.1.5';

interface Cert {
  readonly der: Uint8Array;
  readonly parsed: pkijs.Certificate;
  readonly key: string;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function toCert(der: Uint8Array): Cert | undefined {
  try {
    return { der, parsed: pkijs.Certificate.fromBER(der), key: sha256Hex(der) };
  } catch {
    return undefined;
  }
}

const NAME_LABELS: Record<string, string> = {
  '2.5.4.6': 'C',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.97': 'organizationIdentifier',
  '2.5.4.3': 'CN',
  '1.2.840.113549.1.9.1': 'E',
};

function subjectText(cert: pkijs.Certificate): string {
  return cert.subject.typesAndValues.map((tv) => `${NAME_LABELS[tv.type] ?? tv.type}=${String(tv.value.valueBlock.value)}`).join(', ');
}

/** The signer certificate and every certificate of a CMS SignedData, then of its signature time-stamp tokens. */
function collectFromCms(der: Uint8Array, leaves: Cert[], pool: Map<string, Cert>, warnings: string[], label: string): void {
  let signed: pkijs.SignedData;
  try {
    const parsed = asn1js.fromBER(der);
    if (parsed.offset === -1) throw new Error(parsed.result.error);
    signed = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: parsed.result }).content });
  } catch (error) {
    warnings.push(`${label}: /Contents is not a CMS SignedData (${(error as Error).message}); skipped`);
    return;
  }
  const certs = (signed.certificates ?? [])
    .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
    .map((c) => toCert(new Uint8Array(c.toSchema().toBER(false))))
    .filter((c): c is Cert => c !== undefined);
  for (const c of certs) pool.set(c.key, c);
  for (const info of signed.signerInfos) {
    const sid: unknown = info.sid;
    const leaf = sid instanceof pkijs.IssuerAndSerialNumber
      ? certs.find((c) => c.parsed.issuer.isEqual(sid.issuer) && c.parsed.serialNumber.isEqual(sid.serialNumber))
      : certs[0];
    if (leaf) leaves.push(leaf);
    else warnings.push(`${label}: the signer certificate is not embedded; its chain is not covered`);
    for (const attr of info.unsignedAttrs?.attributes ?? []) {
      if (attr.type !== OID_TST_ATTRIBUTE) continue;
      for (const value of attr.values) collectFromCms(new Uint8Array(value.toBER(false)), leaves, pool, warnings, `${label} (signature time-stamp)`);
    }
  }
}

/** The chain of `leaf` within `pool`: leaf first, each next the issuer of the previous, ending at a self-signed one when found. */
function chainOf(leaf: Cert, pool: Map<string, Cert>): Cert[] {
  const chain = [leaf];
  let current = leaf;
  while (!current.parsed.issuer.isEqual(current.parsed.subject) && chain.length < 10) {
    const issuer = [...pool.values()].find((c) => !chain.includes(c) && c.parsed.subject.isEqual(current.parsed.issuer) && isIssuedBy(current.der, c.der));
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

function hasOcspNoCheck(cert: Cert): boolean {
  return cert.parsed.extensions?.some((e) => e.extnID === OID_OCSP_NOCHECK) ?? false;
}

function streamBytes(object: PDFObject | undefined, context: PDFContext): Uint8Array | undefined {
  const resolved = object instanceof PDFRef ? context.lookup(object) : object;
  if (resolved instanceof PDFRawStream) return decodePDFRawStream(resolved).decode();
  if (resolved instanceof PDFStream) return resolved.getContents();
  return undefined;
}

/** Signature dictionaries of the document: every dictionary with /ByteRange and /Contents. */
function signatureDictionaries(context: PDFContext): { ref: PDFRef; contents: Uint8Array; label: string }[] {
  const out: { ref: PDFRef; contents: Uint8Array; label: string }[] = [];
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (!isSignatureDictionary(object)) continue;
    const contents = object.get(PDFName.of('Contents')) as PDFHexString | PDFString;
    const type = object.get(PDFName.of('Type'));
    out.push({ ref, contents: contents.asBytes(), label: `${type instanceof PDFName ? type.decodeText() : 'Sig'} ${ref.objectNumber} ${ref.generationNumber} R` });
  }
  return out;
}

/**
 * Appends an incremental update with a /DSS holding the certificates and revocation data (OCSP preferred, CRL as
 * fallback) of every signature and time-stamp in `pdf`, plus a /VRI entry per signature. Throws SigningError
 * `NO_SIGNATURES` for an unsigned document and `VALIDATION_DATA_INCOMPLETE` (listing the certificates) when some
 * certificate has no revocation data, unless `allowIncomplete`.
 * @example
 * const { bytes } = await addValidationData(signedPdf, { fetcher, now: new Date(), trustRoots: [rootDer] });
 */
export async function addValidationData(pdf: Uint8Array, options: AddValidationDataOptions): Promise<AddValidationDataResult> {
  const session = await openPdfForUpdate(pdf);
  const { doc } = session;
  const context = doc.context;
  const warnings: string[] = [];
  const signatures = signatureDictionaries(context);
  if (signatures.length === 0) throw new SigningError('NO_SIGNATURES', 'The document has no signatures, so there is no validation data to add; sign it first.');

  const pool = new Map<string, Cert>();
  const handedIn = (list: readonly (Uint8Array | string)[] | undefined): Cert[] =>
    (list ?? []).map((input) => {
      const cert = toCert(pemToDer(input));
      if (!cert) throw new SigningError('INVALID_CERTIFICATE', 'A trust root or extra certificate is neither DER nor PEM X.509.');
      pool.set(cert.key, cert);
      return cert;
    });
  const trusted = new Set(handedIn(options.trustRoots).map((c) => c.key));
  handedIn(options.extraCertificates);

  // Existing /DSS: its streams are kept (same references) and new data is only added when not already there.
  const catalogRef = context.trailerInfo.Root;
  if (!(catalogRef instanceof PDFRef)) throw new SigningError('PDF_NO_CATALOG', 'The document trailer has no /Root reference.', { origin: 'internal' });
  const catalog = context.lookup(catalogRef, PDFDict);
  const existingDssObject = catalog.get(PDFName.of('DSS'));
  const existingDss = existingDssObject instanceof PDFRef ? context.lookupMaybe(existingDssObject, PDFDict) : existingDssObject instanceof PDFDict ? existingDssObject : undefined;
  const stores = { Certs: new Map<string, PDFRef>(), OCSPs: new Map<string, PDFRef>(), CRLs: new Map<string, PDFRef>() };
  for (const key of ['Certs', 'OCSPs', 'CRLs'] as const) {
    const array = existingDss?.lookupMaybe(PDFName.of(key), PDFArray);
    for (const item of array?.asArray() ?? []) {
      const bytes = streamBytes(item, context);
      if (bytes && item instanceof PDFRef) {
        stores[key].set(sha256Hex(bytes), item);
        if (key === 'Certs') {
          const cert = toCert(bytes);
          if (cert) pool.set(cert.key, cert);
        }
      }
    }
  }
  const store = (key: keyof typeof stores, bytes: Uint8Array): PDFRef => {
    const hash = sha256Hex(bytes);
    let ref = stores[key].get(hash);
    if (!ref) {
      ref = context.register(context.flateStream(bytes));
      stores[key].set(hash, ref);
    }
    return ref;
  };

  const validations = new Map<string, CertificateValidation & { ocsp?: PDFRef; crl?: PDFRef; responderCerts?: Uint8Array[] }>();
  const validate = async (cert: Cert, issuer: Cert | undefined): Promise<void> => {
    if (validations.has(cert.key)) return;
    const subject = subjectText(cert.parsed);
    const selfSigned = cert.parsed.issuer.isEqual(cert.parsed.subject);
    if (selfSigned || hasOcspNoCheck(cert)) {
      validations.set(cert.key, { subject, source: 'none', status: 'not-checked' });
      return;
    }
    if (!issuer) {
      validations.set(cert.key, { subject, source: 'none', status: 'not-checked', problem: 'its issuer certificate is not available (hand it in as extraCertificates or trustRoots)' });
      return;
    }
    const urls = revocationUrls(cert.der);
    const problems: string[] = [];
    if (urls.ocsp.length > 0) {
      try {
        const result = await fetchOcsp(options.fetcher, { certificate: cert.der, issuer: issuer.der, now: options.now });
        // An "unknown" answer proves nothing; a CRL may still do.
        if (result.status !== 'unknown' || urls.crl.length === 0) {
          validations.set(cert.key, {
            subject,
            source: 'ocsp',
            status: result.status,
            ocsp: store('OCSPs', result.response),
            responderCerts: [...result.certificates],
            ...(result.status === 'unknown' ? { problem: 'the OCSP responder does not know the certificate' } : {}),
          });
          return;
        }
        problems.push('the OCSP responder does not know the certificate');
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    if (urls.crl.length > 0) {
      try {
        const result = await fetchCrl(options.fetcher, { certificate: cert.der, issuer: issuer.der, now: options.now });
        validations.set(cert.key, { subject, source: 'crl', status: result.status, crl: store('CRLs', result.crl) });
        return;
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    if (urls.ocsp.length === 0 && urls.crl.length === 0) problems.push('the certificate names no OCSP responder and no CRL distribution point');
    validations.set(cert.key, { subject, source: 'none', status: 'not-checked', problem: problems.join('; ') });
  };

  const vri = new Map<string, { certs: Set<PDFRef>; ocsps: Set<PDFRef>; crls: Set<PDFRef> }>();
  for (const signature of signatures) {
    const leaves: Cert[] = [];
    collectFromCms(signature.contents, leaves, pool, warnings, signature.label);
    const entry = { certs: new Set<PDFRef>(), ocsps: new Set<PDFRef>(), crls: new Set<PDFRef>() };
    const pending: Cert[] = [];
    for (const leaf of leaves) pending.push(...chainOf(leaf, pool));
    const seen = new Set<string>();
    while (pending.length > 0) {
      const cert = pending.shift() as Cert;
      if (seen.has(cert.key)) continue;
      seen.add(cert.key);
      const chain = chainOf(cert, pool);
      const top = chain[chain.length - 1] as Cert;
      if (!top.parsed.issuer.isEqual(top.parsed.subject) && !trusted.has(top.key)) {
        warnings.push(`${signature.label}: the chain of ${subjectText(cert.parsed)} ends at ${subjectText(top.parsed)} without reaching a root; hand the root in as trustRoots`);
      }
      await validate(cert, chain[1]);
      const validation = validations.get(cert.key);
      entry.certs.add(store('Certs', cert.der));
      if (validation?.ocsp) entry.ocsps.add(validation.ocsp);
      if (validation?.crl) entry.crls.add(validation.crl);
      // A delegated OCSP responder's certificate is validation data too (RFC 6960 §4.2.2.2).
      for (const der of validation?.responderCerts ?? []) {
        const responder = toCert(der);
        if (responder && !seen.has(responder.key)) {
          pool.set(responder.key, responder);
          pending.push(responder);
        }
      }
    }
    const key = createHash('sha1').update(signature.contents).digest('hex').toUpperCase();
    vri.set(key, entry);
  }

  const certificates = [...validations.values()].map(({ subject, source, status, problem }) => ({ subject, source, status, ...(problem === undefined ? {} : { problem }) }));
  const missing = certificates.filter((c) => c.problem !== undefined);
  if (missing.length > 0 && !options.allowIncomplete) {
    throw new SigningError(
      'VALIDATION_DATA_INCOMPLETE',
      `No revocation data for ${missing.map((c) => `${c.subject} (${c.problem})`).join('; ')}. Fix the responder or pass allowIncomplete to write what was found.`,
      { origin: 'internal' },
    );
  }
  for (const c of missing) warnings.push(`no revocation data for ${c.subject}: ${c.problem}`);

  // The /DSS only grows (ETSI EN 319 142-1 §5.4.2; pyHanko refuses anything else): existing arrays keep their
  // entries (and stay indirect when they were), existing /VRI entries stay exactly as they are, and only keys of
  // signatures without one are added.
  const dss = (existingDss?.clone(context) ?? context.obj({})) as PDFDict;
  for (const key of ['Certs', 'OCSPs', 'CRLs'] as const) {
    const current = dss.get(PDFName.of(key));
    const array = current instanceof PDFRef ? context.lookupMaybe(current, PDFArray) : current instanceof PDFArray ? current : undefined;
    const items: PDFObject[] = [...(array?.asArray() ?? [])];
    const present = new Set(items.filter((i): i is PDFRef => i instanceof PDFRef).map((r) => r.tag));
    for (const ref of stores[key].values()) if (!present.has(ref.tag)) items.push(ref);
    if (items.length === 0) continue;
    const grown = context.obj(items) as PDFArray;
    if (current instanceof PDFRef && array) {
      if (grown.size() !== array.size()) {
        context.assign(current, grown);
        session.markModified(current);
      }
    } else dss.set(PDFName.of(key), grown);
  }
  const vriValue = dss.get(PDFName.of('VRI'));
  const existingVri = vriValue instanceof PDFRef ? context.lookupMaybe(vriValue, PDFDict) : vriValue instanceof PDFDict ? vriValue : undefined;
  const vriDict = (existingVri?.clone(context) ?? context.obj({})) as PDFDict;
  const added: string[] = [];
  for (const [key, entry] of vri) {
    if (vriDict.has(PDFName.of(key))) continue;
    const item = context.obj({ Type: 'VRI' }) as PDFDict;
    if (entry.certs.size > 0) item.set(PDFName.of('Cert'), context.obj([...entry.certs]));
    if (entry.ocsps.size > 0) item.set(PDFName.of('OCSP'), context.obj([...entry.ocsps]));
    if (entry.crls.size > 0) item.set(PDFName.of('CRL'), context.obj([...entry.crls]));
    item.set(PDFName.of('TU'), PDFString.of(pdfDate(options.now)));
    vriDict.set(PDFName.of(key), context.register(item));
    added.push(key);
  }
  if (vriValue instanceof PDFRef && existingVri) {
    if (added.length > 0) {
      context.assign(vriValue, vriDict);
      session.markModified(vriValue);
    }
  } else dss.set(PDFName.of('VRI'), context.register(vriDict));
  if (existingDssObject instanceof PDFRef && existingDss) {
    context.assign(existingDssObject, dss);
    session.markModified(existingDssObject);
  } else {
    catalog.set(PDFName.of('DSS'), context.register(dss));
    session.markModified(catalogRef);
  }
  const { bytes } = writeIncrementalUpdate(session);
  return { bytes, vriKeys: [...vri.keys()], certificates, warnings };
}
