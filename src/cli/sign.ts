/**
 * `paraph sign <in.pdf> -o <out.pdf> --p12 <file> [--pass <pw>] [--field <name>] [--tsa <url>] …` (issue 3, "CLI"):
 * adds one PAdES signature in a new incremental update and writes the result atomically (temporary file in the
 * output's directory, then rename), so a failure never leaves a half-written file. Also holds what `paraph seal`
 * shares with it: key loading, TSA, clock and output handling.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadPkcs12Signer } from '../pades/keys/pkcs12.js';
import { signPdf } from '../pades/sign-pdf.js';
import { createHttpTimestamper } from '../pades/timestamp.js';
import type { HashAlgorithm, Signer, Timestamper } from '../pades/types.js';
import { UsageError, type CliCommand } from './common.js';

const USAGE = `usage: paraph sign <in.pdf> -o <out.pdf> --p12 <file> [options]

Adds a PAdES signature (ETSI.CAdES.detached) in a new incremental update; earlier signatures stay valid.

  -o, --output <file>     where to write the signed PDF (required)
      --p12 <file>        PKCS#12 file with the signing key and its certificate chain (required)
      --pass <password>   its password (default: $PARAPH_P12_PASSWORD, else empty)
      --pss               sign with RSA-PSS instead of PKCS#1 v1.5 (RSA keys)
      --field <name>      fill this unsigned signature field (e.g. sig1.Signer1); default: a new invisible field
      --page <n> --rect <left,top,width,height>
                          create a visible field there (points from the page's top-left as a reader sees it)
      --name <text>       name shown in the appearance (default: the certificate's common name)
      --image <png>       scribble image shown in the appearance
      --reason <text>  --location <text>  --contact <text>
      --hash <alg>        SHA-256 (default), SHA-384 or SHA-512
      --certify <1|2|3>   certify the document (DocMDP) with this permission (first signature only)
      --tsa <url>         add an RFC 3161 signature time-stamp from this TSA (PAdES B-T)
      --time <iso>        the signing time written as /M (default: now)
      --contents-size <n> bytes reserved for the CMS (default 16384)
  -h, --help              show this help
`;

/** Reads a file named on the command line, turning a missing file into a usage error that names it. */
export async function readCliFile(path: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Writes `bytes` to `path` atomically: a temporary file next to it, then a rename. */
export async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new UsageError(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Parses `--hash`. */
export function parseHash(value: string | undefined): HashAlgorithm {
  if (value === undefined) return 'SHA-256';
  const normalized = value.toUpperCase().replace(/^SHA-?/, 'SHA-');
  if (normalized === 'SHA-256' || normalized === 'SHA-384' || normalized === 'SHA-512') return normalized;
  throw new UsageError(`--hash ${value} is not supported: use SHA-256, SHA-384 or SHA-512`);
}

/** Parses `--time` (ISO 8601), or reads the clock: the CLI is an entry point, the library never does. */
export function parseTime(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new UsageError(`--time ${value} is not an ISO 8601 date-time (e.g. 2026-11-21T10:00:00Z)`);
  return time;
}

/** A Timestamper for `--tsa <url>` (random nonces from the OS). */
export function timestamperFor(url: string | undefined): Timestamper | undefined {
  if (url === undefined) return undefined;
  if (!/^https?:\/\//i.test(url)) throw new UsageError(`--tsa ${url} is not an http(s) URL`);
  return createHttpTimestamper({ url, random: (n) => new Uint8Array(randomBytes(n)) });
}

/** Loads `--p12` with `--pass` (or $PARAPH_P12_PASSWORD). */
export async function pkcs12SignerFor(path: string, password: string | undefined, pss: boolean): Promise<Signer> {
  const bytes = await readCliFile(path, 'PKCS#12 file');
  return loadPkcs12Signer(bytes, password ?? process.env.PARAPH_P12_PASSWORD ?? '', pss ? { scheme: 'RSA-PSS' } : {});
}

/** Parses `--page` and `--rect` into a placement. */
export function parsePlacement(page: string | undefined, rect: string | undefined): { pageNumber: number; left: number; top: number; width: number; height: number } | undefined {
  if (page === undefined && rect === undefined) return undefined;
  if (page === undefined || rect === undefined) throw new UsageError('--page and --rect go together');
  const pageNumber = Number(page);
  const parts = rect.split(',').map((p) => Number(p.trim()));
  if (!Number.isInteger(pageNumber) || pageNumber < 1) throw new UsageError(`--page ${page} is not a page number`);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) throw new UsageError(`--rect ${rect} must be left,top,width,height in points`);
  const [left, top, width, height] = parts as [number, number, number, number];
  return { pageNumber, left, top, width, height };
}

/** Parses a positive integer option. */
export function parseCount(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} ${value} must be a positive whole number`);
  return n;
}

/** `paraph sign`. */
export const signCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      p12: { type: 'string' },
      pass: { type: 'string' },
      pss: { type: 'boolean' },
      field: { type: 'string' },
      page: { type: 'string' },
      rect: { type: 'string' },
      name: { type: 'string' },
      image: { type: 'string' },
      reason: { type: 'string' },
      location: { type: 'string' },
      contact: { type: 'string' },
      hash: { type: 'string' },
      certify: { type: 'string' },
      tsa: { type: 'string' },
      time: { type: 'string' },
      'contents-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one input PDF\n\n${USAGE}`);
  if (!values.output) throw new UsageError(`-o <out.pdf> is required\n\n${USAGE}`);
  if (!values.p12) throw new UsageError(`--p12 <file> is required\n\n${USAGE}`);
  let docMdp: 1 | 2 | 3 | undefined;
  if (values.certify !== undefined) {
    if (!['1', '2', '3'].includes(values.certify)) throw new UsageError(`--certify ${values.certify} must be 1, 2 or 3`);
    docMdp = Number(values.certify) as 1 | 2 | 3;
  }
  const hash = parseHash(values.hash);
  const signingTime = parseTime(values.time);
  const placement = parsePlacement(values.page, values.rect);
  const contentsSize = parseCount('contents-size', values['contents-size']);
  const timestamper = timestamperFor(values.tsa);
  const pdf = await readCliFile(positionals[0] as string, 'input PDF');
  const image = values.image === undefined ? undefined : await readCliFile(values.image, 'image');
  const signer = await pkcs12SignerFor(values.p12, values.pass, values.pss ?? false);
  const result = await signPdf(pdf, {
    signer,
    signingTime,
    hash,
    field: values.field,
    placement,
    reason: values.reason,
    location: values.location,
    contactInfo: values.contact,
    appearance: values.name !== undefined || image ? { name: values.name, image } : undefined,
    timestamper,
    docMdp,
    contentsSize,
  });
  await writeAtomically(values.output, result.bytes);
  io.stdout(`signed ${positionals[0]} → ${values.output} (field ${result.fieldName}${timestamper ? ', time-stamped' : ''})\n`);
  return 0;
};
