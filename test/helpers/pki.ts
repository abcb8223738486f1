/** Moved to `paraph/testing` (src/testing/test-pki.ts); this path re-exports it for the suite. */
export { PKI_DIR, type PkiIdentity, type PkiSigner, type TestPki, testPki, P12_PASSWORD, OCSP_URL, CRL_URLS  } from '../../src/testing/test-pki.js';
