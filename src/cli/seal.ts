/**
 * `paraph seal <in.pdf> -o <out.pdf> (--p12 <file> | --pkcs11 <module> …) [--org <name>] [--tsa <url>] [--lt] [--lta]`:
 * adds the organizational seal as the last signature (visible in the document's Seal field when it has one) and writes
 * the result atomically.
 */
import { parseArgs } from 'node:util';
import { sealPdf } from '../pades/seal-pdf.js';
import { UsageError, type CliCommand } from './common.js';
import {
  KEY_USAGE,
  LTV_USAGE,
  SHARED_OPTIONS,
  checkLtvFlags,
  parseCount,
  parseHash,
  parseTime,
  signAndWrite,
  timestamperFor,
  type SigningCommandDeps,
} from './sign.js';
import { readPdfToUpdate } from './cli-files.js';

const USAGE = `usage: paraph seal <in.pdf> -o <out.pdf> (--p12 <file> | --pkcs11 <module> …) [options]

Adds the organizational seal (a PAdES signature) in a new incremental update: in the document's unsigned Seal
field when it has one, else invisible. Earlier signatures stay valid.

  -o, --output <file>     where to write the sealed PDF (required)
${KEY_USAGE}      --org <name>        organization name shown (default: the certificate's O, else its CN)
      --field <name>      the seal field to fill (default: the first unsigned Seal field)
      --reason <text>  --location <text>
      --hash <alg>        SHA-256 (default), SHA-384 or SHA-512
${LTV_USAGE}      --contents-size <n> bytes reserved for the CMS (default 16384)
  -h, --help              show this help
`;

/** Builds `paraph seal` with its outside dependencies. */
export function createSealCommand(deps: SigningCommandDeps = {}): CliCommand {
  return async (args, io) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...SHARED_OPTIONS,
        output: { type: 'string', short: 'o' },
        org: { type: 'string' },
        field: { type: 'string' },
        reason: { type: 'string' },
        location: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(`expected one input PDF\n\n${USAGE}`);
    if (!values.output) throw new UsageError(`-o <out.pdf> is required\n\n${USAGE}`);
    checkLtvFlags(values);
    const hash = parseHash(values.hash);
    const signingTime = parseTime(values.time);
    const contentsSize = parseCount('contents-size', values['contents-size']);
    const timestamper = timestamperFor(values.tsa);
    const pdf = await readPdfToUpdate(positionals[0] as string, io);
    return signAndWrite('sealed', positionals[0] as string, { ...values, output: values.output }, { signingTime, timestamper, deps, io }, (signer) =>
      sealPdf(pdf, {
        signer,
        signingTime,
        hash,
        organizationName: values.org,
        field: values.field,
        reason: values.reason,
        location: values.location,
        timestamper,
        contentsSize,
      }),
    );
  };
}

/** `paraph seal`. */
export const sealCommand: CliCommand = createSealCommand();
