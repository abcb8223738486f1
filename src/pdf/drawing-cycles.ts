/**
 * Finds content that draws itself on a page (ISO 32000-2 §8.10 form XObjects, §8.7.3 tiling patterns, §9.6.4 Type3
 * glyph procedures): a chain of streams, each used by name (`Do`, `scn`/`SCN`, `Tf` then glyphs) from the one
 * before, that comes back to a stream already on the chain. pdf.js follows such a chain forever; the text index asks
 * this module about every page that runs long while it is still being extracted (and about a page its time or memory
 * budgets stopped, text-index/limits.ts), and ends the extraction as soon as a cycle is named.
 * Content streams are inflated with a size budget; only FlateDecode and unfiltered streams are read.
 */
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFStream } from './pdf-lib.js';

/** Largest inflated content stream read, and most streams visited, per page. */
const MAX_STREAM_BYTES = 16 * 1024 * 1024;
const MAX_NODES = 10_000;

interface Node {
  ref: PDFRef;
  label: string;
  content: Uint8Array | undefined;
  resources: PDFDict | undefined;
}

/**
 * The first cycle of drawing on page `pageNumber`, as labels (`form 12 0 R`, `pattern 14 0 R`, `Type3 glyph 9 0 R`)
 * from the stream where it starts back to it; undefined when there is none or the file cannot be read.
 */
export async function findDrawingCycle(pdf: Uint8Array, pageNumber: number): Promise<string[] | undefined> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, { ignoreEncryption: true, throwOnInvalidObject: false, updateMetadata: false });
  } catch {
    return undefined;
  }
  const page = doc.getPages()[pageNumber - 1];
  if (!page) return undefined;
  const pageContent = concat(page.node.Contents(), doc);
  const resources = page.node.Resources();
  const done = new Set<string>();
  const onPath: Node[] = [];
  let visited = 0;

  const visit = (content: Uint8Array | undefined, res: PDFDict | undefined): string[] | undefined => {
    for (const child of children(doc, content, res)) {
      const key = child.ref.toString();
      const at = onPath.findIndex((n) => n.ref.toString() === key);
      if (at !== -1) return [...onPath.slice(at).map((n) => n.label), child.label];
      if (done.has(key) || ++visited > MAX_NODES) continue;
      onPath.push(child);
      const cycle = visit(child.content, child.resources ?? res);
      onPath.pop();
      if (cycle) return cycle;
      done.add(key);
    }
    return undefined;
  };
  return visit(pageContent, resources);
}

/** The streams a content stream uses by name from its resources. */
function children(doc: PDFDocument, content: Uint8Array | undefined, resources: PDFDict | undefined): Node[] {
  if (!content || !resources) return [];
  const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('latin1');
  const nodes: Node[] = [];
  const entry = (category: string, name: string): { ref: PDFRef; stream: PDFStream } | undefined => {
    const dict = resources.lookupMaybe(PDFName.of(category), PDFDict);
    const value = dict?.get(PDFName.of(name));
    if (!(value instanceof PDFRef)) return undefined;
    const stream = doc.context.lookup(value);
    return stream instanceof PDFStream ? { ref: value, stream } : undefined;
  };
  for (const m of text.matchAll(/\/([^\s/[\]<>(){}%]+)\s+Do\b/g)) {
    const found = entry('XObject', m[1]!);
    if (found && found.stream.dict.get(PDFName.of('Subtype')) === PDFName.of('Form')) {
      nodes.push(node(found.ref, `form ${found.ref.toString()}`, found.stream));
    }
  }
  for (const m of text.matchAll(/\/([^\s/[\]<>(){}%]+)\s+(?:scn|SCN)\b/g)) {
    const found = entry('Pattern', m[1]!);
    if (found) nodes.push(node(found.ref, `pattern ${found.ref.toString()}`, found.stream));
  }
  for (const m of text.matchAll(/\/([^\s/[\]<>(){}%]+)\s+[-+.\d]+\s+Tf\b/g)) {
    const fonts = resources.lookupMaybe(PDFName.of('Font'), PDFDict);
    const font = fonts?.lookupMaybe(PDFName.of(m[1]!), PDFDict);
    if (!font || font.get(PDFName.of('Subtype')) !== PDFName.of('Type3')) continue;
    const procs = font.lookupMaybe(PDFName.of('CharProcs'), PDFDict);
    const fontResources = font.lookupMaybe(PDFName.of('Resources'), PDFDict);
    for (const [, value] of procs?.entries() ?? []) {
      if (!(value instanceof PDFRef)) continue;
      const stream = doc.context.lookup(value);
      if (!(stream instanceof PDFStream)) continue;
      const glyph = node(value, `Type3 glyph ${value.toString()}`, stream);
      nodes.push(fontResources && !glyph.resources ? { ...glyph, resources: fontResources } : glyph);
    }
  }
  return nodes;
}

function node(ref: PDFRef, label: string, stream: PDFStream): Node {
  const resources = stream.dict.lookupMaybe(PDFName.of('Resources'), PDFDict);
  return { ref, label, content: decode(stream), resources };
}

function concat(contents: PDFStream | PDFArray | undefined, doc: PDFDocument): Uint8Array | undefined {
  if (contents instanceof PDFStream) return decode(contents);
  if (!(contents instanceof PDFArray)) return undefined;
  const parts = contents.asArray().map((item) => {
    const stream = item instanceof PDFRef ? doc.context.lookup(item) : item;
    return stream instanceof PDFStream ? decode(stream) : undefined;
  });
  return Buffer.concat(parts.filter((p): p is Uint8Array => p !== undefined).flatMap((p) => [p, Buffer.from('\n')]));
}

/** The stream's inflated bytes, at most MAX_STREAM_BYTES of them; undefined for filters other than FlateDecode. */
function decode(stream: PDFStream): Uint8Array | undefined {
  if (!(stream instanceof PDFRawStream)) return undefined;
  const filter = stream.dict.get(PDFName.of('Filter'));
  const only = filter instanceof PDFArray && filter.size() === 1 ? filter.get(0) : filter;
  if (only === undefined) return stream.contents.subarray(0, MAX_STREAM_BYTES);
  if (only !== PDFName.of('FlateDecode')) return undefined;
  try {
    return inflateSync(stream.contents, { maxOutputLength: MAX_STREAM_BYTES });
  } catch {
    // Over the budget or damaged: what inflates within it is enough to find the names a stream uses near its start.
    try {
      return inflateSync(stream.contents, { maxOutputLength: MAX_STREAM_BYTES, finishFlush: 2 /* Z_SYNC_FLUSH */ });
    } catch {
      return undefined;
    }
  }
}
