/**
 * Damaged answers from the network never crash the checks with anything but a typed error: any flipped byte in an
 * OCSP response, a CRL or a time-stamp response is either harmless (outside what is signed and checked) or refused
 * with a SigningError / TimestampError.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SigningError, TimestampError } from '../../src/errors.js';
import { buildOcspRequest, checkCrl, checkOcspResponse } from '../../src/pades/revocation.js';
import { buildTimestampRequest, checkTimestampResponse, parseTimestampToken, type TimestampRequest } from '../../src/pades/timestamp.js';
import { OCSP_URL, CRL_URLS } from '../../src/testing/test-pki.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const NOW = new Date(TEST_NOW);
const fx = usePadesFixture({ tsaAt: NOW, ocspAt: NOW });

const flip = (bytes: Uint8Array, at: number, mask: number): Uint8Array => {
  const copy = Uint8Array.from(bytes);
  copy[at % copy.length] = (copy[at % copy.length] ?? 0) ^ mask;
  return copy;
};

describe('damaged revocation and time-stamp answers', () => {
  it('a flipped byte in an OCSP response gives the same good answer or a SigningError', async () => {
    const subject = { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW };
    const response = await fx.ocsp.fetcher.ocsp(OCSP_URL, await buildOcspRequest(subject.certificate, subject.issuer));
    expect((await checkOcspResponse(response, subject)).status).toBe('good');
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 255 }), async (at, mask) => {
        try {
          const result = await checkOcspResponse(flip(response, at, mask), subject);
          expect(result.status).toBe('good');
        } catch (error) {
          expect(error).toBeInstanceOf(SigningError);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a flipped byte in a CRL gives the same answer or a SigningError', async () => {
    const subject = { certificate: fx.pki.signers.rsa.certDer, issuer: fx.pki.intermediate.certDer, now: NOW };
    const crl = await fx.ocsp.fetcher.crl(CRL_URLS.intermediate);
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        try {
          expect(checkCrl(flip(crl, at, mask), subject).status).toBe('good');
        } catch (error) {
          expect(error).toBeInstanceOf(SigningError);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a flipped byte in a time-stamp response gives a token for the same imprint or a TimestampError', async () => {
    const request: TimestampRequest = { digest: new Uint8Array(createHash('sha256').update('x').digest()), hash: 'SHA-256', nonce: Uint8Array.of(7, 7, 7) };
    const res = await fetch(fx.tsa.url, { method: 'POST', headers: { 'Content-Type': 'application/timestamp-query' }, body: buildTimestampRequest(request) });
    const response = new Uint8Array(await res.arrayBuffer());
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        try {
          const token = checkTimestampResponse(flip(response, at, mask), request);
          expect(Buffer.from(parseTimestampToken(token).imprint).equals(Buffer.from(request.digest))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(TimestampError);
        }
      }),
      { numRuns: 150 },
    );
  });
});
