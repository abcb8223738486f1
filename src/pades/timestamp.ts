/**
 * RFC 3161 time-stamp client (B-T and B-LTA): builds a TimeStampReq (RFC 3161 §2.4.1, with nonce and
 * certReq), posts it over HTTP (RFC 3161 §3.4, `application/timestamp-query`), and accepts the TimeStampResp only
 * when the status is granted, the nonce and message imprint are the ones asked for, the token's CMS signature
 * holds and its certificate is a TSA certificate (critical EKU timeStamping only, RFC 3161 §2.3). Returns the
 * TimeStampToken that goes into a CMS unsigned attribute or a /DocTimeStamp.
 */
import './crypto-engine.js';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { TimestampError } from '../errors.js';
import type { HashAlgorithm, Timestamper } from './types.js';
import { checkTimestampToken } from './verify-cms.js';

const DIGEST_OID: Record<HashAlgorithm, string> = {
  'SHA-256': '2.16.840.1.101.3.4.2.1',
  'SHA-384': '2.16.840.1.101.3.4.2.2',
  'SHA-512': '2.16.840.1.101.3.4.2.3',
};
const DIGEST_NODE_NAME: Record<HashAlgorithm, string> = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };
const DIGEST_LENGTH: Record<HashAlgorithm, number> = { 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 };
const OID_EKU = '2.5.29.37';
const OID_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const FAILURE_INFO = ['badAlg', '', 'badRequest', '', '', 'badDataFormat', '', '', '', '', '', '', '', '', 'timeNotAvailable', 'unacceptedPolicy', 'unacceptedExtension', 'addInfoNotAvailable', '', '', '', '', '', '', '', 'systemFailure'];

/** What a TimeStampReq asks for. */
export interface TimestampRequest {
  readonly digest: Uint8Array;
  readonly hash: HashAlgorithm;
  /** Positive nonce, big-endian bytes. */
  readonly nonce: Uint8Array;
  /** Requested TSA policy OID. */
  readonly policy?: string;
}

/** What a time-stamp token says. */
export interface TimestampInfo {
  readonly genTime: Date;
  readonly policy: string;
  /** Serial number of the token, hex. */
  readonly serialNumber: string;
  readonly hash: HashAlgorithm | undefined;
  readonly imprint: Uint8Array;
  readonly nonce: Uint8Array | undefined;
  /** DER certificates carried in the token (the TSA's first when the TSA sent it). */
  readonly certificates: readonly Uint8Array[];
}

function checkDigest(digest: Uint8Array, hash: HashAlgorithm): void {
  if (!(hash in DIGEST_OID)) {
    throw new TimestampError('TSA_UNSUPPORTED_HASH', `Hash "${String(hash)}" is not supported for time-stamps; use SHA-256, SHA-384 or SHA-512.`);
  }
  if (digest.length !== DIGEST_LENGTH[hash]) {
    throw new TimestampError('TSA_BAD_DIGEST', `A ${hash} digest has ${DIGEST_LENGTH[hash]} bytes; got ${digest.length}.`);
  }
}

/** Encodes a positive integer's big-endian bytes as DER INTEGER content (leading 0x00 when the top bit is set). */
function positiveInteger(bytes: Uint8Array): asn1js.Integer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const body = bytes.subarray(start);
  return new asn1js.Integer({ valueHex: (body[0] ?? 0) & 0x80 ? Uint8Array.of(0, ...body) : Uint8Array.from(body) });
}

/** Builds the DER TimeStampReq (version 1, certReq true) for `request`. */
export function buildTimestampRequest(request: TimestampRequest): Uint8Array {
  checkDigest(request.digest, request.hash);
  const req = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: DIGEST_OID[request.hash], algorithmParams: new asn1js.Null() }),
      hashedMessage: new asn1js.OctetString({ valueHex: Uint8Array.from(request.digest) }),
    }),
    nonce: positiveInteger(request.nonce),
    certReq: true,
    ...(request.policy === undefined ? {} : { reqPolicy: request.policy }),
  });
  return new Uint8Array(req.toSchema().toBER(false));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

function integerBytes(value: asn1js.Integer): Uint8Array {
  const view = value.valueBlock.valueHexView;
  let start = 0;
  while (start < view.length - 1 && view[start] === 0) start++;
  return Uint8Array.from(view.subarray(start));
}

function hashOfOid(oid: string): HashAlgorithm | undefined {
  return (Object.keys(DIGEST_OID) as HashAlgorithm[]).find((h) => DIGEST_OID[h] === oid);
}

/** Reads a DER TimeStampToken (CMS ContentInfo with a TSTInfo). Throws `TSA_BAD_RESPONSE` when it is not one. */
export function parseTimestampToken(token: Uint8Array): TimestampInfo {
  try {
    const info = pkijs.ContentInfo.fromBER(token);
    const signed = new pkijs.SignedData({ schema: info.content });
    const eContent = signed.encapContentInfo.eContent;
    if (signed.encapContentInfo.eContentType !== pkijs.id_eContentType_TSTInfo || !eContent) throw new Error('no TSTInfo inside');
    const tst = pkijs.TSTInfo.fromBER(eContent.getValue());
    return {
      genTime: tst.genTime,
      policy: tst.policy,
      serialNumber: Buffer.from(integerBytes(tst.serialNumber)).toString('hex'),
      hash: hashOfOid(tst.messageImprint.hashAlgorithm.algorithmId),
      imprint: Uint8Array.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView),
      nonce: tst.nonce ? integerBytes(tst.nonce) : undefined,
      certificates: (signed.certificates ?? [])
        .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
        .map((c) => new Uint8Array(c.toSchema().toBER(false))),
    };
  } catch (cause) {
    throw new TimestampError('TSA_BAD_RESPONSE', `The time-stamp token is not a CMS SignedData with a TSTInfo: ${(cause as Error).message}.`, { cause, origin: 'internal' });
  }
}

function isTsaCertificate(der: Uint8Array): boolean {
  const cert = pkijs.Certificate.fromBER(der);
  const eku = cert.extensions?.find((e) => e.extnID === OID_EKU);
  const purposes = (eku?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  return eku?.critical === true && purposes.length === 1 && purposes[0] === OID_TIME_STAMPING;
}

/**
 * Checks a DER TimeStampResp against the request it answers and returns the DER TimeStampToken. Throws
 * `TimestampError` with `TSA_REJECTED` (status not granted), `TSA_BAD_RESPONSE`, `TSA_NONCE_MISMATCH`,
 * `TSA_IMPRINT_MISMATCH`, `TSA_POLICY_MISMATCH`, `TSA_SIGNATURE_INVALID` or `TSA_CERTIFICATE_INVALID`.
 */
export function checkTimestampResponse(response: Uint8Array, request: TimestampRequest): Uint8Array {
  let resp: pkijs.TimeStampResp;
  try {
    resp = pkijs.TimeStampResp.fromBER(response);
  } catch (cause) {
    throw new TimestampError('TSA_BAD_RESPONSE', `The TSA answer is not an RFC 3161 TimeStampResp: ${(cause as Error).message}.`, { cause, origin: 'internal' });
  }
  const status = resp.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = (resp.status.statusStrings ?? []).map((s) => s.valueBlock.value).join('; ');
    const bits = resp.status.failInfo?.valueBlock.valueHexView;
    const failures = bits ? FAILURE_INFO.filter((name, i) => name !== '' && ((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0) : [];
    throw new TimestampError(
      'TSA_REJECTED',
      `The TSA refused the time-stamp request (status ${status}${failures.length ? `, ${failures.join(', ')}` : ''}${text ? `: ${text}` : ''}).`,
      { origin: 'internal' },
    );
  }
  if (!resp.timeStampToken) throw new TimestampError('TSA_BAD_RESPONSE', 'The TSA granted the request but sent no time-stamp token.', { origin: 'internal' });
  // The token's own bytes as the TSA sent them (not a re-encoding): its signature covers them.
  const outer = asn1js.fromBER(response).result;
  const tokenBlock = outer instanceof asn1js.Sequence ? outer.valueBlock.value[1] : undefined;
  const token = tokenBlock ? Uint8Array.from(tokenBlock.valueBeforeDecodeView) : new Uint8Array(resp.timeStampToken.toSchema().toBER(false));
  const info = parseTimestampToken(token);
  if (!info.nonce || !sameBytes(info.nonce, integerBytes(positiveInteger(request.nonce)))) {
    throw new TimestampError('TSA_NONCE_MISMATCH', 'The time-stamp token does not carry the nonce of the request (a replayed or foreign answer).', { origin: 'internal' });
  }
  if (info.hash !== request.hash || !sameBytes(info.imprint, request.digest)) {
    throw new TimestampError('TSA_IMPRINT_MISMATCH', 'The time-stamp token covers another digest than the one sent.', { origin: 'internal' });
  }
  if (request.policy !== undefined && info.policy !== request.policy) {
    throw new TimestampError('TSA_POLICY_MISMATCH', `The TSA answered under policy ${info.policy}, not the requested ${request.policy}.`, { origin: 'internal' });
  }
  const check = checkTimestampToken(token, (name) => (name === DIGEST_NODE_NAME[request.hash] ? request.digest : new Uint8Array(0)));
  if (!check.tokenOk || !check.cms?.signerCertificate) {
    throw new TimestampError('TSA_SIGNATURE_INVALID', `The time-stamp token's signature does not hold: ${check.problems.join('; ') || 'no signer certificate'}.`, { origin: 'internal' });
  }
  if (!isTsaCertificate(check.cms.signerCertificate)) {
    throw new TimestampError('TSA_CERTIFICATE_INVALID', 'The time-stamp token is signed by a certificate without the critical extended key usage timeStamping (RFC 3161 §2.3).', { origin: 'internal' });
  }
  return token;
}

/** Options of `createHttpTimestamper`. */
export interface HttpTimestamperOptions {
  /** The TSA's URL (RFC 3161 over HTTP). */
  readonly url: string;
  /** Source of the request nonces (e.g. `crypto.randomBytes`); 8 bytes are asked per request. */
  readonly random: (length: number) => Uint8Array;
  /** Requested TSA policy OID. */
  readonly policy?: string;
  /** HTTP client; the global `fetch` by default. */
  readonly fetch?: typeof globalThis.fetch;
  /** Extra request headers (e.g. Authorization for a TSA that needs it). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Abort the request after this many milliseconds (default 30 000). */
  readonly timeoutMs?: number;
}

/**
 * A `Timestamper` that asks an RFC 3161 TSA over HTTP and checks its answer (see `checkTimestampResponse`).
 * @example
 * const timestamper = createHttpTimestamper({ url: 'http://tsa.example/tsr', random: randomBytes });
 * const token = await timestamper(sha256OfSignatureValue, 'SHA-256');
 */
export function createHttpTimestamper(options: HttpTimestamperOptions): Timestamper {
  const doFetch = options.fetch ?? globalThis.fetch;
  return async (digest, hash) => {
    const request: TimestampRequest = {
      digest,
      hash,
      nonce: options.random(8),
      ...(options.policy === undefined ? {} : { policy: options.policy }),
    };
    const body = buildTimestampRequest(request);
    let response: Response;
    try {
      response = await doFetch(options.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/timestamp-query', Accept: 'application/timestamp-reply', ...options.headers },
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (cause) {
      throw new TimestampError('TSA_UNREACHABLE', `The TSA at ${options.url} could not be reached: ${(cause as Error).message}.`, { cause, origin: 'internal' });
    }
    if (!response.ok) {
      throw new TimestampError('TSA_HTTP_ERROR', `The TSA at ${options.url} answered HTTP ${response.status}; check the URL and credentials.`, { origin: 'internal' });
    }
    const answer = new Uint8Array(await response.arrayBuffer());
    return checkTimestampResponse(answer, request);
  };
}
