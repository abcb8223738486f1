/**
 * Worker thread opening one PKCS#12 file an admin handed in (pkcs12-thread.ts starts it): forge's key derivations run
 * here, not on the thread serving requests. Protocol: the thread says `ready` once node-forge is loaded, gets one
 * `{bytes, password}`, answers `opened {keys, certificates}` or `refused {code, message}`, and is terminated.
 */
import { parentPort } from 'node:worker_threads';
import { ParaphError } from '../../errors.js';
import { loadPkcs12Contents } from '../../pades/keys/pkcs12.js';
import type { Pkcs12Reply, Pkcs12Request } from './pkcs12-thread.js';

const port = parentPort;
if (port === null) throw new Error('pkcs12-worker.ts runs as a worker thread');
await import('node-forge');
port.once('message', (request: Pkcs12Request) => {
  loadPkcs12Contents(request.bytes, request.password).then(
    (contents) => port.postMessage({ kind: 'opened', keys: [...contents.keys], certificates: [...contents.certificates] } satisfies Pkcs12Reply),
    (error: unknown) => {
      if (error instanceof ParaphError) port.postMessage({ kind: 'refused', code: error.code, message: error.message } satisfies Pkcs12Reply);
      else throw error;
    },
  );
});
port.postMessage({ kind: 'ready' } satisfies Pkcs12Reply);
