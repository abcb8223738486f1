/**
 * `paraph sign <in.pdf> -o <out.pdf> --p12 <file> [--pass <pw>] [--field <name>] [--tsa <url>] …`:
 * adds one PAdES signature in a new incremental update and writes the result atomically (temporary file in the
 * output's directory, then rename), so a failure never leaves a half-written file. Also holds what `paraph seal`
 * shares with it: key loading, TSA, clock and output handling.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { addDocumentTimestamp } from '../pades/doc-timestamp.js';
import { SigningError } from '../errors.js';
import { loadPkcs12Signer } from '../pades/keys/pkcs12.js';
import { pemToDer } from '../pades/keys/software.js';
import { addValidationData } from '../pades/ltv.js';
import { createHttpRevocationFetcher } from '../pades/revocation.js';
import { signPdf } from '../pades/sign-pdf.js';
import { createHttpTimestamper } from '../pades/timestamp.js';
import type { HashAlgorithm, RevocationFetcher, Signer, Timestamper } from '../pades/types.js';
import { readCliFile, readPdfToUpdate, writeAtomically } from './cli-files.js';
import { UsageError, type CliCommand, type CliIo } from './common.js';

/** Help text of the key options `paraph sign` and `paraph seal` share. */
export const KEY_USAGE = `  The key, one of:
      --p12 <file>        PKCS#12 file with the key and its certificate chain
      --pass <password>   its password (default: $PARAPH_P12_PASSWORD, else empty)
    or
      --pkcs11 <module>   PKCS#11 module, e.g. /usr/lib/softhsm/libsofthsm2.so
      --token <label>     token label (default: the first token)
      --pin <pin>         user PIN (default: $PARAPH_PKCS11_PIN)
      --key-label <label> | --key-id <hex>   the private key on the token
      --cert <pem>        certificate chain (PEM, signer first; default: read from the token)
      --pss               sign with RSA-PSS instead of PKCS#1 v1.5 (RSA keys)
`;
/** Help text of the time-stamp, LTV and time options both commands take. */
export const LTV_USAGE = `      --tsa <url>         add an RFC 3161 signature time-stamp from this TSA (PAdES B-T)
      --lt                then add a /DSS with the chain, OCSP responses and CRLs (PAdES B-LT; fetched over HTTP)
      --lta               then also a document time-stamp from --tsa (PAdES B-LTA; implies --lt)
      --trust <pem>       root certificate(s) completing the chain for --lt (PEM; repeatable)
      --time <iso>        the signing time written as /M, and the time --lt validates at (default: now)
`;

const USAGE = `usage: paraph sign <in.pdf> -o <out.pdf> (--p12 <file> | --pkcs11 <module> …) [options]

Adds a PAdES signature (ETSI.CAdES.detached) in a new incremental update; earlier signatures stay valid.

  -o, --output <file>     where to write the signed PDF (required)
${KEY_USAGE}      --field <name>      fill this unsigned signature field (e.g. sig1.Signer1); default: a new invisible field
      --page <n> --rect <left,top,width,height>
                          create a visible field there (points from the page's top-left as a reader sees it)
      --name <text>       name shown in the appearance (default: the certificate's common name)
      --image <png>       scribble image shown in the appearance
      --reason <text>  --location <text>  --contact <text>
      --hash <alg>        SHA-256 (default), SHA-384 or SHA-512
      --certify <1|2|3>   certify the document (DocMDP) with this permission (first signature only)
${LTV_USAGE}      --contents-size <n> bytes reserved for the CMS (default 16384)
  -h, --help              show this help
`;



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

/** The parseArgs options of the key, LTV and time flags both commands take. */
export const SHARED_OPTIONS = {
  p12: { type: 'string' },
  pass: { type: 'string' },
  pkcs11: { type: 'string' },
  token: { type: 'string' },
  pin: { type: 'string' },
  'key-label': { type: 'string' },
  'key-id': { type: 'string' },
  cert: { type: 'string' },
  pss: { type: 'boolean' },
  hash: { type: 'string' },
  tsa: { type: 'string' },
  lt: { type: 'boolean' },
  lta: { type: 'boolean' },
  trust: { type: 'string', multiple: true },
  time: { type: 'string' },
  'contents-size': { type: 'string' },
} as const;

/** The values of {@link SHARED_OPTIONS} as parseArgs returns them. */
export interface SharedValues {
  p12?: string;
  pass?: string;
  pkcs11?: string;
  token?: string;
  pin?: string;
  'key-label'?: string;
  'key-id'?: string;
  cert?: string;
  pss?: boolean;
  tsa?: string;
  lt?: boolean;
  lta?: boolean;
  trust?: string[];
}

/** Opens the key `--p12` or `--pkcs11` names; `close` releases a token session. */
async function openSigner(values: SharedValues): Promise<{ signer: Signer; close(): Promise<void> }> {
  const scheme = values.pss ? { scheme: 'RSA-PSS' as const } : {};
  if (values.p12 !== undefined && values.pkcs11 !== undefined) throw new UsageError('give either --p12 or --pkcs11, not both');
  if (values.p12 !== undefined) {
    const bytes = await readCliFile(values.p12, 'PKCS#12 file');
    const password = values.pass ?? process.env.PARAPH_P12_PASSWORD;
    try {
      return { signer: await loadPkcs12Signer(bytes, password ?? '', scheme), close: async () => {} };
    } catch (error) {
      // No password given and the empty one does not open it: say what is missing, not that a password is wrong.
      if (password === undefined && error instanceof SigningError && error.code === 'PKCS12_WRONG_PASSWORD') {
        throw new UsageError(`${values.p12} is protected by a password: give --pass <password> (or set $PARAPH_P12_PASSWORD)`);
      }
      throw error;
    }
  }
  if (values.pkcs11 !== undefined) {
    const pin = values.pin ?? process.env.PARAPH_PKCS11_PIN;
    if (pin === undefined) throw new UsageError('--pkcs11 needs --pin <pin> (or $PARAPH_PKCS11_PIN)');
    const chain = values.cert === undefined ? undefined : pemChain(await readCliFile(values.cert, 'certificate file'));
    // Loaded only when asked for: it loads the native pkcs11js module.
    const { openPkcs11Signer } = await import('../pades/keys/pkcs11.js');
    const signer = await openPkcs11Signer({
      modulePath: values.pkcs11,
      pin,
      ...(values.token === undefined ? {} : { tokenLabel: values.token }),
      ...(values['key-label'] === undefined ? {} : { keyLabel: values['key-label'] }),
      ...(values['key-id'] === undefined ? {} : { keyId: values['key-id'] }),
      ...(chain ? { certificateChain: chain } : {}),
      ...scheme,
    });
    return { signer, close: () => signer.close() };
  }
  throw new UsageError('a key is required: --p12 <file> or --pkcs11 <module>');
}

/** Every certificate of a PEM file, in order. */
export function pemChain(pem: Uint8Array): Uint8Array[] {
  const blocks = Buffer.from(pem).toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new UsageError('the certificate file holds no PEM certificate');
  return blocks.map((block) => pemToDer(block));
}

/** Checks the --tsa/--lt/--lta combination before any work is done. */
export function checkLtvFlags(values: SharedValues): void {
  if (values.lta && values.tsa === undefined) throw new UsageError('--lta needs --tsa <url> for the document time-stamp');
}

/**
 * Applies `--lt` (a /DSS for every signature so far) and `--lta` (then a document time-stamp) to signed bytes.
 */
async function extendToLtv(
  bytes: Uint8Array,
  values: SharedValues,
  options: { now: Date; timestamper: Timestamper | undefined; fetcher: RevocationFetcher },
): Promise<{ bytes: Uint8Array; level: string | undefined }> {
  if (!values.lt && !values.lta) return { bytes, level: undefined };
  const trustRoots: Uint8Array[] = [];
  for (const path of values.trust ?? []) trustRoots.push(...pemChain(await readCliFile(path, 'trust root')));
  let out = (await addValidationData(bytes, { fetcher: options.fetcher, now: options.now, trustRoots })).bytes;
  if (!values.lta) return { bytes: out, level: 'B-LT' };
  out = (await addDocumentTimestamp(out, { timestamper: options.timestamper as Timestamper })).bytes;
  return { bytes: out, level: 'B-LTA' };
}

/** What the commands take from outside, so tests can route revocation requests to 127.0.0.1. */
export interface SigningCommandDeps {
  readonly revocationFetcher?: RevocationFetcher;
}

/**
 * The end both `paraph sign` and `paraph seal` share: runs `apply` with the signer the key options open (closing
 * it afterwards), extends the result as `--lt`/`--lta` ask, writes it atomically and reports what was written.
 */
export async function signAndWrite(
  verb: 'signed' | 'sealed',
  input: string,
  values: SharedValues & { output: string },
  context: { signingTime: Date; timestamper: Timestamper | undefined; deps: SigningCommandDeps; io: CliIo },
  apply: (signer: Signer) => Promise<{ bytes: Uint8Array; fieldName: string }>,
): Promise<number> {
  const key = await openSigner(values);
  let result: { bytes: Uint8Array; fieldName: string };
  try {
    result = await apply(key.signer);
  } finally {
    await key.close();
  }
  const extended = await extendToLtv(result.bytes, values, {
    now: context.signingTime,
    timestamper: context.timestamper,
    fetcher: context.deps.revocationFetcher ?? createHttpRevocationFetcher(),
  });
  await writeAtomically(values.output, extended.bytes);
  // The level verifyPdf reports: without a signature time-stamp a signature stays B-B, whatever /DSS follows it.
  const level = !context.timestamper
    ? `B-B${extended.level ? '; validation data added, but B-LT needs a signature time-stamp (--tsa)' : ''}`
    : (extended.level ?? 'B-T');
  context.io.stdout(`${verb} ${input} → ${values.output} (field ${result.fieldName}, PAdES ${level})\n`);
  return 0;
}

/** Parses `--page` and `--rect` into a placement. */
function parsePlacement(page: string | undefined, rect: string | undefined): { pageNumber: number; left: number; top: number; width: number; height: number } | undefined {
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

/** Builds `paraph sign` with its outside dependencies. */
export function createSignCommand(deps: SigningCommandDeps = {}): CliCommand {
  return async (args, io) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...SHARED_OPTIONS,
        output: { type: 'string', short: 'o' },
        field: { type: 'string' },
        page: { type: 'string' },
        rect: { type: 'string' },
        name: { type: 'string' },
        image: { type: 'string' },
        reason: { type: 'string' },
        location: { type: 'string' },
        contact: { type: 'string' },
        certify: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(`expected one input PDF\n\n${USAGE}`);
    if (!values.output) throw new UsageError(`-o <out.pdf> is required\n\n${USAGE}`);
    let docMdp: 1 | 2 | 3 | undefined;
    if (values.certify !== undefined) {
      if (!['1', '2', '3'].includes(values.certify)) throw new UsageError(`--certify ${values.certify} must be 1, 2 or 3`);
      docMdp = Number(values.certify) as 1 | 2 | 3;
    }
    checkLtvFlags(values);
    const hash = parseHash(values.hash);
    const signingTime = parseTime(values.time);
    const placement = parsePlacement(values.page, values.rect);
    const contentsSize = parseCount('contents-size', values['contents-size']);
    const timestamper = timestamperFor(values.tsa);
    const pdf = await readPdfToUpdate(positionals[0] as string, io);
    const image = values.image === undefined ? undefined : await readCliFile(values.image, 'image');
    return signAndWrite('signed', positionals[0] as string, { ...values, output: values.output }, { signingTime, timestamper, deps, io }, (signer) =>
      signPdf(pdf, {
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
      }),
    );
  };
}

/** `paraph sign`. */
export const signCommand: CliCommand = createSignCommand();
