/**
 * Hand-written PDFs for the verification tests, independent of paraph's own writer and signer: literal objects
 * with a classic xref table per revision, and CMS signatures made by `openssl cms -sign` over the byte ranges.
 */
import { execFileSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One indirect object: its number and what goes between `obj` and `endobj`. */
export interface ObjectSpec {
  readonly num: number;
  readonly body: string;
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

/** Finds the last `startxref` value of `pdf`. */
export function lastStartxref(pdf: Uint8Array): number {
  const text = Buffer.from(pdf).toString('latin1');
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text);
  if (!m) throw new Error('no startxref');
  return Number(m[1]);
}

/**
 * Writes the original document (`prefix` undefined) or an incremental update after `prefix`: the objects, an xref
 * table with one subsection per object, and a trailer with /Prev.
 */
export function writeSection(prefix: Uint8Array | undefined, objects: readonly ObjectSpec[], root: number, size: number, extraXref = '', extraTrailer = ''): Uint8Array {
  const parts: Buffer[] = [];
  let offset = prefix?.length ?? 0;
  const push = (b: Buffer): void => {
    parts.push(b);
    offset += b.length;
  };
  if (!prefix) push(Buffer.concat([latin1('%PDF-1.7\n%'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]), latin1('\n')]));
  const offsets = new Map<number, number>();
  for (const o of objects) {
    offsets.set(o.num, offset);
    push(latin1(`${o.num} 0 obj\n${o.body}\nendobj\n`));
  }
  const xrefAt = offset;
  let xref = 'xref\n';
  if (!prefix) xref += '0 1\n0000000000 65535 f \n';
  for (const [num, at] of [...offsets].sort((a, b) => a[0] - b[0])) xref += `${num} 1\n${String(at).padStart(10, '0')} 00000 n \n`;
  xref += extraXref;
  const prev = prefix ? ` /Prev ${lastStartxref(prefix)}` : '';
  push(latin1(`${xref}trailer\n<< /Size ${size} /Root ${root} 0 R${prev}${extraTrailer} >>\nstartxref\n${xrefAt}\n%%EOF\n`));
  return prefix ? Buffer.concat([Buffer.from(prefix), ...parts]) : Buffer.concat(parts);
}

/**
 * Writes an incremental update whose cross-reference section is an xref stream compressed with FlateDecode and
 * `/DecodeParms << /Predictor 12 /Columns 6 >>` (PNG "Up" rows, as Acrobat writes them). The xref stream takes object
 * number `size` (the trailer's /Size becomes `size + 1`). `pointAt` makes entries point at given offsets instead
 * of objects written here (a hide-and-replace update).
 */
export function writeXrefStreamSection(prefix: Uint8Array, objects: readonly ObjectSpec[], root: number, size: number, extraTrailer = '', pointAt: ReadonlyMap<number, number> = new Map()): Buffer {
  const parts: Buffer[] = [Buffer.from(prefix)];
  let offset = prefix.length;
  const entries = new Map<number, number>(pointAt);
  for (const o of objects) {
    entries.set(o.num, offset);
    const bytes = latin1(`${o.num} 0 obj\n${o.body}\nendobj\n`);
    parts.push(bytes);
    offset += bytes.length;
  }
  entries.set(size, offset);
  const numbers = [...entries.keys()].sort((a, b) => a - b);
  const rows: Buffer[] = [];
  let previous = Buffer.alloc(6);
  for (const n of numbers) {
    const row = Buffer.alloc(6);
    row.writeUInt8(1, 0);
    row.writeUInt32BE(entries.get(n)!, 1);
    const encoded = Buffer.alloc(7);
    encoded[0] = 2; // PNG Up
    for (let i = 0; i < 6; i++) encoded[i + 1] = (row[i]! - previous[i]!) & 0xff;
    rows.push(encoded);
    previous = row;
  }
  const data = deflateSync(Buffer.concat(rows));
  const index = numbers.map((n) => `${n} 1`).join(' ');
  const head = latin1(
    `${size} 0 obj\n<< /Type /XRef /Size ${size + 1} /W [1 4 1] /Index [${index}] /Root ${root} 0 R /Prev ${lastStartxref(prefix)}${extraTrailer} /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 6 >> /Length ${data.length} >>\nstream\n`,
  );
  parts.push(head, data, latin1(`\nendstream\nendobj\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object body with a correct /Length. */
export function stream(content: string, dict = ''): string {
  return `<< /Length ${Buffer.byteLength(content, 'latin1')}${dict ? ` ${dict}` : ''} >>\nstream\n${content}\nendstream`;
}

const PLACEHOLDER_RANGE = '[0 0000000000 0000000000 0000000000]';
const PLACEHOLDER_BYTES = 8192;

/** A signature dictionary body with a placeholder /ByteRange and /Contents. */
export function signatureDict(options: { subFilter?: string; type?: string; m?: string } = {}): string {
  const type = options.type ?? 'Sig';
  const subFilter = options.subFilter ?? 'ETSI.CAdES.detached';
  const m = options.m ?? "D:20261121100000+00'00'";
  return `<< /Type /${type} /Filter /Adobe.PPKLite /SubFilter /${subFilter} /M (${m}) /ByteRange ${PLACEHOLDER_RANGE} /Contents <${'0'.repeat(PLACEHOLDER_BYTES * 2)}> >>`;
}

/** The one-page document of the tests: a signature field `Sig1` whose /V is object 7 (a placeholder). */
export function originalObjects(options: { signed?: boolean; subFilter?: string } = {}): ObjectSpec[] {
  const signed = options.signed ?? true;
  const sigOpts = options.subFilter ? { subFilter: options.subFilter } : {};
  return [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /SigFlags 3 >> >>' },
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [5 0 R] >>' },
    { num: 4, body: stream('BT /F1 12 Tf 20 150 Td (I agree to pay 100 EUR.) Tj ET') },
    { num: 5, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /F 132${signed ? ' /V 7 0 R' : ''} >>` },
    { num: 6, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    ...(signed ? [{ num: 7, body: signatureDict(sigOpts) }] : []),
  ];
}

/** Identity paths for openssl. */
export interface OpensslIdentity {
  readonly certPath: string;
  readonly keyPath: string;
  /** Extra certificates to embed (the intermediate). */
  readonly chainPaths: readonly string[];
  readonly pss?: boolean;
  readonly md?: 'sha1' | 'sha256' | 'sha384' | 'sha512';
  /** No signed attributes at all (`openssl cms -noattr`), as legacy adbe.pkcs7.detached signers do. */
  readonly noattr?: boolean;
  /** Leave out the ESS signing-certificate attribute (no `-cades`). */
  readonly noCades?: boolean;
}

/** Where the last placeholder sits: the /ByteRange text and the `<…>` of /Contents. */
function findLastPlaceholder(pdf: Uint8Array): { rangeAt: number; contentsStart: number; contentsEnd: number } {
  const buf = Buffer.from(pdf);
  const rangeAt = buf.lastIndexOf(latin1(PLACEHOLDER_RANGE));
  if (rangeAt < 0) throw new Error('no placeholder');
  const contentsStart = buf.indexOf(latin1('/Contents <'), rangeAt) + '/Contents '.length;
  const contentsEnd = buf.indexOf(latin1('>'), contentsStart) + 1;
  return { rangeAt, contentsStart, contentsEnd };
}

function runOpenssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Patches the last placeholder's /ByteRange and returns the byte range and the patched copy. */
function patchByteRange(pdf: Uint8Array): { pdf: Buffer; range: [number, number, number, number]; contentsStart: number } {
  const out = Buffer.from(pdf);
  const { rangeAt, contentsStart, contentsEnd } = findLastPlaceholder(out);
  const range: [number, number, number, number] = [0, contentsStart, contentsEnd, out.length - contentsEnd];
  const text = `[0 ${range.slice(1).map((n) => String(n).padStart(10, '0')).join(' ')}]`;
  out.write(text, rangeAt, 'latin1');
  return { pdf: out, range, contentsStart };
}

/** Writes `der` as hex into the /Contents placeholder at `contentsStart`. */
export function embedContents(pdf: Buffer, contentsStart: number, der: Uint8Array): Buffer {
  const hex = Buffer.from(der).toString('hex');
  if (hex.length > PLACEHOLDER_BYTES * 2) throw new Error('placeholder too small');
  pdf.write(hex, contentsStart + 1, 'latin1');
  return pdf;
}

/** The signed bytes of `range` (a concatenated copy; fine in tests). */
function rangeBytes(pdf: Uint8Array, range: readonly number[]): Buffer {
  const [a = 0, b = 0, c = 0, d = 0] = range;
  return Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
}

/** Signs the last placeholder of `pdf` with `openssl cms -sign -cades` (detached, no S/MIME capabilities). */
export function signLastPlaceholder(pdf: Uint8Array, id: OpensslIdentity): Buffer {
  const { pdf: patched, range, contentsStart } = patchByteRange(pdf);
  const dir = mkdtempSync(join(tmpdir(), 'paraph-verify-'));
  try {
    writeFileSync(join(dir, 'data.bin'), rangeBytes(patched, range));
    const args = ['cms', '-sign', '-binary', '-in', 'data.bin', '-signer', id.certPath, '-inkey', id.keyPath, '-outform', 'DER', '-out', 'sig.der', '-md', id.md ?? 'sha256'];
    args.push(...(id.noattr ? ['-noattr'] : id.noCades ? ['-nosmimecap'] : ['-nosmimecap', '-cades']));
    for (const extra of id.chainPaths) args.push('-certfile', extra);
    if (id.pss) args.push('-keyopt', 'rsa_padding_mode:pss');
    runOpenssl(args, dir);
    return embedContents(patched, contentsStart, readFileSync(join(dir, 'sig.der')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Fills the last placeholder with an RFC 3161 token from `openssl ts -reply` over the byte ranges (a document
 * time-stamp). `tsaConfig` is an openssl.cnf with a `[tsa]` section, written by {@link writeTsaConfig}.
 */
export function timestampLastPlaceholder(pdf: Uint8Array, tsaConfig: string): Buffer {
  const { pdf: patched, range, contentsStart } = patchByteRange(pdf);
  const dir = mkdtempSync(join(tmpdir(), 'paraph-verify-ts-'));
  try {
    writeFileSync(join(dir, 'data.bin'), rangeBytes(patched, range));
    runOpenssl(['ts', '-query', '-data', 'data.bin', '-sha256', '-cert', '-no_nonce', '-out', 'q.tsq'], dir);
    runOpenssl(['ts', '-reply', '-config', tsaConfig, '-queryfile', 'q.tsq', '-token_out', '-out', 'token.der'], dir);
    return embedContents(patched, contentsStart, readFileSync(join(dir, 'token.der')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes an openssl TSA configuration using the given TSA certificate and key into `dir`; returns its path. */
export function writeTsaConfig(dir: string, tsa: { certPath: string; keyPath: string; chainPath: string }): string {
  const config = `[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = ${dir}
serial = ${join(dir, 'tsaserial')}
crypto_device = builtin
signer_cert = ${tsa.certPath}
certs = ${tsa.chainPath}
signer_key = ${tsa.keyPath}
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  const path = join(dir, 'tsa.cnf');
  writeFileSync(path, config);
  return path;
}

/**
 * Adds a second signature field `name` (object numbers `field`, `sig`) in an incremental update: a new widget on the
 * page, the page's /Annots and the AcroForm /Fields grown, and a placeholder signature dictionary.
 */
export function addSignatureFieldUpdate(pdf: Uint8Array, fields: readonly number[], name: string, field: number, sig: number, options: { type?: string; subFilter?: string } = {}): Uint8Array {
  const all = [...fields, field].map((n) => `${n} 0 R`).join(' ');
  return writeSection(
    pdf,
    [
      { num: 1, body: `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${all}] /SigFlags 3 >> >>` },
      { num: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> /Annots [${all}] >>` },
      { num: field, body: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (${name}) /Rect [0 0 0 0] /P 3 0 R /F 132 /V ${sig} 0 R >>` },
      { num: sig, body: signatureDict(options) },
    ],
    1,
    Math.max(sig, field) + 1,
  );
}
