/**
 * Worker thread of the text index: opens PDFs with pdf.js and extracts the page ranges the host hands out
 * (text-index/text-index.ts). Running here keeps pdf.js's core-js polyfills out of the host and lets this thread put back the
 * native `Array.prototype.push`, which the polyfill replaces with a slower one, and hide `DecompressionStream`. A
 * thread serves one document at a time and can be reused for the next one, so pdf.js is loaded once per thread.
 *
 * Protocol (every reply carries the `job` number of the last `open`): `open {bytes, job}` → `opened {numPages}` | `error`; then for each
 * `range {from, to, textPages, queries, keepText}` → `text` messages (one per page, with its geometry and the matches of
 * `queries` on it; `geometry` with the matches instead when `keepText` is false) and `rangeDone` | `error`; `close` → `closed` (ready for the next
 * `open`). The host terminates the thread when it no longer needs it.
 */
import { parentPort } from 'node:worker_threads';
import type { SearchBudget as Budget, TextQuery } from './search.js';

// Kept to be put back after pdf.js replaced it; under tsx the bootstrap (text-index/text-index.ts) loaded pdf.js first and
// saved the native one here.
const saved: unknown = Reflect.get(globalThis, Symbol.for('paraph.nativePush'));
// eslint-disable-next-line @typescript-eslint/unbound-method
const nativePush = typeof saved === 'function' ? (saved as typeof Array.prototype.push) : Array.prototype.push;
const { extractRange, openPdf, toFailure } = await import('./pdfjs-extract.js');
const { INDEX_BALANCE_MIN_PAGES, balancePageTree } = await import('../page-tree-balance.js');
const { SearchBudget, searchPage } = await import('./search.js');
// pdf.js's own worker code, loaded now rather than by the first getDocument: it brings a second copy of the
// polyfills, which would replace `push` again after it was put back (pdf.js uses the loaded module, no new import).
// A variable specifier, as the package ships no types for this module.
const pdfjsWorkerModule = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
await import(pdfjsWorkerModule);
Array.prototype.push = nativePush;
// Without DecompressionStream pdf.js inflates streams with its own synchronous decoder (its path in browsers that lack
// it). Through Node's web streams every small content stream costs a zlib handle and a train of promises: measured
// getOperatorList 1.4–1.6 → 1.05–1.1 ms per benchmark page. Same bytes either way; this thread is ours to change.
Reflect.deleteProperty(globalThis, 'DecompressionStream');

type Message =
  | { type: 'open'; bytes: Uint8Array; job: number }
  | { type: 'range'; from: number; to: number; textPages: number[] | null; queries: TextQuery[]; keepText: boolean }
  | { type: 'close' };

type Doc = Awaited<ReturnType<typeof openPdf>>;

/** Pages after which the document is opened again (see below). */
const PAGES_PER_OPEN = 400;

const port = parentPort;
if (!port) throw new Error('text-index/pdfjs-worker must run as a worker thread');

let bytes: Uint8Array | undefined;
/** The host's number for the current document; every reply carries it, so late replies are recognized. */
let job = 0;
let doc: Doc | undefined;
let pagesSinceOpen = 0;
/**
 * What this thread has kept of the current document's matches: the host hands out ranges in page order, so the
 * thread keeps the boxes of at most `keep` matches per query in all of its pages.
 */
let budget: Budget | undefined;
let queue = Promise.resolve();

async function close(): Promise<void> {
  const open = doc;
  doc = undefined;
  bytes = undefined;
  if (open) await open.destroy().catch(() => undefined);
}

async function handle(message: Message): Promise<void> {
  switch (message.type) {
    case 'open':
      await close();
      job = message.job;
      bytes = message.bytes;
      budget = undefined;
      doc = await openPdf(bytes);
      // A large flat page tree makes each getPage walk all kids: hand pdf.js a balanced copy, once per document
      // (page-tree-balance.ts). Opened first with the original bytes so its errors and page count are the file's own.
      if (doc.numPages >= INDEX_BALANCE_MIN_PAGES) {
        const balanced = await balancePageTree(bytes);
        const other = balanced === bytes ? undefined : await openPdf(balanced).catch(() => undefined);
        if (other && other.numPages === doc.numPages) {
          await doc.destroy();
          bytes = balanced;
          doc = other;
        } else await other?.destroy();
      }
      pagesSinceOpen = 0;
      port!.postMessage({ type: 'opened', job, numPages: doc.numPages });
      return;
    case 'close':
      await close();
      port!.postMessage({ type: 'closed', job });
      return;
    case 'range': {
      if (!doc || !bytes) throw new Error('range before open');
      // pdf.js keeps every page it has loaded (and their objects) until the document is destroyed: start afresh
      // now and then, so memory stays flat however long the document is.
      if (pagesSinceOpen >= PAGES_PER_OPEN) {
        await doc.destroy();
        doc = await openPdf(bytes);
        pagesSinceOpen = 0;
      }
      pagesSinceOpen += message.to - message.from + 1;
      const textPages = message.textPages ? new Set(message.textPages) : undefined;
      budget ??= new SearchBudget(message.queries);
      const searched = budget;
      let geometry: unknown;
      await extractRange(doc, message.from, message.to, textPages, {
        geometry: (geo) => {
          if (textPages && !textPages.has(geo.pageNumber)) port!.postMessage({ type: 'geometry', job, geo });
          else geometry = geo;
        },
        text: (text) => {
          // Searched here, where the page's text is: the page's time budget covers it.
          const found = message.queries.length > 0 ? searchPage(text.pageNumber, text.text, text.boxes, message.queries, searched) : undefined;
          if (!message.keepText) {
            port!.postMessage({ type: 'geometry', job, geo: geometry, found });
            return;
          }
          port!.postMessage({ type: 'text', job, geo: geometry, text, found }, [
            text.boxes.buffer as ArrayBuffer,
            text.signature.buffer as ArrayBuffer,
            text.compactSignature.buffer as ArrayBuffer,
          ]);
        },
      });
      port!.postMessage({ type: 'rangeDone', job });
      return;
    }
  }
}

// pdf.js leaves a rejection nobody awaits on some damaged files (a FormatError from its lexer, seen in the
// damaged-PDF property test). In this thread of ours it must neither end the thread nor go unnoticed: it fails the
// job in progress as unreadable input (a late one for a finished job is ignored by the host: job numbers differ).
process.on('unhandledRejection', (reason: unknown) => {
  port.postMessage({ type: 'error', job, failure: toFailure(reason) });
});

port.on('message', (message: Message) => {
  queue = queue.then(() =>
    handle(message).catch(async (error: unknown) => {
      await close();
      port.postMessage({ type: 'error', job, failure: toFailure(error) });
    }),
  );
});
port.postMessage({ type: 'ready' });
