/**
 * Independent checks of PDFs that tests produce: poppler's `pdfsig`, `qpdf --check` and `openssl cms -verify`.
 * A signing test proves validity with these, never by finding `/Type /Sig` in its own output. Each wrapper writes
 * the bytes to a temporary file, runs the tool and returns what it said.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from '../../src/pdf/pdf-lib.js';

/** What a tool run returned. */
export interface ToolRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[]): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ exitCode: code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-tools-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `qpdf --check`: `ok` only when qpdf exits 0 and prints no warning. */
export async function qpdfCheck(pdf: Uint8Array): Promise<ToolRun & { readonly ok: boolean }> {
  return withTempDir(async (dir) => {
    const file = join(dir, 'in.pdf');
    await writeFile(file, pdf);
    const result = await run('qpdf', ['--check', file]);
    const ok = result.exitCode === 0 && !/WARNING/i.test(result.stdout + result.stderr);
    return { ...result, ok };
  });
}

/** One signature as `pdfsig` reports it. */
export interface PdfsigSignature {
  /** 1-based, as pdfsig numbers them (unsigned signature fields count too). */
  readonly number: number;
  readonly fieldName: string | undefined;
  readonly signerCommonName: string | undefined;
  /** The text after "Signature Validation:". */
  readonly validation: string;
  /** True when pdfsig says "Signature is Valid.". */
  readonly valid: boolean;
  /** True when pdfsig says the signature covers the whole file ("Total document signed"). */
  readonly totalDocumentSigned: boolean;
  /** The "Signature Type:" line, e.g. `ETSI.CAdES.detached`. */
  readonly type: string | undefined;
  /** The "Signed Ranges:" line. */
  readonly ranges: string | undefined;
  /** The "Signing Hash Algorithm:" line. */
  readonly hashAlgorithm: string | undefined;
}

/** Runs `pdfsig` and parses its per-signature blocks (Debian 12's poppler 22 format), leaving out unsigned fields. */
export async function pdfsigCheck(pdf: Uint8Array): Promise<ToolRun & { readonly signatures: PdfsigSignature[] }> {
  return withTempDir(async (dir) => {
    const file = join(dir, 'in.pdf');
    await writeFile(file, pdf);
    const result = await run('pdfsig', [file]);
    const signatures: PdfsigSignature[] = [];
    const blocks = result.stdout.split(/^Signature #(\d+):\s*$/m);
    for (let i = 1; i + 1 < blocks.length; i += 2) {
      const text = blocks[i + 1] as string;
      // pdfsig lists unsigned signature fields too; they are not signatures.
      if (/The signature form field is not signed/.test(text)) continue;
      const line = (label: string): string | undefined =>
        new RegExp(`^\\s*- ${label}:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim();
      const validation = line('Signature Validation') ?? '';
      signatures.push({
        number: Number(blocks[i]),
        fieldName: line('Signature Field Name'),
        signerCommonName: line('Signer Certificate Common Name'),
        validation,
        valid: validation === 'Signature is Valid.',
        totalDocumentSigned: /^\s*- Total document signed\s*$/m.test(text),
        type: line('Signature Type'),
        ranges: line('Signed Ranges'),
        hashAlgorithm: line('Signing Hash Algorithm'),
      });
    }
    return { ...result, signatures };
  });
}

/** A signature dictionary found in a PDF: its byte range and the DER CMS from `/Contents` (trailing zeros cut). */
export interface ExtractedSignature {
  readonly byteRange: readonly [number, number, number, number];
  readonly cms: Uint8Array;
  readonly subFilter: string | undefined;
}

/** The length of the DER TLV at the start of `der` (so the zero padding of `/Contents` can be cut off). */
function derLength(der: Uint8Array): number {
  const first = der[1] ?? 0;
  if (first < 0x80) return 2 + first;
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (der[2 + i] ?? 0);
  return 2 + count + length;
}

/**
 * Every signature value (`/Type /Sig` or `/DocTimeStamp` dictionary with a `/ByteRange`) reachable from the
 * AcroForm fields, in the order of the revisions they sign (shortest signed range first), read with pdf-lib.
 */
export async function extractSignatures(pdf: Uint8Array): Promise<ExtractedSignature[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const found: ExtractedSignature[] = [];
  const seen = new Set<string>();
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    const range = object.lookup(PDFName.of('ByteRange'));
    const contents = object.get(PDFName.of('Contents'));
    if (!(range instanceof PDFArray) || !(contents instanceof PDFHexString || contents instanceof PDFString)) continue;
    const numbers = range.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : NaN));
    if (numbers.length !== 4 || numbers.some((n) => !Number.isInteger(n))) continue;
    const key = `${ref.objectNumber}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const raw = contents.asBytes();
    const subFilter = object.lookup(PDFName.of('SubFilter'));
    found.push({
      byteRange: numbers as unknown as [number, number, number, number],
      cms: raw.subarray(0, Math.min(raw.length, derLength(raw))),
      subFilter: subFilter instanceof PDFName ? subFilter.decodeText() : undefined,
    });
  }
  return found.sort((a, b) => a.byteRange[2] + a.byteRange[3] - (b.byteRange[2] + b.byteRange[3]));
}

/** The bytes a signature signs: its two byte ranges concatenated (fine in tests; the library never does this). */
export function signedBytes(pdf: Uint8Array, byteRange: readonly [number, number, number, number]): Uint8Array {
  const [a, b, c, d] = byteRange;
  const out = new Uint8Array(b + d);
  out.set(pdf.subarray(a, a + b), 0);
  out.set(pdf.subarray(c, c + d), b);
  return out;
}

/**
 * `openssl cms -verify -binary -inform DER -purpose any -CAfile <root> -content <signed ranges>` on the
 * `signatureIndex`-th signature (0-based, in revision order, see {@link extractSignatures}). `ok` when openssl
 * prints "Verification successful" and exits 0.
 */
export async function opensslCmsVerify(
  pdf: Uint8Array,
  signatureIndex: number,
  caPem: string,
): Promise<ToolRun & { readonly ok: boolean }> {
  const signature = (await extractSignatures(pdf))[signatureIndex];
  if (!signature) throw new Error(`the PDF has no signature #${signatureIndex}`);
  return withTempDir(async (dir) => {
    await writeFile(join(dir, 'sig.der'), signature.cms);
    await writeFile(join(dir, 'content.bin'), signedBytes(pdf, signature.byteRange));
    await writeFile(join(dir, 'root.pem'), caPem);
    const result = await run('openssl', [
      'cms', '-verify', '-binary', '-inform', 'DER', '-purpose', 'any',
      '-in', join(dir, 'sig.der'), '-content', join(dir, 'content.bin'),
      '-CAfile', join(dir, 'root.pem'), '-out', join(dir, 'out.bin'),
    ]);
    const ok = result.exitCode === 0 && /Verification successful/.test(result.stderr + result.stdout);
    return { ...result, ok };
  });
}

/**
 * `openssl ts -verify -data <signed ranges> -in <token> -token_in -CAfile <root>` on the `signatureIndex`-th signature,
 * for document time-stamps (SubFilter ETSI.RFC3161), whose /Contents is an RFC 3161 token over the ranges.
 */
async function opensslTsVerify(
  pdf: Uint8Array,
  signatureIndex: number,
  caPem: string,
): Promise<ToolRun & { readonly ok: boolean }> {
  const signature = (await extractSignatures(pdf))[signatureIndex];
  if (!signature) throw new Error(`the PDF has no signature #${signatureIndex}`);
  return withTempDir(async (dir) => {
    await writeFile(join(dir, 'token.der'), signature.cms);
    await writeFile(join(dir, 'content.bin'), signedBytes(pdf, signature.byteRange));
    await writeFile(join(dir, 'root.pem'), caPem);
    const result = await run('openssl', [
      'ts', '-verify', '-token_in', '-in', join(dir, 'token.der'), '-data', join(dir, 'content.bin'), '-CAfile', join(dir, 'root.pem'),
    ]);
    const ok = result.exitCode === 0 && /Verification: OK/.test(result.stdout + result.stderr);
    return { ...result, ok };
  });
}

/** What the three independent tools say about a signed PDF (see {@link checkSignedPdf}). */
export interface SignedPdfReport {
  /** pdfsig's per-signature results. */
  readonly pdfsig: PdfsigSignature[];
  /** `openssl cms -verify` (`openssl ts -verify` for document time-stamps) per signature, in revision order. */
  readonly openssl: boolean[];
  /** `qpdf --check` passed without warnings. */
  readonly qpdf: boolean;
  /** Tool output, for assertion messages. */
  readonly details: string;
}

/**
 * Runs pdfsig, openssl (for every signature, chain to `caPem`: `openssl cms -verify`, or `openssl ts -verify` for a
 * document time-stamp) and `qpdf --check` on `pdf`. Debian 12's pdfsig cannot check document time-stamps (it prints
 * "Signature Type: unknown"); openssl does.
 */
export async function checkSignedPdf(pdf: Uint8Array, caPem: string): Promise<SignedPdfReport> {
  const [sig, qpdf, signatures] = await Promise.all([pdfsigCheck(pdf), qpdfCheck(pdf), extractSignatures(pdf)]);
  const openssl: boolean[] = [];
  let details = `pdfsig:\n${sig.stdout}${sig.stderr}\nqpdf:\n${qpdf.stdout}${qpdf.stderr}\n`;
  for (let i = 0; i < signatures.length; i++) {
    const result = signatures[i]?.subFilter === 'ETSI.RFC3161' ? await opensslTsVerify(pdf, i, caPem) : await opensslCmsVerify(pdf, i, caPem);
    openssl.push(result.ok);
    if (!result.ok) details += `openssl #${i}:\n${result.stdout}${result.stderr}\n`;
  }
  return { pdfsig: sig.signatures, openssl, qpdf: qpdf.ok, details };
}
