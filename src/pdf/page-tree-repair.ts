/**
 * Repair of a page tree that lenient readers walk but pdf-lib cannot: kids that loop back to an ancestor, nodes
 * without /Type or with a wrong one, direct page dictionaries, a /Count that lies. The pages are collected in the
 * order a reader shows them and hung under one new /Pages node, each with the attributes it inherited (ISO 32000-2
 * §7.7.3.4) copied onto it. For unsigned documents only: the result is a full rewrite.
 */
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRef, type PDFObject } from './pdf-lib.js';
import { withPdfLibQuiet } from './silence-pdf-lib.js';

const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;
/** Deeper than any real document nests its page tree; deeper means a loop the visited set missed through copies. */
const MAX_DEPTH = 64;
/** US Letter, what readers assume for a page that declares no MediaBox anywhere up its tree. */
const DEFAULT_MEDIA_BOX = [0, 0, 612, 792];
/** Blank pages that stand for one subtree lost to a loop, at most (its /Count may lie). */
const MAX_BLANK_PAGES = 16;

/**
 * `pdf` parsed by pdf-lib as leniently as it goes; when even that fails (a trailer cut off inside a string), the
 * objects before its last cross-reference table, whose catalog pdf-lib then finds by scanning. Undefined when neither
 * parses.
 */
async function loadLeniently(pdf: Uint8Array): Promise<PDFDocument | undefined> {
  const load = (bytes: Uint8Array): Promise<PDFDocument | undefined> =>
    withPdfLibQuiet(() => PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false, ignoreEncryption: true })).catch(() => undefined);
  const whole = await load(pdf);
  if (whole) return whole;
  const lastXref = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).lastIndexOf('xref');
  return lastXref > 0 ? load(pdf.subarray(0, lastXref)) : undefined;
}

/**
 * `pdf` rewritten with a flat page tree built from what a lenient walk of its tree finds, or undefined when the walk
 * finds no page (or the file cannot be parsed at all).
 */
export async function repairPageTree(pdf: Uint8Array): Promise<Uint8Array | undefined> {
  const doc = await loadLeniently(pdf);
  if (!doc) return undefined;
  const context = doc.context;
  // A catalog that does not parse as a dictionary (a broken entry inside it) is replaced by a bare one.
  const found = context.lookup(context.trailerInfo.Root);
  const catalog = found instanceof PDFDict ? found : context.obj({ Type: 'Catalog' });
  if (catalog !== found) context.trailerInfo.Root = context.register(catalog);
  const pages: PDFRef[] = [];
  const visited = new Set<PDFObject>();
  const walk = (node: PDFObject | undefined, inherited: ReadonlyMap<string, PDFObject>, depth: number): void => {
    const ref = node instanceof PDFRef ? node : undefined;
    const dict = ref ? context.lookup(ref) : node;
    if (!(dict instanceof PDFDict) || depth > MAX_DEPTH || visited.has(dict)) return;
    visited.add(dict);
    const kidsEntry = dict.get(PDFName.of('Kids'));
    // A /Kids that lost its brackets names one kid.
    const kids = kidsEntry instanceof PDFRef && !(context.lookup(kidsEntry) instanceof PDFArray) ? context.obj([kidsEntry]) : dict.lookup(PDFName.of('Kids'));
    const type = dict.get(PDFName.of('Type'));
    if (type !== PDFName.of('Page') && kids instanceof PDFArray) {
      const passed = new Map(inherited);
      for (const key of INHERITED) {
        const value = dict.get(PDFName.of(key));
        if (value !== undefined) passed.set(key, value);
      }
      for (let i = 0; i < kids.size(); i++) {
        const before = pages.length;
        const kid = kids.get(i);
        walk(kid, passed, depth + 1);
        // A kid whose subtree loops back yields no page; readers still count it (its /Count) and show it blank.
        if (pages.length === before && loopsBack(kid)) {
          for (let n = Math.min(declaredCount(kid), MAX_BLANK_PAGES); n > 0; n--) pages.push(blankPage(passed));
        }
      }
      return;
    }
    if (type !== undefined && type !== PDFName.of('Page')) return;
    for (const [key, value] of inherited) if (dict.get(PDFName.of(key)) === undefined) dict.set(PDFName.of(key), value);
    if (dict.get(PDFName.of('MediaBox')) === undefined) dict.set(PDFName.of('MediaBox'), context.obj(DEFAULT_MEDIA_BOX));
    dict.set(PDFName.of('Type'), PDFName.of('Page'));
    pages.push(ref ?? context.register(dict));
  };
  const loopsBack = (kid: PDFObject | undefined): boolean => {
    const node = kid instanceof PDFRef ? context.lookup(kid) : kid;
    return node instanceof PDFDict && node.get(PDFName.of('Type')) === PDFName.of('Pages') && visited.has(node);
  };
  const declaredCount = (kid: PDFObject | undefined): number => {
    const count = (context.lookup(kid as PDFRef) as PDFDict).get(PDFName.of('Count'));
    return count instanceof PDFNumber && Number.isInteger(count.asNumber()) && count.asNumber() > 0 ? count.asNumber() : 1;
  };
  const blankPage = (inherited: ReadonlyMap<string, PDFObject>): PDFRef => {
    const page = context.obj({ Type: 'Page', MediaBox: inherited.get('MediaBox') ?? context.obj(DEFAULT_MEDIA_BOX), Resources: context.obj({}) });
    const rotate = inherited.get('Rotate');
    if (rotate !== undefined) page.set(PDFName.of('Rotate'), rotate);
    return context.register(page);
  };
  walk(catalog.get(PDFName.of('Pages')), new Map(), 0);
  if (pages.length === 0) {
    // No page under the catalog (its /Pages or a /Kids array unreadable): as readers do, take every page object.
    const found = context.enumerateIndirectObjects().filter(([, object]) => object instanceof PDFDict && object.get(PDFName.of('Type')) === PDFName.of('Page'));
    found.sort(([a], [b]) => a.objectNumber - b.objectNumber);
    for (const [ref] of found) walk(ref, new Map(), 0);
  }
  if (pages.length === 0) return undefined;
  const root = context.obj({ Type: 'Pages', Kids: pages, Count: PDFNumber.of(pages.length) });
  const rootRef = context.register(root);
  for (const page of pages) (context.lookup(page) as PDFDict).set(PDFName.of('Parent'), rootRef);
  catalog.set(PDFName.of('Pages'), rootRef);
  catalog.set(PDFName.of('Type'), PDFName.of('Catalog'));
  return withPdfLibQuiet(() => doc.save({ useObjectStreams: false, updateFieldAppearances: false, addDefaultPage: false }));
}
