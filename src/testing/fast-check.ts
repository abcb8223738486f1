/**
 * fast-check for the arbitraries of `paraph/testing`, loaded on first use: it is an optional peer dependency, so
 * `import 'paraph/testing'` (the PDF generator, the test PKI, the fakes, the test service) works without it, and only
 * asking for an arbitrary needs it — then its absence is an error that names the package. Loaded with `require`, so
 * the import stays synchronous (no top-level await: `require('paraph/testing')` keeps working); fast-check's
 * arbitraries are recognised by shape, so they mix with those of the caller's own `import 'fast-check'`.
 */
import { createRequire } from 'node:module';
import type FastCheck from 'fast-check';
import { ParaphError } from '../errors.js';

let loaded: typeof FastCheck | undefined;

function loadFastCheck(): typeof FastCheck {
  if (loaded !== undefined) return loaded;
  try {
    loaded = createRequire(import.meta.url)('fast-check') as typeof FastCheck;
  } catch (cause) {
    throw new ParaphError('OPTIONAL_DEPENDENCY_MISSING', 'The arbitraries of paraph/testing need the optional peer dependency "fast-check": npm install --save-dev fast-check', {
      origin: 'internal',
      cause,
    });
  }
  return loaded;
}

/** fast-check, loaded when first used. */
export const fc: typeof FastCheck = new Proxy({} as typeof FastCheck, { get: (_target, name) => Reflect.get(loadFastCheck(), name) as unknown });

/** `make()` on the first call, its result on every later one. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
