/**
 * A faulty remote signer or HSM must not spoil a document: signPdf and sealPdf check the signature value against
 * the signer's certificate before embedding it, and fail with SigningError SIGNATURE_VALUE_INVALID otherwise.
 */
import fc from 'fast-check';
import { PDFDocument } from '../../src/pdf/pdf-lib.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SigningError } from '../../src/errors.js';
import { signPdf } from '../../src/pades/sign-pdf.js';
import type { Signer } from '../../src/pades/types.js';
import { usePadesFixture } from '../helpers/pades-fixture.js';
import { TEST_NOW } from '../helpers/test-now.js';

const SIGNED_AT = new Date(TEST_NOW);
const fx = usePadesFixture();
let original: Uint8Array;

beforeAll(async () => {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  original = await doc.save();
});

/** Wraps a working signer so that its signature value is damaged as `damage` says. */
function faulty(signer: Signer, damage: (value: Uint8Array) => Uint8Array): Signer {
  return { certificateChain: signer.certificateChain, scheme: signer.scheme, sign: async (data, hash) => damage(await signer.sign(data, hash)) };
}

async function expectRefused(signer: Signer): Promise<void> {
  const error = await signPdf(original, { signer, signingTime: SIGNED_AT }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SigningError);
  expect((error as SigningError).code).toBe('SIGNATURE_VALUE_INVALID');
  expect((error as SigningError).message).toMatch(/does not verify with its certificate/);
}

describe('signing with a faulty signer', () => {
  it('refuses a signature value with any flipped bit, for RSA, RSA-PSS and ECDSA', async () => {
    const signers = [fx.pki.signers.rsa.signer, fx.pki.signers.rsaPss.signer, fx.pki.signers.p256.signer];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...signers), fc.nat(), fc.integer({ min: 0, max: 7 }), async (signer, at, bit) => {
        await expectRefused(
          faulty(signer, (value) => {
            const copy = Uint8Array.from(value);
            copy[at % copy.length]! ^= 1 << bit;
            return copy;
          }),
        );
      }),
      { numRuns: 12 },
    );
  });

  it("refuses a key that does not belong to the signer's certificate", async () => {
    const other = fx.pki.signers.p384.signer;
    await expectRefused({ certificateChain: fx.pki.signers.p256.signer.certificateChain, scheme: 'ECDSA', sign: (data, hash) => other.sign(data, hash) });
  });

  it('still signs with a working signer', async () => {
    const { bytes } = await signPdf(original, { signer: fx.pki.signers.p256.signer, signingTime: SIGNED_AT });
    expect(bytes.length).toBeGreaterThan(original.length);
  });
});
