/**
 * `paraph/testing`: the generators and fakes paraph's own test suite uses, published for harnesses and
 * benchmarks that drive paraph — fast-check arbitraries of valid (and invalid) requests, a PDF generator with ground
 * truth, the test PKI, a fake TSA and OCSP responder, an SMTP sink, a postback receiver, and the real service on a
 * random port. Needs the optional peer dependency `fast-check` for the arbitraries (and `smtp-server` for the sink). Never use the test PKI outside tests: its keys are public.
 */
export {
  fieldSpec,
  fileMetaData,
  invalidFileMetaData,
  localisedText,
  location,
  printableText,
  type FileMetaDataArbitraryOptions,
  type InvalidFileMetaData,
  type LocationArbitraryOptions,
} from './file-metadata-arbitraries.js';
export { bsn, createTransactionRequest, e164, email, iban } from './transaction-arbitraries.js';
export {
  generatePdf,
  randomPages,
  seededRandom,
  type GeneratePdfOptions,
  type GeneratedPdf,
  type GenFont,
  type GenPage,
  type GenStyle,
  type GenText,
  type GenTruth,
  type RandomPagesOptions,
} from './generate-pdf.js';
export { CRL_URLS, OCSP_URL, P12_PASSWORD, PKI_DIR, testPki, type PkiIdentity, type PkiSigner, type TestPki } from './test-pki.js';
export { FAKE_TSA_POLICY, startFakeTsa, type FakeTsa, type FakeTsaBehaviour, type FakeTsaRequest } from './start-fake-tsa.js';
export { startFakeOcsp, type FakeOcsp, type FakeOcspBehaviour, type FakeOcspRequest } from './start-fake-ocsp.js';
export { startSmtpSink, type ReceivedMail, type SmtpSink, type SmtpSinkOptions } from './start-smtp-sink.js';
export { startPostbackReceiver, type PostbackReceiver, type PostbackReceiverOptions, type ReceivedPostback } from './start-postback-receiver.js';
export {
  APP_KEY,
  AUTH_HEADERS,
  createTestClient,
  digestHeader,
  freePort,
  POSTBACK_SECRET,
  startTestService,
  tempDataDir,
  TestClock,
  USER_TOKEN,
  type TestClient,
  type TestRequestOptions,
  type TestResponse,
  type TestService,
  type TestServiceOptions,
} from './start-test-service.js';
