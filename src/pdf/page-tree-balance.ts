/**
 * Read-side helper of the text index: gives pdf.js a balanced page tree (ISO 32000-2 §7.7.3.2) for
 * documents whose root `/Pages` holds all pages in one flat `/Kids` array, as every pdf-lib output does. On such a
 * tree pdf.js's `Catalog.getPageDict` walks every kid on each `getPage` (O(n) per page, O(n²) per document: ~0.6 ms per
 * page at 5,000 pages). One incremental update replaces the root's `/Kids` with intermediate `/Type /Pages` nodes of
 * at most 64 kids each; pdf.js then skips whole subtrees by their cached `/Count`.
 *
 * Page objects are not touched: their `/Parent` still names the root, so inherited `/MediaBox`, `/CropBox`, `/Rotate`
 * and `/Resources` (pdf.js `getInheritableProperty` follows `/Parent`) resolve exactly as before, and page order is
 * unchanged. The result is only ever handed to pdf.js for reading; it is never a document paraph outputs.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef } from './pdf-lib.js';
import { openPdfForUpdate, writeIncrementalUpdate } from './incremental.js';

/** Flat `/Kids` arrays longer than this are balanced; shorter ones cost pdf.js little. */
export const BALANCE_MIN_KIDS = 128;
/**
 * The text index balances documents of at least this many pages. Below it the pdf-lib parse the rewrite needs
 * (~0.05–0.09 ms per page, once per worker thread) costs about what it saves: measured on the benchmark file, a full
 * pdf.js getPage pass took 150 → 35 ms at 1,000 pages and 3,500 → 190 ms at 5,000, while balancing took 50–90 ms
 * and 100–220 ms; two workers each parse the whole file but walk only their half of the pages.
 */
export const INDEX_BALANCE_MIN_PAGES = 2000;
/** Kids per node of the balanced tree. */
const FANOUT = 64;
/** `/Linearized` must appear in the first object, within the first 1024 bytes (ISO 32000-2 Annex F). */
const LINEARIZED_WINDOW = 1024;

function isLinearized(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.length, LINEARIZED_WINDOW)));
  return head.includes('/Linearized');
}

function isName(value: unknown, name: string): boolean {
  return value instanceof PDFName && value.asString() === `/${name}`;
}

/**
 * Returns `bytes` with one incremental update appended that turns a large flat root page tree into a balanced one
 * (see the module comment), or `bytes` itself (the same object) when the document does not qualify: fewer than
 * {@link BALANCE_MIN_KIDS} kids, a nested tree, linearized or encrypted files, kids that are not `/Type /Page`
 * dictionaries whose `/Parent` is the root, a `/Count` that disagrees, or anything that fails to parse.
 * The original bytes are an exact prefix of the result.
 */
export async function balancePageTree(bytes: Uint8Array): Promise<Uint8Array> {
  try {
    if (isLinearized(bytes)) return bytes;
    const session = await openPdfForUpdate(bytes);
    const context = session.doc.context;
    if (context.trailerInfo.Encrypt) return bytes;
    const rootRef = session.doc.catalog.get(PDFName.of('Pages'));
    if (!(rootRef instanceof PDFRef)) return bytes;
    const root = context.lookup(rootRef);
    if (!(root instanceof PDFDict)) return bytes;
    const kidsValue = root.get(PDFName.of('Kids'));
    if (!(kidsValue instanceof PDFArray) || kidsValue.size() <= BALANCE_MIN_KIDS) return bytes;
    const count = root.get(PDFName.of('Count'));
    if (!(count instanceof PDFNumber) || count.asNumber() !== kidsValue.size()) return bytes;
    const pages: PDFRef[] = [];
    for (let i = 0; i < kidsValue.size(); i++) {
      const kid = kidsValue.get(i);
      if (!(kid instanceof PDFRef)) return bytes;
      const page = context.lookup(kid);
      if (!(page instanceof PDFDict) || !isName(page.get(PDFName.of('Type')), 'Page') || page.has(PDFName.of('Kids'))) {
        return bytes;
      }
      const parent = page.get(PDFName.of('Parent'));
      if (!(parent instanceof PDFRef) || parent !== rootRef) return bytes;
      pages.push(kid);
    }

    // Bottom-up: group the level's nodes by FANOUT under new /Pages nodes until the top fits in the root.
    type Node = { ref: PDFRef; count: number; dict?: PDFDict };
    let level: Node[] = pages.map((ref) => ({ ref, count: 1 }));
    while (level.length > FANOUT) {
      const next: Node[] = [];
      for (let i = 0; i < level.length; i += FANOUT) {
        const group = level.slice(i, i + FANOUT);
        const total = group.reduce((sum, node) => sum + node.count, 0);
        const dict = context.obj({
          Type: 'Pages',
          Kids: group.map((node) => node.ref),
          Count: total,
        }) as PDFDict;
        const ref = context.register(dict);
        for (const node of group) node.dict?.set(PDFName.of('Parent'), ref);
        next.push({ ref, count: total, dict });
      }
      level = next;
    }
    for (const node of level) node.dict?.set(PDFName.of('Parent'), rootRef);
    root.set(PDFName.of('Kids'), context.obj(level.map((node) => node.ref)));
    session.markModified(rootRef);
    return writeIncrementalUpdate(session).bytes;
  } catch {
    return bytes;
  }
}
