/**
 * The PAdES test fixture in one place: the test PKI, a fake RFC 3161 time-stamp authority and a fake OCSP/CRL
 * responder on 127.0.0.1, started once per test file and closed after it; plus scoped servers for the one test that
 * needs a misbehaving or differently-timed one.
 */
import { afterAll, beforeAll } from 'vitest';
import { startFakeOcsp, type FakeOcsp } from '../../src/testing/start-fake-ocsp.js';
import { startFakeTsa, type FakeTsa } from '../../src/testing/start-fake-tsa.js';
import { testPki, type TestPki } from '../../src/testing/test-pki.js';

/** What the file's tests share. Reading `tsa` or `ocsp` that was not asked for throws. */
export interface PadesFixture {
  readonly pki: TestPki;
  readonly tsa: FakeTsa;
  readonly ocsp: FakeOcsp;
}

/** Options of {@link usePadesFixture}: each server is started only when its clock is given. */
export interface PadesFixtureOptions {
  /** The TSA's time (`genTime` of its tokens). */
  tsaAt?: Date | (() => Date);
  /** The OCSP responder's and CRL issuer's time. */
  ocspAt?: Date | (() => Date);
}

/**
 * Registers `beforeAll`/`afterAll` hooks (call it at the top of a test file, before the file's own hooks) and returns
 * the fixture to read inside hooks and tests.
 *
 * @example
 * const fx = usePadesFixture({ tsaAt: NOW, ocspAt: NOW });
 * it('…', async () => { await signPdf(pdf, { signer: fx.pki.signers.rsa.signer, timestamper: fx.tsa.timestamper, … }); });
 */
export function usePadesFixture(options: PadesFixtureOptions = {}): PadesFixture {
  let pki: TestPki | undefined;
  let tsa: FakeTsa | undefined;
  let ocsp: FakeOcsp | undefined;
  beforeAll(async () => {
    pki = await testPki();
    if (options.tsaAt !== undefined) tsa = await startFakeTsa({ pki, now: options.tsaAt });
    if (options.ocspAt !== undefined) ocsp = await startFakeOcsp({ pki, now: options.ocspAt });
  });
  afterAll(async () => {
    await Promise.all([tsa?.close(), ocsp?.close()]);
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`usePadesFixture: ${what} is not started (give its time in the options, and read it in a hook or test)`);
    return value;
  };
  return {
    get pki() {
      return ready(pki, 'the PKI');
    },
    get tsa() {
      return ready(tsa, 'the TSA (tsaAt)');
    },
    get ocsp() {
      return ready(ocsp, 'the OCSP responder (ocspAt)');
    },
  };
}


