/** The test PKI of `paraph/testing` (src/testing/test-pki.ts), for the tests that still import it from here. */
export { type TestPki, testPki, P12_PASSWORD } from '../../src/testing/test-pki.js';
