import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import { simpleParser } from 'mailparser';
import { createTransport } from 'nodemailer';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/pades/crypto-engine.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import { generatePdf } from '../../src/testing/generate-pdf.js';
import { startFakeOcsp } from '../../src/testing/start-fake-ocsp.js';
import { startFakeTsa, type FakeTsa } from '../../src/testing/start-fake-tsa.js';
import { startPostbackReceiver } from '../../src/testing/start-postback-receiver.js';
import { startSmtpSink } from '../../src/testing/start-smtp-sink.js';
import { testPki, type TestPki } from '../../src/testing/test-pki.js';
import { checkSignedPdf, extractSignatures } from '../helpers/external-tools.js';
import { opensslOcspTimeArgs } from '../helpers/test-now.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const SIGNATURE_TIMESTAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';

let pki: TestPki;
let tsa: FakeTsa;
let dir: string;
beforeAll(async () => {
  pki = await testPki();
  tsa = await startFakeTsa({ pki, now: NOW });
  dir = mkdtempSync(join(tmpdir(), 'paraph-fakes-'));
});
afterAll(async () => {
  await tsa.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The signature value and the RFC 3161 token in its unsigned attributes. */
function signatureAndToken(cms: Uint8Array): { signature: Uint8Array; token: Uint8Array } {
  const content = pkijs.ContentInfo.fromBER(cms);
  const signed = new pkijs.SignedData({ schema: content.content });
  const info = signed.signerInfos[0]!;
  const attribute = info.unsignedAttrs?.attributes.find((a) => a.type === SIGNATURE_TIMESTAMP_TOKEN);
  if (!attribute) throw new Error('no signature time-stamp token');
  return {
    signature: new Uint8Array(info.signature.valueBlock.valueHexView),
    token: new Uint8Array((attribute.values[0] as asn1js.Sequence).toBER()),
  };
}

function opensslTsVerify(data: Uint8Array, token: Uint8Array): string {
  writeFileSync(join(dir, 'data.bin'), data);
  writeFileSync(join(dir, 'token.der'), token);
  writeFileSync(join(dir, 'untrusted.pem'), pki.tsa.certPem + pki.intermediate.certPem);
  return execFileSync('openssl', ['ts', '-verify', '-data', join(dir, 'data.bin'), '-in', join(dir, 'token.der'), '-token_in', '-CAfile', pki.rootPath, '-untrusted', join(dir, 'untrusted.pem')], { stdio: 'pipe' }).toString();
}

describe('startFakeTsa', () => {
  it('time-stamps a PAdES signature (B-T) that openssl ts -verify accepts over the signature value; the PDF passes pdfsig, openssl cms and qpdf', async () => {
    const { bytes: pdf } = await generatePdf({ seed: 3, pages: 1 });
    const { bytes } = await signPdf(pdf, { signer: pki.signers.p256.signer, signingTime: NOW, timestamper: tsa.timestamper() });
    const [signature] = await extractSignatures(bytes);
    const { signature: value, token } = signatureAndToken(signature!.cms);
    expect(opensslTsVerify(value, token)).toMatch(/Verification: OK/);
    // Not vacuous: the token does not cover other data.
    expect(() => opensslTsVerify(new Uint8Array([...value, 0]), token)).toThrow();
    expect(tsa.requests.at(-1)?.certReq).toBe(true);

    const report = await checkSignedPdf(bytes, pki.rootPem);
    expect(report.pdfsig.map((s) => s.valid), report.details).toEqual([true]);
    expect(report.openssl, report.details).toEqual([true]);
    expect(report.qpdf, report.details).toBe(true);
  });
});

describe('startFakeOcsp', () => {
  it('listens on 127.0.0.1 and answers a status request for a test signer as good', async () => {
    const ocsp = await startFakeOcsp({ pki, now: NOW });
    try {
      expect(new URL(ocsp.url).hostname).toBe('127.0.0.1');
      const request = join(dir, 'req.der');
      const response = join(dir, 'resp.der');
      execFileSync('openssl', ['ocsp', '-issuer', pki.intermediate.certPath, '-cert', pki.signers.rsa.certPath, '-no_nonce', '-reqout', request], { stdio: 'pipe' });
      const answer = await fetch(ocsp.url, { method: 'POST', headers: { 'content-type': 'application/ocsp-request' }, body: new Uint8Array(readFileSync(request)) });
      expect(answer.status).toBe(200);
      writeFileSync(response, new Uint8Array(await answer.arrayBuffer()));
      writeFileSync(join(dir, 'ocsp-untrusted.pem'), pki.ocsp.certPem + pki.intermediate.certPem);
      const out = execFileSync('openssl', ['ocsp', '-respin', response, '-issuer', pki.intermediate.certPath, '-cert', pki.signers.rsa.certPath, '-CAfile', pki.rootPath, '-verify_other', join(dir, 'ocsp-untrusted.pem'), ...opensslOcspTimeArgs(NOW)], { stdio: 'pipe' }).toString();
      expect(out).toMatch(/: good/);
    } finally {
      await ocsp.close();
    }
  });
});

describe('startSmtpSink', () => {
  it('receives what nodemailer sends: envelope, headers, text and attachment bytes', async () => {
    const sink = await startSmtpSink();
    try {
      const { port, hostname } = new URL(sink.url);
      expect(hostname).toBe('127.0.0.1');
      const transport = createTransport({ host: hostname, port: Number(port), secure: false, ignoreTLS: true });
      const attachment = Buffer.from('%PDF-1.7 fake pdf bytes \u0000\u00ff', 'latin1');
      await transport.sendMail({
        from: 'paraph@example.com',
        to: ['alice@example.com', 'bob@example.com'],
        subject: 'Please sign — “contract”',
        text: 'Zoë, please sign.',
        attachments: [{ filename: 'contract.pdf', content: attachment, contentType: 'application/pdf' }],
      });
      transport.close();
      expect(sink.received).toHaveLength(1);
      const [mail] = sink.received;
      expect(mail!.from).toBe('paraph@example.com');
      expect(mail!.to).toEqual(['alice@example.com', 'bob@example.com']);
      const parsed = await simpleParser(mail!.raw);
      expect(parsed.subject).toBe('Please sign — “contract”');
      expect(parsed.text?.trim()).toBe('Zoë, please sign.');
      expect(parsed.attachments.map((a) => a.filename)).toEqual(['contract.pdf']);
      expect(Buffer.compare(parsed.attachments[0]!.content, attachment)).toBe(0);
    } finally {
      await sink.close();
    }
  });
});

describe('startPostbackReceiver', () => {
  it('records every POST with its body and answers with the chosen status (first two fail)', async () => {
    const receiver = await startPostbackReceiver({ respond: (n) => (n < 2 ? 500 : 200) });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${receiver.url}/hook?i=${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i }) });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([500, 500, 200]);
      expect(receiver.received.map((r) => [r.path, r.body, r.answeredWith])).toEqual([
        ['/hook?i=0', '{"i":0}', 500],
        ['/hook?i=1', '{"i":1}', 500],
        ['/hook?i=2', '{"i":2}', 200],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('failFirst: N answers the first N requests with 500 and every later one with 200', async () => {
    const receiver = await startPostbackReceiver({ failFirst: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${receiver.url}/p${i % 2}`, { method: 'POST', body: '{}' })).status);
      expect(statuses).toEqual([500, 500, 500, 200, 200]);
      expect(receiver.received.map((r) => r.answeredWith)).toEqual(statuses);
    } finally {
      await receiver.close();
    }
  });
});
