/**
 * Worker thread of the text index: opens the PDF with pdf.js and extracts the page ranges the host hands out
 * (text-index.ts). Running here keeps pdf.js's core-js polyfills out of the host and lets this thread put back the
 * native `Array.prototype.push`, which the polyfill replaces with a slower one.
 *
 * Protocol: workerData `{ bytes }` → `opened {numPages}` | `error`; then for each `range {from, to, textPages}` →
 * `geometry` and `text` messages and `rangeDone`; `exit` ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';

// Kept to be put back after pdf.js replaced it; under tsx the bootstrap (text-index.ts) loaded pdf.js first and
// saved the native one here.
const saved: unknown = Reflect.get(globalThis, Symbol.for('paraph.nativePush'));
// eslint-disable-next-line @typescript-eslint/unbound-method
const nativePush = typeof saved === 'function' ? (saved as typeof Array.prototype.push) : Array.prototype.push;
const { extractRange, openPdf, toFailure } = await import('./text-index-extract.js');
Array.prototype.push = nativePush;

interface RangeMessage {
  type: 'range';
  from: number;
  to: number;
  textPages: number[] | null;
}

/** Pages after which the document is opened again (see below). */
const PAGES_PER_OPEN = 400;

const port = parentPort;
if (!port) throw new Error('text-index-worker must run as a worker thread');
const { bytes } = workerData as { bytes: Uint8Array };

try {
  let doc = await openPdf(bytes);
  let pagesSinceOpen = 0;
  port.postMessage({ type: 'opened', numPages: doc.numPages });
  let queue = Promise.resolve();
  port.on('message', (message: RangeMessage | { type: 'exit' }) => {
    if (message.type === 'exit') {
      void queue.then(() => doc.destroy()).finally(() => port.close());
      return;
    }
    queue = queue.then(async () => {
      try {
        // pdf.js keeps every page it has loaded (and their objects) until the document is destroyed: start afresh
        // now and then, so memory stays flat however long the document is.
        if (pagesSinceOpen >= PAGES_PER_OPEN) {
          await doc.destroy();
          doc = await openPdf(bytes);
          pagesSinceOpen = 0;
        }
        pagesSinceOpen += message.to - message.from + 1;
        const textPages = message.textPages ? new Set(message.textPages) : undefined;
        await extractRange(doc, message.from, message.to, textPages, {
          geometry: (geo) => port.postMessage({ type: 'geometry', geo }),
          text: (text) =>
            port.postMessage({ type: 'text', text }, [
              text.boxes.buffer as ArrayBuffer,
              text.signature.buffer as ArrayBuffer,
              text.compactSignature.buffer as ArrayBuffer,
            ]),
        });
        port.postMessage({ type: 'rangeDone' });
      } catch (error) {
        port.postMessage({ type: 'error', failure: toFailure(error) });
      }
    });
  });
} catch (error) {
  port.postMessage({ type: 'error', failure: toFailure(error) });
}
