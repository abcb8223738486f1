/**
 * `paraph extend <in.pdf> -o <out.pdf> [--trust <root.pem>] [--tsa <url> --lta]` (B-LT/B-LTA): brings the
 * signatures already in a PDF to PAdES B-LT (a /DSS with certificates and OCSP/CRL data for every signature and
 * time-stamp) and, with `--lta`, B-LTA (then a document time-stamp). Run it again later on a B-LTA file to renew the
 * archive time-stamp before its TSA certificate expires. Writes the result atomically.
 */
import { parseArgs } from 'node:util';
import { addDocumentTimestamp } from '../pades/doc-timestamp.js';
import { addValidationData } from '../pades/ltv.js';
import { verifyPdf } from '../pades/verify.js';
import { createHttpRevocationFetcher } from '../pades/revocation.js';
import type { RevocationFetcher } from '../pades/types.js';
import { UsageError, type CliCommand } from './common.js';
import { readCliFile, writeAtomically } from './cli-files.js';
import { parseHash, parseTime, pemChain, timestamperFor } from './sign.js';

const USAGE = `usage: paraph extend <in.pdf> -o <out.pdf> [options]

Adds validation data (/DSS: certificates, OCSP responses or CRLs) for every signature and time-stamp of a signed
PDF in a new incremental update (PAdES B-LT); with --lta also a document time-stamp (B-LTA). Run it again on a B-LTA
file to renew the archive time-stamp.

  -o, --output <file>     where to write the extended PDF (required)
      --trust <pem>       root certificate(s) completing the chains (repeatable; also stored in the /DSS)
      --certs <pem>       further certificates that may complete chains (repeatable)
      --lta               add a document time-stamp after the /DSS (needs --tsa)
      --tsa <url>         the RFC 3161 time-stamp authority for --lta
      --hash <alg>        digest for the document time-stamp: SHA-256 (default), SHA-384 or SHA-512
      --time <iso>        the time the revocation data must be current at (default: now)
      --allow-incomplete  write the /DSS even when some certificate has no revocation data
  -h, --help              show this help
`;

/** What the command takes from outside, so tests can route revocation requests to 127.0.0.1. */
export interface ExtendCommandDeps {
  readonly revocationFetcher?: RevocationFetcher;
}

/** Builds `paraph extend` with its outside dependencies. */
export function createExtendCommand(deps: ExtendCommandDeps = {}): CliCommand {
  return async (args, io) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        output: { type: 'string', short: 'o' },
        trust: { type: 'string', multiple: true },
        certs: { type: 'string', multiple: true },
        lta: { type: 'boolean' },
        tsa: { type: 'string' },
        hash: { type: 'string' },
        time: { type: 'string' },
        'allow-incomplete': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(`expected one input PDF\n\n${USAGE}`);
    if (!values.output) throw new UsageError(`-o <out.pdf> is required\n\n${USAGE}`);
    if (values.lta && values.tsa === undefined) throw new UsageError('--lta needs --tsa <url> for the document time-stamp');
    if (!values.lta && values.tsa !== undefined) throw new UsageError('--tsa is only used with --lta');
    const hash = parseHash(values.hash);
    const now = parseTime(values.time);
    const timestamper = timestamperFor(values.tsa);
    const certificates = async (paths: string[] | undefined, what: string): Promise<Uint8Array[]> => {
      const out: Uint8Array[] = [];
      for (const path of paths ?? []) out.push(...pemChain(await readCliFile(path, what)));
      return out;
    };
    const trustRoots = await certificates(values.trust, 'trust root');
    const extraCertificates = await certificates(values.certs, 'certificate file');
    const pdf = await readCliFile(positionals[0] as string, 'input PDF');
    const lt = await addValidationData(pdf, {
      fetcher: deps.revocationFetcher ?? createHttpRevocationFetcher(),
      now,
      trustRoots,
      extraCertificates,
      allowIncomplete: values['allow-incomplete'] ?? false,
    });
    for (const warning of lt.warnings) io.stderr(`warning: ${warning}\n`);
    let bytes = lt.bytes;
    if (timestamper) bytes = (await addDocumentTimestamp(bytes, { timestamper, hash })).bytes;
    await writeAtomically(values.output, bytes);
    const revoked = lt.certificates.filter((c) => c.status === 'revoked').map((c) => c.subject);
    if (revoked.length > 0) io.stderr(`warning: revoked: ${revoked.join('; ')}\n`);
    const level = await levelsAfterExtension(bytes, trustRoots, now);
    io.stdout(`extended ${positionals[0]} → ${values.output} (${lt.vriKeys.length} signature(s), ${lt.certificates.length} certificate(s), PAdES ${level})\n`);
    return 0;
  };
}

/**
 * The PAdES level verifyPdf reports for each signature of the extended `pdf` (at `now`, with `trustRoots`): one level
 * when all signatures reached the same, else each signature's level and field. A level short of B-LT says what is
 * missing: a signature time-stamp (B-B), or revocation data for its chains (B-T, as `--allow-incomplete` can leave).
 */
async function levelsAfterExtension(pdf: Uint8Array, trustRoots: readonly Uint8Array[], now: Date): Promise<string> {
  const report = await verifyPdf(pdf, { trustRoots, now });
  const signatures = report.signatures.filter((s) => s.kind === 'signature').map((s) => ({ field: s.fieldName, level: s.level ?? 'B-B' }));
  const distinct = new Set(signatures.map((s) => s.level));
  const summary = distinct.size <= 1 ? [...distinct].join('') : signatures.map((s) => `${s.level} (${s.field})`).join(', ');
  const all = distinct.size === 1;
  const reasons: string[] = [];
  if (distinct.has('B-B')) reasons.push(`B-LT needs a signature time-stamp, which ${all ? 'no signature has' : 'some signatures lack'}`);
  if (distinct.has('B-T')) reasons.push(`B-LT needs revocation data for every certificate of the chains, which the /DSS lacks for ${all ? 'the signatures' : 'some signatures'}`);
  return reasons.length > 0 ? `${summary}; ${reasons.join('; ')}` : summary;
}

/** `paraph extend`. */
export const extendCommand: CliCommand = createExtendCommand();
