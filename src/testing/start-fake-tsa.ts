/**
 * A time-stamp authority for tests (compare pyHanko's dummy TSA): an HTTP server on 127.0.0.1 (random port) that
 * answers RFC 3161 TimeStampReqs with tokens signed by the fixture TSA certificate, at a time the test injects.
 * Misbehaviours can be switched on to test the client's checks.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import '../pades/crypto-engine.js';
import { createHttpTimestamper } from '../pades/timestamp.js';
import type { Timestamper } from '../pades/types.js';
import type { PkiSigner, TestPki } from './test-pki.js';

/** How the fake TSA answers. */
export type FakeTsaBehaviour = 'ok' | 'reject' | 'wrong-nonce' | 'wrong-imprint' | 'bad-signature' | 'not-a-tsa' | 'http-500';

/** One request the fake TSA received. */
export interface FakeTsaRequest {
  readonly hashOid: string;
  readonly imprintHex: string;
  readonly nonceHex: string | undefined;
  readonly certReq: boolean;
  readonly policy: string | undefined;
}

/** A running fake TSA. */
export interface FakeTsa {
  readonly url: string;
  readonly requests: FakeTsaRequest[];
  behaviour: FakeTsaBehaviour;
  /** A Timestamper client bound to this TSA (random nonces). */
  timestamper(): Timestamper;
  close(): Promise<void>;
}

/** The policy OID the fake TSA answers under when the request names none. */
export const FAKE_TSA_POLICY = '1.3.6.1.4.1.99999.1.1';

const OID = {
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
};

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

function attribute(type: string, value: asn1js.AsnType): pkijs.Attribute {
  return new pkijs.Attribute({ type, values: [value] });
}

/** ESS signing-certificate-v2 (RFC 5035) with SHA-256 (the default, so the algorithm is omitted) and issuerSerial. */
function signingCertificateV2(certDer: Uint8Array): asn1js.Sequence {
  const cert = pkijs.Certificate.fromBER(certDer);
  const issuerSerial = new asn1js.Sequence({
    value: [new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }).toSchema(), cert.serialNumber],
  });
  const essCertId = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: createHash('sha256').update(certDer).digest() }), issuerSerial],
  });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertId] })] });
}

/** Signs a TSTInfo as a CMS SignedData token with `signer`, the way a TSA does. */
async function buildToken(tstInfo: pkijs.TSTInfo, signer: PkiSigner, pki: TestPki, withCertificates: boolean, breakSignature: boolean): Promise<pkijs.ContentInfo> {
  const tstDer = new Uint8Array(tstInfo.toSchema().toBER(false));
  const cert = pkijs.Certificate.fromBER(signer.certDer);
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.tstInfo, eContent: new asn1js.OctetString({ valueHex: tstDer }) }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.tstInfo })),
            attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: createHash('sha256').update(tstDer).digest() })),
            attribute(OID.signingCertificateV2, signingCertificateV2(signer.certDer)),
          ],
        }),
      }),
    ],
    ...(withCertificates ? { certificates: [cert, pkijs.Certificate.fromBER(pki.intermediate.certDer)] } : {}),
  });
  await signedData.sign(signer.privateKey as unknown as Parameters<pkijs.SignedData['sign']>[0], 0, 'SHA-256');
  if (breakSignature) {
    const sig = signedData.signerInfos[0]!.signature.valueBlock.valueHexView;
    sig[sig.length - 1] = (sig[sig.length - 1] ?? 0) ^ 0x01;
  }
  return new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) });
}

/**
 * Starts the fake TSA. `now` is the token time (a fixed Date, or a function for tokens at different times).
 * @example
 * const tsa = await startFakeTsa({ pki, now: new Date('2026-11-21T10:00:00Z') });
 * const token = await tsa.timestamper()(digest, 'SHA-256');
 * await tsa.close();
 */
export async function startFakeTsa(options: { pki: TestPki; now: Date | (() => Date); behaviour?: FakeTsaBehaviour }): Promise<FakeTsa> {
  const { pki } = options;
  const now = typeof options.now === 'function' ? options.now : () => options.now as Date;
  const requests: FakeTsaRequest[] = [];
  let serial = 1;
  const state = { behaviour: options.behaviour ?? ('ok' as FakeTsaBehaviour) };

  async function answer(body: Uint8Array): Promise<Uint8Array> {
    const req = pkijs.TimeStampReq.fromBER(body);
    requests.push({
      hashOid: req.messageImprint.hashAlgorithm.algorithmId,
      imprintHex: Buffer.from(req.messageImprint.hashedMessage.valueBlock.valueHexView).toString('hex'),
      nonceHex: req.nonce ? Buffer.from(req.nonce.valueBlock.valueHexView).toString('hex') : undefined,
      certReq: req.certReq ?? false,
      policy: req.reqPolicy,
    });
    if (state.behaviour === 'reject') {
      const status = new pkijs.PKIStatusInfo({
        status: pkijs.PKIStatus.rejection,
        statusStrings: [new asn1js.Utf8String({ value: 'fake TSA told to refuse' })],
        failInfo: new asn1js.BitString({ valueHex: Uint8Array.of(0x80).buffer, unusedBits: 7 }),
      });
      return new Uint8Array(new pkijs.TimeStampResp({ status }).toSchema().toBER(false));
    }
    const imprint = Uint8Array.from(req.messageImprint.hashedMessage.valueBlock.valueHexView);
    if (state.behaviour === 'wrong-imprint') imprint[0] = (imprint[0] ?? 0) ^ 0xff;
    const nonce = state.behaviour === 'wrong-nonce' ? new asn1js.Integer({ value: 42 }) : req.nonce;
    const tstInfo = new pkijs.TSTInfo({
      version: 1,
      policy: req.reqPolicy ?? FAKE_TSA_POLICY,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: req.messageImprint.hashAlgorithm.algorithmId, algorithmParams: new asn1js.Null() }),
        hashedMessage: new asn1js.OctetString({ valueHex: imprint }),
      }),
      serialNumber: new asn1js.Integer({ value: serial++ }),
      genTime: now(),
      accuracy: new pkijs.Accuracy({ seconds: 1 }),
      ...(nonce ? { nonce } : {}),
    });
    const signer = state.behaviour === 'not-a-tsa' ? pki.signers.p256 : pki.tsa;
    const token = await buildToken(tstInfo, signer, pki, req.certReq ?? false, state.behaviour === 'bad-signature');
    const resp = new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }), timeStampToken: token });
    return new Uint8Array(resp.toSchema().toBER(false));
  }

  const server = createServer((req, res) => {
    void (async () => {
      try {
        if (state.behaviour === 'http-500') {
          res.writeHead(500).end();
          return;
        }
        if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
          res.writeHead(400).end('POST application/timestamp-query expected');
          return;
        }
        const out = await answer(await readBody(req));
        res.writeHead(200, { 'Content-Type': 'application/timestamp-reply', 'Content-Length': out.length }).end(Buffer.from(out));
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  return {
    url,
    requests,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: FakeTsaBehaviour) {
      state.behaviour = value;
    },
    timestamper: () => createHttpTimestamper({ url, random: (n) => new Uint8Array(randomBytes(n)) }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
