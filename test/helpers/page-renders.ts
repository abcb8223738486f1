/**
 * The first page of a PDF as three independent readers draw it, widgets and their appearances included: poppler
 * (pdftoppm), MuPDF (mutool draw) and PDFium (the WebAssembly build paraph ships, FPDF_RenderPageBitmap with
 * annotations). Each comes back as a grey raster at `scale` pixels per point, for checks of what a reader sees where.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { copyIn, loadPdfium, type Pdfium } from '../../src/pdf/pdfium.js';

export type Renderer = 'poppler' | 'mupdf' | 'pdfium';
export const RENDERERS: readonly Renderer[] = ['poppler', 'mupdf', 'pdfium'];

/** A grey raster (0 black … 255 white), row by row. */
export interface GreyRaster {
  readonly width: number;
  readonly height: number;
  readonly grey: Uint8Array;
}

/** A box in PDF points from the page's top-left corner (the API's Location). */
export interface TopLeftBox {
  readonly Left: number;
  readonly Top: number;
  readonly Width: number;
  readonly Height: number;
}

const run = promisify(execFile);

function fromRgba(data: Uint8Array, width: number, height: number, order: 'rgba' | 'bgra'): GreyRaster {
  const grey = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    const [r, b] = order === 'rgba' ? [data[i * 4]!, data[i * 4 + 2]!] : [data[i * 4 + 2]!, data[i * 4]!];
    grey[i] = Math.round(0.299 * r + 0.587 * data[i * 4 + 1]! + 0.114 * b);
  }
  return { width, height, grey };
}

/** The render functions of PDFium this module calls (fpdfview.h), beyond those paraph itself uses. */
interface PdfiumRender {
  FPDF_GetPageWidthF(page: number): number;
  FPDF_GetPageHeightF(page: number): number;
  FPDFBitmap_Create(width: number, height: number, alpha: number): number;
  FPDFBitmap_FillRect(bitmap: number, left: number, top: number, width: number, height: number, colour: number): void;
  FPDFBitmap_GetBuffer(bitmap: number): number;
  FPDFBitmap_GetStride(bitmap: number): number;
  FPDFBitmap_Destroy(bitmap: number): void;
  FPDF_RenderPageBitmap(bitmap: number, page: number, x: number, y: number, width: number, height: number, rotate: number, flags: number): void;
  PDFiumExt_OpenFormFillInfo(): number;
  PDFiumExt_CloseFormFillInfo(info: number): void;
  PDFiumExt_InitFormFillEnvironment(doc: number, info: number): number;
  PDFiumExt_ExitFormFillEnvironment(form: number): void;
  FORM_OnAfterLoadPage(page: number, form: number): void;
  FORM_OnBeforeClosePage(page: number, form: number): void;
  FPDF_FFLDraw(form: number, bitmap: number, page: number, x: number, y: number, width: number, height: number, rotate: number, flags: number): void;
}

/** FPDF_ANNOT: draw annotations. Widgets are left to the form environment's FPDF_FFLDraw, as a viewer does. */
const FPDF_ANNOT = 0x01;

let pdfium: Promise<Pdfium & PdfiumRender> | undefined;

function renderWithPdfium(module: Pdfium & PdfiumRender, bytes: Uint8Array, scale: number): GreyRaster {
  const ptr = copyIn(module, bytes);
  const doc = module.FPDF_LoadMemDocument(ptr, bytes.length, '');
  const info = module.PDFiumExt_OpenFormFillInfo();
  let form = 0;
  try {
    if (!doc) throw new Error(`PDFium could not open the document (error ${module.FPDF_GetLastError()})`);
    form = module.PDFiumExt_InitFormFillEnvironment(doc, info);
    const page = module.FPDF_LoadPage(doc, 0);
    module.FORM_OnAfterLoadPage(page, form);
    try {
      const width = Math.round(module.FPDF_GetPageWidthF(page) * scale);
      const height = Math.round(module.FPDF_GetPageHeightF(page) * scale);
      const bitmap = module.FPDFBitmap_Create(width, height, 0);
      try {
        module.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
        module.FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0, FPDF_ANNOT);
        module.FPDF_FFLDraw(form, bitmap, page, 0, 0, width, height, 0, FPDF_ANNOT);
        const stride = module.FPDFBitmap_GetStride(bitmap);
        const buffer = module.FPDFBitmap_GetBuffer(bitmap);
        const rows = new Uint8Array(width * height * 4);
        for (let y = 0; y < height; y++) rows.set(module.pdfium.HEAPU8.subarray(buffer + y * stride, buffer + y * stride + width * 4), y * width * 4);
        return fromRgba(rows, width, height, 'bgra');
      } finally {
        module.FPDFBitmap_Destroy(bitmap);
      }
    } finally {
      module.FORM_OnBeforeClosePage(page, form);
      module.FPDF_ClosePage(page);
    }
  } finally {
    if (form) module.PDFiumExt_ExitFormFillEnvironment(form);
    module.PDFiumExt_CloseFormFillInfo(info);
    if (doc) module.FPDF_CloseDocument(doc);
    module.pdfium.wasmExports.free(ptr);
  }
}

/** Draws page 1 of `bytes` with `renderer` at `scale` pixels per point. */
export async function renderFirstPage(renderer: Renderer, bytes: Uint8Array, scale: number): Promise<GreyRaster> {
  if (renderer === 'pdfium') {
    pdfium ??= loadPdfium() as Promise<Pdfium & PdfiumRender>;
    return renderWithPdfium(await pdfium, bytes, scale);
  }
  const dir = await mkdtemp(join(tmpdir(), 'paraph-render-'));
  try {
    const input = join(dir, 'in.pdf');
    await writeFile(input, bytes);
    const dpi = String(72 * scale);
    if (renderer === 'poppler') await run('pdftoppm', ['-png', '-r', dpi, '-f', '1', '-l', '1', '-singlefile', input, join(dir, 'page')]);
    else await run('mutool', ['draw', '-q', '-r', dpi, '-o', join(dir, 'page.png'), input, '1']);
    const png = PNG.sync.read(await readFile(join(dir, 'page.png')));
    return fromRgba(png.data, png.width, png.height, 'rgba');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Pixels darker than mid-grey inside `box` shrunk by `inset` points on each side (leaving out a field's border). */
export function darkPixelsIn(raster: GreyRaster, box: TopLeftBox, scale: number, inset: number): number {
  const x0 = Math.max(0, Math.round((box.Left + inset) * scale));
  const x1 = Math.min(raster.width, Math.round((box.Left + box.Width - inset) * scale));
  const y0 = Math.max(0, Math.round((box.Top + inset) * scale));
  const y1 = Math.min(raster.height, Math.round((box.Top + box.Height - inset) * scale));
  let dark = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (raster.grey[y * raster.width + x]! < 128) dark++;
  return dark;
}
