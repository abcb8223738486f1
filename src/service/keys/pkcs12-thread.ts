/**
 * Opening a PKCS#12 file in a worker thread under a time budget, so that the key derivations the file asks for
 * (bounded by pkcs12-limits.ts, still up to seconds of JavaScript) never hold the thread that serves requests.
 */
import { SigningError } from '../../errors.js';
import { signerFromPkcs12, type Pkcs12Contents } from '../../pades/keys/pkcs12.js';
import type { SoftwareSigner } from '../../pades/keys/software.js';
import { startWorkerThread } from '../../worker-entry.js';

export interface Pkcs12Request {
  readonly bytes: Uint8Array;
  readonly password: string;
}

export type Pkcs12Reply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'opened'; readonly keys: Uint8Array[]; readonly certificates: Uint8Array[] }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string };

/** Time for opening one file once the thread runs: the limits' worst case is a few seconds of forge. */
const DEFAULT_BUDGET_MS = 20_000;
/** Time for the thread to start (under tsx, on a busy machine, this takes seconds). */
const STARTUP_LIMIT_MS = 30_000;
const HEAP_LIMIT_MB = 64;

/**
 * The `Signer` of a PKCS#12 file, opened in a worker thread within the default PKCS#12 limits and `budgetMs`.
 * @throws SigningError of the file (`PKCS12_WRONG_PASSWORD`, `PKCS12_TOO_COSTLY` also past the budget, …)
 */
export async function openPkcs12OffThread(bytes: Uint8Array, password: string, budgetMs = DEFAULT_BUDGET_MS): Promise<SoftwareSigner> {
  return signerFromPkcs12(await readInWorker({ bytes, password }, budgetMs));
}

function readInWorker(request: Pkcs12Request, budgetMs: number): Promise<Pkcs12Contents> {
  return new Promise((resolve, reject) => {
    const worker = startWorkerThread(import.meta.url, './pkcs12-worker.js', { resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB } });
    let settled = false;
    const settle = (error: Error | undefined, contents?: Pkcs12Contents): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (error === undefined && contents !== undefined) resolve(contents);
      else reject(error ?? new Error('the PKCS#12 thread answered nothing'));
    };
    let timer = setTimeout(() => settle(new Error('the PKCS#12 thread did not start')), STARTUP_LIMIT_MS);
    worker.on('message', (reply: Pkcs12Reply) => {
      if (reply.kind === 'ready') {
        clearTimeout(timer);
        timer = setTimeout(
          () => settle(new SigningError('PKCS12_TOO_COSTLY', `Opening the PKCS#12 file took longer than ${budgetMs / 1000} s, so it is refused. Export it again with fewer iterations (OpenSSL: \`openssl pkcs12 -export … -iter 2048\`).`)),
          budgetMs,
        );
        worker.postMessage(request);
      } else if (reply.kind === 'opened') settle(undefined, { keys: reply.keys, certificates: reply.certificates });
      else settle(new SigningError(reply.code, reply.message));
    });
    worker.on('error', (error: Error & { code?: unknown }) => {
      settle(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new SigningError('PKCS12_TOO_COMPLEX', 'The PKCS#12 file needs too much memory to open, so it is refused. Export only the key and its certificate chain.')
          : new Error(`the PKCS#12 file could not be opened (${error.message})`, { cause: error }),
      );
    });
    worker.on('exit', (code) => settle(new Error(`the PKCS#12 thread stopped (exit code ${code})`)));
  });
}
