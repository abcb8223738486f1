/**
 * pdf-lib, as every module of src/ imports it. Loaded with `require`: importing its CommonJS build from an ES module
 * makes Node scan each of its ~300 files for export names first, which costs ~100 ms (a third of a short CLI run and of
 * the service's start). The objects are pdf-lib's own: code that imports 'pdf-lib' directly shares the classes.
 */
import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';

const lib = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;

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
