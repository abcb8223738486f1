/**
 * Child process of pdf-work.ts: runs the service's untrusted-input steps (opening and normalizing an upload, checking
 * placements, writing the fields, signing and sealing, building the receipt, decoding a signer's scribble) away from the serving process, one job at a time. A
 * process is reused for the next job; the host ends it when a job passes its time budget or its memory cap, and V8
 * ends it when its heap runs out.
 *
 * Protocol (IPC, advanced serialization): `ready` once loaded; then `{ id, job }` → `{ id, ok: true, result }` |
 * `{ id, ok: false, error }`. While a signing job runs it may send `{ id, call }` (a signature value or a time-stamp
 * the host makes with what only it holds) and gets `{ id, answer }` back.
 */
import { ParaphError, ValidationError } from '../../errors.js';
import { documentFacts } from '../../pdf/document-facts.js';
import { loadPdf } from '../../pdf/load-pdf.js';
import { normalizePdf, rewritePdf } from '../../pdf/normalize-pdf.js';
import { checkPlacements, defaultFieldLabel, placeFields } from '../../pdf/place-fields.js';
import type { FieldPlacement } from '../../pdf/resolve-locations.js';
import { resolvePlacements } from '../../pdf/resolve-placements.js';
import { sealInSession, sealPdf } from '../../pades/seal-pdf.js';
import { signInSession } from '../../pades/sign-pdf.js';
import type { Signer, Timestamper } from '../../pades/types.js';
import { openPdfForUpdate, type PdfUpdateSession } from '../../pdf/incremental.js';
import { buildReceipt } from '../../receipt/receipt.js';
import { sealedOutputProblem } from './check-sealed-output.js';
import {
  errorAsData,
  type PdfChildMessage,
  type PdfHostMessage,
  type PdfJob,
  type PdfJobCall,
  type PdfJobError,
  type PdfJobReply,
  type PdfJobResults,
  type RemoteSignerInfo,
  type SealedDocument,
  type SealStep,
} from './pdf-work-protocol.js';
import { fillFormFieldsInSession } from '../signer/fill-form-fields.js';
import { startPdfProcessSpan } from './pdf-work-span.js';
import { normalizeScribblePng } from '../signer/scribble-image.js';
import { normalizeLogo } from '../branding/logo-image.js';

if (!process.send) throw new Error('pdf-work-worker must run as a child process with an IPC channel');
const send = process.send.bind(process);

async function run(id: number, job: PdfJob): Promise<unknown> {
  switch (job.kind) {
    case 'open': {
      const normalized = await normalizePdf(job.bytes, { timeoutMs: job.normalizeMs, workerThread: false });
      const pageCount = normalized.doc.getPageCount();
      // Past the page limit the upload is refused: reading every page would only cost time.
      const opened = pageCount > (job.maxPages ?? Infinity) ? { pageCount } : { pageCount, facts: documentFacts(normalized.doc) };
      if (!normalized.normalization) return opened;
      return { ...opened, bytes: normalized.bytes, normalization: normalized.normalization };
    }
    case 'facts':
      return documentFacts(await loadPdf(job.bytes));
    case 'resolve':
      return resolvePlacements(job.bytes, job.metadata, {
        signerIds: job.signerIds,
        fileId: job.fileId,
        document: job.document,
        engine: job.engine,
        limits: job.limits,
        workers: 0,
      });
    case 'check':
      checkPlacements(await loadPdf(job.bytes), job.placements, { pages: job.pages });
      return {};
    case 'rewrite':
      return { bytes: await rewritePdf(job.bytes, { timeoutMs: job.timeoutMs, workerThread: false }) };
    case 'place': {
      const { labels, alternateNames } = job;
      const { bytes } = await placeFields(job.bytes, job.placements, {
        ...(job.pages ? { pages: job.pages } : {}),
        ...(labels ? { label: (p: FieldPlacement) => labels[p.field] ?? defaultFieldLabel(p) } : {}),
        ...(alternateNames ? { alternateName: (p: FieldPlacement) => alternateNames[p.field] } : {}),
      });
      return { bytes };
    }
    case 'scribble':
      return normalizeScribblePng(job.bytes);
    case 'logo':
      return normalizeLogo(job.bytes);
    case 'sign':
      return sign(id, job);
    case 'seal':
      return seal(id, job.bytes, job.seal);
    case 'receipt':
      return { bytes: await buildReceipt({ ...job.receipt, sealer: async (pdf) => (await seal(id, pdf, job.seal)).bytes }) };
  }
}

/** Calls of the running job waiting for the host's answer, by number. */
const pending = new Map<number, { resolve(value: Uint8Array): void; reject(error: Error): void }>();
let lastCall = 0;

function callHost(id: number, call: DistributiveOmit<PdfJobCall, 'n'>): Promise<Uint8Array> {
  const n = ++lastCall;
  return new Promise((resolve, reject) => {
    pending.set(n, { resolve, reject });
    send({ id, call: { ...call, n } as PdfJobCall } satisfies PdfChildMessage);
  });
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A {@link Signer} whose key stays with the host: each signature value is asked of it. */
function remoteSigner(id: number, info: RemoteSignerInfo): Signer {
  return {
    certificateChain: info.certificateChain,
    scheme: info.scheme,
    sign: (data, hash) => callHost(id, { op: 'sign', party: info.party, data, hash }),
  };
}

function remoteTimestamper(id: number): Timestamper {
  return (data, hash) => callHost(id, { op: 'timestamp', data, hash });
}

/** The host's error, typed again with its code, so that the job fails as it would have in the host. */
function answerError(error: PdfJobError): Error {
  if (error.kind === 'validation') return new ValidationError(error.issues, error.code);
  if (error.kind === 'internal') return new Error(error.message);
  return new ParaphError(error.code, error.message, { origin: error.origin });
}

async function seal(id: number, bytes: Uint8Array | PdfUpdateSession, step: SealStep): Promise<SealedDocument> {
  const options = {
    signer: remoteSigner(id, step.signer),
    signingTime: step.signingTime,
    sealedLabel: step.sealedLabel,
    ...(step.timestamp ? { timestamper: remoteTimestamper(id) } : {}),
  };
  const sealed = (bytes instanceof Uint8Array ? await sealPdf(bytes, options) : await sealInSession(bytes, options)).bytes;
  const problem = step.checkWithCaPem === undefined ? undefined : await sealedOutputProblem(sealed, step.checkWithCaPem);
  return { bytes: sealed, ...(problem !== undefined ? { problem } : {}) };
}

async function sign(id: number, job: Extract<PdfJob, { kind: 'sign' }>): Promise<PdfJobResults['sign']> {
  let { bytes, session } = await fillFormFieldsInSession(await openPdfForUpdate(job.bytes), job.values, job.paraph);
  const signer = remoteSigner(id, job.signer);
  for (const field of job.fields) {
    ({ bytes, session } = await signInSession(session, {
      signer,
      signingTime: job.signingTime,
      field,
      reason: 'Signed',
      appearance: job.appearance,
      ...(job.timestamp ? { timestamper: remoteTimestamper(id) } : {}),
    }));
  }
  // The seal's update is written into a new buffer: `bytes` stays the document as the signer left it.
  return { bytes, ...(job.seal ? { sealed: await seal(id, session, job.seal) } : {}) };
}

process.on('message', (message: PdfHostMessage) => {
  if ('answer' in message) {
    const { answer } = message;
    const call = pending.get(answer.n);
    pending.delete(answer.n);
    if (answer.ok) call?.resolve(answer.value);
    else call?.reject(answerError(answer.error));
    return;
  }
  const { id, job, traceparent } = message;
  const span = startPdfProcessSpan(traceparent, `pdf.work ${job.kind}`, { 'paraph.pdf_job.kind': job.kind, 'process.pid': process.pid });
  run(id, job).then(
    (result) => send({ id, ok: true, result, ...(span ? { span: span.end() } : {}) } satisfies PdfJobReply),
    (error: unknown) => send({ id, ok: false, error: errorAsData(error), ...(span ? { span: span.end(error) } : {}) } satisfies PdfJobReply),
  );
});
// The host is gone (or ended the channel): nothing is left to do.
process.on('disconnect', () => process.exit(0));
send({ ready: true });
