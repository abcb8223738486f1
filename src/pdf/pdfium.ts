/**
 * PDFium compiled to WebAssembly (npm `@embedpdf/pdfium`, MIT/BSD): loading it and the few of its C functions paraph
 * calls, typed narrowly. Used where pdf-lib and pdf.js cannot help: reading an encrypted document with the empty user
 * password and rewriting a document whose cross-reference table is damaged (normalize-pdf.ts); and as the second
 * text engine of the text index (text-index/pdfium-extract.ts). Loading costs ~150 ms
 * and runs in the thread that calls it, so callers do it in a worker thread.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The PDFium functions paraph uses (see fpdfview.h, fpdf_save.h, fpdf_signature.h). */
export interface Pdfium {
  FPDF_LoadMemDocument(data: number, size: number, password: string): number;
  FPDF_GetLastError(): number;
  FPDF_CloseDocument(doc: number): void;
  FPDF_GetPageCount(doc: number): number;
  FPDF_GetDocPermissions(doc: number): number;
  FPDF_GetSignatureCount(doc: number): number;
  EPDF_IsEncrypted(doc: number): boolean;
  EPDF_RemoveEncryption(doc: number): boolean;
  PDFiumExt_Init(): void;
  PDFiumExt_OpenFileWriter(): number;
  PDFiumExt_SaveAsCopy(doc: number, writer: number): number;
  PDFiumExt_GetFileWriterSize(writer: number): number;
  PDFiumExt_GetFileWriterData(writer: number, buffer: number, size: number): number;
  PDFiumExt_CloseFileWriter(writer: number): void;
  FPDF_LoadPage(doc: number, index: number): number;
  FPDF_ClosePage(page: number): void;
  /** The page's CropBox clipped to its MediaBox, as an FS_RECTF (left, top, right, bottom floats). */
  FPDF_GetPageBoundingBox(page: number, rect: number): boolean;
  /** The page's own /MediaBox as four floats (left, bottom, right, top); false when the page dictionary has none. */
  FPDFPage_GetMediaBox(page: number, left: number, bottom: number, right: number, top: number): boolean;
  /** /Rotate in quarter turns clockwise (0–3). */
  FPDFPage_GetRotation(page: number): number;
  FPDFText_LoadPage(page: number): number;
  FPDFText_ClosePage(textPage: number): void;
  FPDFText_CountChars(textPage: number): number;
  FPDFText_GetUnicode(textPage: number, index: number): number;
  /** 1 for a character PDFium inserted (a space or line break it inferred), 0 for one from the content, −1 on error. */
  FPDFText_IsGenerated(textPage: number, index: number): number;
  FPDFText_GetFontSize(textPage: number, index: number): number;
  /** Baseline origin in user space, as two doubles. */
  FPDFText_GetCharOrigin(textPage: number, index: number, x: number, y: number): boolean;
  /** FS_RECTF: left, top, right, bottom (floats). */
  FPDFText_GetLooseCharBox(textPage: number, index: number, rect: number): boolean;
  /** FS_MATRIX (a, b, c, d, e, f floats): the character's text matrix with the CTM applied. */
  FPDFText_GetMatrix(textPage: number, index: number, matrix: number): boolean;
  pdfium: { HEAPU8: Uint8Array; wasmExports: { malloc(size: number): number; free(ptr: number): void } & RawTextExports };
}

/**
 * The text functions called per character (and per page object) as the module's raw WebAssembly exports: the same
 * C functions without the wrapper that converts arguments (booleans come back as 0/1). Called millions of times per
 * document, where the wrappers cost about 7× the call itself.
 */
export interface RawTextExports {
  FPDFText_GetUnicode(textPage: number, index: number): number;
  FPDFText_IsGenerated(textPage: number, index: number): number;
  FPDFText_GetFontSize(textPage: number, index: number): number;
  FPDFText_GetCharOrigin(textPage: number, index: number, x: number, y: number): number;
  FPDFText_GetLooseCharBox(textPage: number, index: number, rect: number): number;
  FPDFText_GetMatrix(textPage: number, index: number, matrix: number): number;
  /** 1 for a character whose font gives no Unicode for its code (PDFium then gives the code itself). */
  FPDFText_HasUnicodeMapError(textPage: number, index: number): number;
  /** 1 for a hyphen that PDFium found ending a line (given as U+0002). */
  FPDFText_IsHyphen(textPage: number, index: number): number;
  /** Tight glyph bounds in user space: left, right, bottom, top (doubles). */
  FPDFText_GetCharBox(textPage: number, index: number, left: number, right: number, bottom: number, top: number): number;
  FPDFText_GetTextObject(textPage: number, index: number): number;
  FPDFTextObj_GetFont(textObject: number): number;
  /** Advance of the character PDFium maps `unicode` back to, at `fontSize`, as a float (text space). */
  FPDFFont_GetGlyphWidth(font: number, unicode: number, fontSize: number, width: number): number;
  /** 1 for an embedded font, which a Type3 font always is. */
  FPDFFont_GetIsEmbedded(font: number): number;
  /** The font program's bytes (none for a Type3 font): with a null buffer, only their count is written to `length`. */
  FPDFFont_GetFontData(font: number, buffer: number, bufferLength: number, length: number): number;
  /** The page's objects in content order (a form's: FPDFFormObj_*). */
  FPDFPage_CountObjects(page: number): number;
  FPDFPage_GetObject(page: number, index: number): number;
  /** FPDF_PAGEOBJ_TEXT (1), …, FPDF_PAGEOBJ_FORM (5). */
  FPDFPageObj_GetType(object: number): number;
  FPDFFormObj_CountObjects(form: number): number;
  FPDFFormObj_GetObject(form: number, index: number): number;
}

/** `FPDF_GetLastError` codes (fpdfview.h). */
export const FPDF_ERR_PASSWORD = 4;

/** Loads PDFium (once per thread) and initializes the library. */
export async function loadPdfium(): Promise<Pdfium> {
  const require = createRequire(import.meta.url);
  const wasm = await readFile(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
  const { init } = await import('@embedpdf/pdfium');
  const binary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength);
  // The package's types lean on @types/emscripten for the module options; wasmBinary is the one we set.
  const module = (await init({ wasmBinary: binary } as Parameters<typeof init>[0])) as unknown as Pdfium;
  module.PDFiumExt_Init();
  return module;
}

/** Copies `bytes` into PDFium's memory; the caller frees the pointer after closing the document. */
export function copyIn(pdfium: Pdfium, bytes: Uint8Array): number {
  const ptr = pdfium.pdfium.wasmExports.malloc(bytes.length);
  pdfium.pdfium.HEAPU8.set(bytes, ptr);
  return ptr;
}

/** Writes `doc` as a new file (a full rewrite, not an incremental update) and returns its bytes. */
export function saveCopy(pdfium: Pdfium, doc: number): Uint8Array | undefined {
  const writer = pdfium.PDFiumExt_OpenFileWriter();
  try {
    if (!pdfium.PDFiumExt_SaveAsCopy(doc, writer)) return undefined;
    const size = pdfium.PDFiumExt_GetFileWriterSize(writer);
    const out = pdfium.pdfium.wasmExports.malloc(size);
    try {
      pdfium.PDFiumExt_GetFileWriterData(writer, out, size);
      return pdfium.pdfium.HEAPU8.slice(out, out + size);
    } finally {
      pdfium.pdfium.wasmExports.free(out);
    }
  } finally {
    pdfium.PDFiumExt_CloseFileWriter(writer);
  }
}
