/**
 * Checks an HTTP response a paraph service sends against its own OpenAPI document: the status must be
 * documented for the operation, the media type too, and a JSON body must match the documented schema. Validators
 * are compiled once per distinct document (every test service serves the same paths and components; only the
 * server URL differs) and once per operation and status.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

/** The parts of the document the check reads. */
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components?: unknown;
}
interface Operation {
  readonly responses?: Readonly<Record<string, { readonly content?: Readonly<Record<string, { readonly schema?: unknown }>> }>>;
}

/** One response to check. */
export interface ObservedResponse {
  readonly method: string;
  /** The document's path, e.g. `/api/transaction/{transactionId}`. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The body when it is JSON text (undefined for binary or streamed bodies). */
  readonly body: string | undefined;
}

/**
 * Mismatches found by any checker in this test file's process, turned into a test failure by the setup file. Kept on
 * `globalThis` so the setup file and the test's modules share one list whatever module instances they load.
 */
const MISMATCHES = Symbol.for('paraph.test.contractMismatches');
function mismatchList(): string[] {
  const holder = globalThis as { [MISMATCHES]?: string[] };
  holder[MISMATCHES] ??= [];
  return holder[MISMATCHES];
}

/** Records a response that does not conform; the test that received it fails after it runs. */
export function reportContractMismatch(problem: string): void {
  mismatchList().push(problem);
  console.error(`OpenAPI contract mismatch: ${problem}`);
}

/** Takes (and clears) the mismatches recorded so far. */
export function takeContractMismatches(): string[] {
  return mismatchList().splice(0);
}

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
const checkers = new Map<string, ContractChecker>();

/** The checker of `document`, compiled once per distinct paths and components. */
export function contractChecker(document: OpenApiDocument): ContractChecker {
  const key = JSON.stringify({ paths: document.paths, components: document.components });
  let checker = checkers.get(key);
  if (checker === undefined) {
    checker = new ContractChecker(document);
    checkers.set(key, checker);
  }
  return checker;
}

/** Checks responses against one document. */
class ContractChecker {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.#document = document;
    this.#ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, discriminator: true, validateFormats: true }));
    // ajv's discriminator takes no mapping (the branches' `const` says the same); the document keeps it for generators.
    this.#ajv.addSchema(withoutMappings(document) as object, 'openapi.json');
  }

  /** Whether the document has the operation (routes it leaves out, such as the HTML pages, are not checked). */
  documents(method: string, path: string): boolean {
    return this.#document.paths[path]?.[method.toLowerCase()] !== undefined;
  }

  /** What is wrong with the response, or undefined when it conforms. */
  problem(response: ObservedResponse): string | undefined {
    const where = `${response.method} ${response.path} → ${response.status}`;
    const operation = this.#document.paths[response.path]?.[response.method.toLowerCase()];
    if (operation === undefined) return undefined;
    const documented = operation.responses?.[String(response.status)];
    if (documented === undefined) return `${where}: status not documented (body ${response.body?.slice(0, 300)})`;
    if (documented.content === undefined) return response.body ? `${where}: documented without a body, sent ${response.body.slice(0, 200)}` : undefined;
    const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase();
    if (mediaType === undefined || documented.content[mediaType] === undefined) return `${where}: media type ${mediaType} not documented`;
    if (!/^application\/(?:[a-z0-9.+-]+\+)?json$/.test(mediaType) || response.body === undefined) return undefined;
    const pointer = `openapi.json#/paths/${escape(response.path)}/${response.method.toLowerCase()}/responses/${response.status}/content/${escape(mediaType)}/schema`;
    let validate = this.#validators.get(pointer);
    if (validate === undefined) {
      validate = this.#ajv.getSchema(pointer);
      if (validate === undefined) return `${where}: no schema at ${pointer}`;
      this.#validators.set(pointer, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return `${where}: not JSON: ${response.body.slice(0, 200)}`;
    }
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    return `${where}: body does not match the document:\n  ${errors.join('\n  ')}\n  body: ${response.body.slice(0, 600)}`;
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function withoutMappings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMappings);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'discriminator' && item !== null && typeof item === 'object' && 'propertyName' in item) out[key] = { propertyName: (item as { propertyName: unknown }).propertyName };
    else out[key] = withoutMappings(item);
  }
  return out;
}
