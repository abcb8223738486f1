/**
 * pdf-lib, as every module of src/ (and every test) imports it: its one-file build (`dist/pdf-lib.min.js`, with its
 * source map for `node --enable-source-maps`), loaded with `require`. Importing pdf-lib's CommonJS build from an ES
 * module makes Node scan its ~300 files for export names (~100 ms); requiring it still resolves and compiles the ~300
 * files (~70 ms); the one file loads in ~30 ms — in every CLI run, service start and worker thread that needs pdf-lib.
 * Its classes are not those of `import 'pdf-lib'`: code that hands pdf-lib objects to paraph's PDF modules must take
 * them from here (paraph's public API takes and returns bytes).
 */
import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';

const lib = createRequire(import.meta.url)('pdf-lib/dist/pdf-lib.min.js') as typeof PdfLib;

export const {
  PDFArray,
  PDFBool,
  PDFContext,
  PDFCrossRefSection,
  PDFCrossRefStream,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNull,
  PDFNumber,
  PDFObject,
  PDFObjectParser,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  PDFTrailer,
  PDFTrailerDict,
  ParseSpeeds,
  StandardFonts,
  decodePDFRawStream,
  degrees,
  rgb,
  typedArrayFor,
} = lib;

export type PDFArray = PdfLib.PDFArray;
export type PDFBool = PdfLib.PDFBool;
export type PDFContext = PdfLib.PDFContext;
export type PDFCrossRefSection = PdfLib.PDFCrossRefSection;
export type PDFCrossRefStream = PdfLib.PDFCrossRefStream;
export type PDFDict = PdfLib.PDFDict;
export type PDFDocument = PdfLib.PDFDocument;
export type PDFHexString = PdfLib.PDFHexString;
export type PDFName = PdfLib.PDFName;
export type PDFNumber = PdfLib.PDFNumber;
export type PDFObject = PdfLib.PDFObject;
export type PDFObjectParser = PdfLib.PDFObjectParser;
export type PDFRawStream = PdfLib.PDFRawStream;
export type PDFRef = PdfLib.PDFRef;
export type PDFStream = PdfLib.PDFStream;
export type PDFString = PdfLib.PDFString;
export type PDFTrailer = PdfLib.PDFTrailer;
export type PDFTrailerDict = PdfLib.PDFTrailerDict;
export type ParseSpeeds = PdfLib.ParseSpeeds;
export type StandardFonts = PdfLib.StandardFonts;
export type PDFFont = PdfLib.PDFFont;
export type PDFImage = PdfLib.PDFImage;
export type PDFPage = PdfLib.PDFPage;
