/**
 * An OCSP responder and CRL server for tests: one HTTP server on 127.0.0.1 (random port). POSTed OCSPRequests are
 * answered with responses signed by the fixture OCSP responder (delegated by the intermediate CA), status good or
 * revoked as configured; `GET /root.crl` and `GET /intermediate.crl` serve CRLs signed by the fixture CAs, listing
 * the revoked serials. `fetcher` routes the fixture certificates' URLs (ocsp.paraph.test, crl.paraph.test) here.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import '../pades/crypto-engine.js';
import { createCrl } from '../pades/keys/ca.js';
import { createHttpRevocationFetcher } from '../pades/revocation.js';
import type { RevocationFetcher } from '../pades/types.js';
import type { TestPki } from './test-pki.js';

/** How the fake responder answers OCSP. */
/** `issuer-signed`: signed by the intermediate CA itself, responder named by key hash (RFC 6960 ResponderID byKey). */
export type FakeOcspBehaviour = 'ok' | 'try-later' | 'unauthorized-responder' | 'expired' | 'issuer-signed' | 'unknown';

/** One request the server received. */
export interface FakeOcspRequest {
  readonly kind: 'ocsp' | 'crl';
  /** OCSP: the serial numbers asked about (hex); CRL: the path. */
  readonly subject: string;
}

/** A running fake OCSP responder / CRL server. */
export interface FakeOcsp {
  readonly url: string;
  readonly requests: FakeOcspRequest[];
  /** Serial number → revocation time; change it between requests to revoke. */
  readonly revoked: Map<bigint, Date>;
  behaviour: FakeOcspBehaviour;
  /** Routes http://ocsp.paraph.test/… and http://crl.paraph.test/… to this server. */
  readonly fetcher: RevocationFetcher;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
const OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

function serialOf(id: pkijs.CertID): bigint {
  return BigInt(`0x${Buffer.from(id.serialNumber.valueBlock.valueHexView).toString('hex') || '0'}`);
}

/** Starts the server. `now` is the time answers are produced at (fixed Date or function). */
export async function startFakeOcsp(options: { pki: TestPki; now: Date | (() => Date); revoked?: ReadonlyMap<bigint, Date>; behaviour?: FakeOcspBehaviour }): Promise<FakeOcsp> {
  const { pki } = options;
  const now = typeof options.now === 'function' ? options.now : () => options.now as Date;
  const requests: FakeOcspRequest[] = [];
  const revoked = new Map(options.revoked ?? []);
  const state = { behaviour: options.behaviour ?? ('ok' as FakeOcspBehaviour) };

  async function answerOcsp(body: Uint8Array): Promise<Uint8Array> {
    const request = pkijs.OCSPRequest.fromBER(body);
    const ids = request.tbsRequest.requestList.map((r) => r.reqCert);
    requests.push({ kind: 'ocsp', subject: ids.map((id) => serialOf(id).toString(16)).join(',') });
    if (state.behaviour === 'try-later') {
      return new Uint8Array(new pkijs.OCSPResponse({ responseStatus: new asn1js.Enumerated({ value: 3 }) }).toSchema().toBER(false));
    }
    const at = now();
    const responder = state.behaviour === 'unauthorized-responder' ? pki.signers.p256 : state.behaviour === 'issuer-signed' ? pki.intermediate : pki.ocsp;
    const responderCert = pkijs.Certificate.fromBER(responder.certDer);
    const basic = new pkijs.BasicOCSPResponse();
    basic.tbsResponseData.responderID =
      state.behaviour === 'issuer-signed' ? new asn1js.OctetString({ valueHex: issuerKeyHash(responder.certDer) }) : responderCert.subject;
    basic.tbsResponseData.producedAt = at;
    const intermediateKeyHash = issuerKeyHash(pki.intermediate.certDer);
    for (const id of ids) {
      const known = Buffer.from(id.issuerKeyHash.valueBlock.valueHexView).equals(intermediateKeyHash);
      const revokedAt = revoked.get(serialOf(id));
      const certStatus = !known || state.behaviour === 'unknown'
        ? new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 } })
        : revokedAt
          ? new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.GeneralizedTime({ valueDate: revokedAt })] })
          : new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } });
      const thisUpdate = state.behaviour === 'expired' ? new Date(at.getTime() - 48 * HOUR) : new Date(at.getTime() - HOUR);
      const nextUpdate = state.behaviour === 'expired' ? new Date(at.getTime() - 24 * HOUR) : new Date(at.getTime() + 7 * 24 * HOUR);
      basic.tbsResponseData.responses.push(new pkijs.SingleResponse({ certID: id, certStatus, thisUpdate, nextUpdate }));
    }
    const nonce = request.tbsRequest.requestExtensions?.find((e) => e.extnID === OCSP_NONCE);
    if (nonce) basic.tbsResponseData.responseExtensions = [nonce];
    if (state.behaviour !== 'issuer-signed') basic.certs = [responderCert];
    await basic.sign(responder.privateKey as unknown as Parameters<pkijs.BasicOCSPResponse['sign']>[0], 'SHA-256');
    const response = new pkijs.OCSPResponse({
      responseStatus: new asn1js.Enumerated({ value: 0 }),
      responseBytes: new pkijs.ResponseBytes({
        responseType: '1.3.6.1.5.5.7.48.1.1',
        response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }),
      }),
    });
    return new Uint8Array(response.toSchema().toBER(false));
  }

  async function answerCrl(path: string): Promise<Uint8Array | undefined> {
    const issuer = path === '/root.crl' ? pki.root : path === '/intermediate.crl' ? pki.intermediate : undefined;
    if (!issuer) return undefined;
    requests.push({ kind: 'crl', subject: path });
    const at = now();
    const list = issuer === pki.intermediate ? [...revoked].map(([serialNumber, revocationDate]) => ({ serialNumber, revocationDate })) : [];
    return createCrl({
      issuer: { certificate: issuer.certDer, privateKey: issuer.privateKey },
      thisUpdate: new Date(at.getTime() - HOUR),
      nextUpdate: new Date(at.getTime() + 7 * 24 * HOUR),
      crlNumber: BigInt(Math.floor(at.getTime() / 1000)),
      revoked: list,
    });
  }

  const server = createServer((req, res) => {
    void (async () => {
      try {
        if (req.method === 'POST') {
          const out = await answerOcsp(await readBody(req));
          res.writeHead(200, { 'Content-Type': 'application/ocsp-response', 'Content-Length': out.length }).end(Buffer.from(out));
          return;
        }
        const out = await answerCrl(req.url ?? '');
        if (!out) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/pkix-crl', 'Content-Length': out.length }).end(Buffer.from(out));
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const route: typeof globalThis.fetch = (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.hostname !== 'ocsp.paraph.test' && url.hostname !== 'crl.paraph.test' && url.hostname !== '127.0.0.1') {
      return Promise.reject(new Error(`the test fetcher only reaches the fake responder, not ${url.href}`));
    }
    return globalThis.fetch(`${base}${url.pathname}`, init);
  };
  return {
    url: base,
    requests,
    revoked,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: FakeOcspBehaviour) {
      state.behaviour = value;
    },
    fetcher: createHttpRevocationFetcher({ fetch: route }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function issuerKeyHash(issuerDer: Uint8Array): Buffer {
  const cert = pkijs.Certificate.fromBER(issuerDer);
  return createHash('sha1').update(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
}
