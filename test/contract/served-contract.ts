/**
 * The contract check for services this test process cannot hook into: a `paraph serve` started as a child
 * process, or any base URL the suite's `call` helper talks to. Each response is checked against the document the
 * serving process itself publishes at `/api/openapi.json` (fetched once per base URL), with the request path matched
 * to the document's path templates. Mismatches go to the list the setup file (response-contract.setup.ts) turns into
 * a failure of the test that received them.
 */
import { contractChecker, reportContractMismatch, type OpenApiDocument } from './response-contract.js';

interface Served {
  readonly document: OpenApiDocument;
  readonly templates: readonly { readonly path: string; readonly pattern: RegExp; readonly literals: number }[];
}

const served = new Map<string, Promise<Served | undefined>>();

/** Checks one response a service at `baseUrl` sent; records a mismatch, never throws. */
export async function checkServedResponse(
  baseUrl: string,
  request: { readonly method: string; readonly path: string },
  response: { readonly status: number; readonly headers: Headers; readonly text: string },
): Promise<void> {
  if (request.method.toUpperCase() === 'HEAD') return;
  const service = await servedDocument(baseUrl);
  if (service === undefined) return;
  const path = matchTemplate(service, request.path.split('?')[0] ?? request.path);
  if (path === undefined) return;
  const checker = contractChecker(service.document);
  if (!checker.documents(request.method, path)) return;
  const contentType = response.headers.get('content-type') ?? undefined;
  const problem = checker.problem({
    method: request.method.toUpperCase(),
    path,
    status: response.status,
    contentType,
    body: contentType?.includes('json') ? response.text : undefined,
  });
  if (problem !== undefined) reportContractMismatch(`${baseUrl}: ${problem}`);
}

function servedDocument(baseUrl: string): Promise<Served | undefined> {
  let found = served.get(baseUrl);
  if (found === undefined) {
    found = loadDocument(baseUrl);
    served.set(baseUrl, found);
  }
  return found;
}

async function loadDocument(baseUrl: string): Promise<Served | undefined> {
  let document: OpenApiDocument;
  try {
    const response = await fetch(`${baseUrl}/api/openapi.json`);
    if (response.status !== 200) return undefined;
    document = (await response.json()) as OpenApiDocument;
  } catch {
    // A process that is not (or no longer) serving: the test sees that itself.
    served.delete(baseUrl);
    return undefined;
  }
  const templates = Object.keys(document.paths).map((path) => {
    const segments = path.split('/');
    const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    return { path, pattern: new RegExp(`^${source}/?$`), literals: segments.filter((s) => !s.startsWith('{')).length };
  });
  return { document, templates };
}

/** The document path `requestPath` is an instance of, preferring literal segments over parameters. */
function matchTemplate(service: Served, requestPath: string): string | undefined {
  let best: { path: string; literals: number } | undefined;
  for (const template of service.templates) {
    if (template.pattern.test(requestPath) && (best === undefined || template.literals > best.literals)) best = template;
  }
  return best?.path;
}
