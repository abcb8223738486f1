/** Moved to `paraph/testing` (src/testing/start-fake-ocsp.ts); this path re-exports it for the suite. */
export { type FakeOcspBehaviour, type FakeOcspRequest, type FakeOcsp, startFakeOcsp } from '../../src/testing/start-fake-ocsp.js';
