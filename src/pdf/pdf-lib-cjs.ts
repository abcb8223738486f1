/**
 * The pdf-lib classes the `paraph place` path uses, loaded with `require`. pdf-lib ships CommonJS only; an `import`
 * of it makes Node scan the source of every file it re-exports for export names (~50–100 ms of a cold CLI run), which
 * `require` skips. Same module instance either way (Node's CommonJS cache), so `instanceof` holds across both.
 */
import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';

const pdfLib = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;

export const {
  ParseSpeeds,
  PDFArray,
  PDFContext,
  PDFCrossRefSection,
  PDFCrossRefStream,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  PDFTrailer,
  PDFTrailerDict,
} = pdfLib;

export type PDFArray = PdfLib.PDFArray;
export type PDFContext = PdfLib.PDFContext;
export type PDFCrossRefSection = PdfLib.PDFCrossRefSection;
export type PDFCrossRefStream = PdfLib.PDFCrossRefStream;
export type PDFDict = PdfLib.PDFDict;
export type PDFDocument = PdfLib.PDFDocument;
export type PDFFont = PdfLib.PDFFont;
export type PDFHexString = PdfLib.PDFHexString;
export type PDFName = PdfLib.PDFName;
export type PDFNumber = PdfLib.PDFNumber;
export type PDFObject = PdfLib.PDFObject;
export type PDFObjectParser = PdfLib.PDFObjectParser;
export type PDFPage = PdfLib.PDFPage;
export type PDFRawStream = PdfLib.PDFRawStream;
export type PDFRef = PdfLib.PDFRef;
export type PDFStream = PdfLib.PDFStream;
export type PDFString = PdfLib.PDFString;
export type PDFTrailer = PdfLib.PDFTrailer;
export type PDFTrailerDict = PdfLib.PDFTrailerDict;
