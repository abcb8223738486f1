/** Moved to `paraph/testing` (src/testing/start-fake-tsa.ts); this path re-exports it for the suite. */
export { type FakeTsaBehaviour, type FakeTsaRequest, type FakeTsa, FAKE_TSA_POLICY, startFakeTsa } from '../../src/testing/start-fake-tsa.js';
