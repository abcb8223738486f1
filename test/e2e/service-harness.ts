/**
 * Test harness of the transaction service: `startTestService` and friends come from `paraph/testing`
 * (src/testing/start-test-service.ts); `call` is the suite's loosely typed client, `makePdf` a one-line PDF maker.
 */
import { generatePdf, type GenPage } from '../../src/testing/generate-pdf.js';
import { createTestClient } from '../../src/testing/start-test-service.js';
import { checkServedResponse } from '../contract/served-contract.js';

export {
  APP_KEY,
  AUTH_HEADERS,
  digestHeader,
  freePort,
  startTestService,
  tempDataDir,
  TestClock,
  USER_TOKEN,
  type TestService,
  type TestServiceOptions,
} from '../../src/testing/start-test-service.js';

/** A response read completely. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** Parsed JSON, when the body is JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/**
 * Sends a request with the account headers (unless `auth: false`): the published test client, loosely typed. Every
 * response is checked against the OpenAPI document the service at `base` serves (a mismatch fails the test).
 */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { json?: unknown; body?: Uint8Array | string; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<ApiResponse> {
  const response = (await createTestClient(base).request(method, path, options)) as ApiResponse;
  await checkServedResponse(base, { method, path }, response);
  return response;
}

/** A small PDF with the given texts on pages of A4 size (one page per entry). */
export async function makePdf(pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  const gen: GenPage[] = pages.map((lines) => ({
    width: 595,
    height: 842,
    rotation: 0,
    texts: lines.map((anchor, i) => ({ anchor, left: 72, baseline: 100 + i * 60, size: 12, font: 'Helvetica' as const, style: 'plain' as const })),
  }));
  return (await generatePdf(gen)).bytes;
}
