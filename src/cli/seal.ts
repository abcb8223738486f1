/**
 * `paraph seal <in.pdf> -o <out.pdf> --p12 <file> [--pass <pw>] [--org <name>] [--tsa <url>]` (issue 3, "CLI"): adds
 * the organizational seal as the last signature (visible in the document's Seal field when it has one) and writes
 * the result atomically.
 */
import { parseArgs } from 'node:util';
import { sealPdf } from '../pades/seal-pdf.js';
import { UsageError, type CliCommand } from './common.js';
import { parseCount, parseHash, parseTime, pkcs12SignerFor, readCliFile, timestamperFor, writeAtomically } from './sign.js';

const USAGE = `usage: paraph seal <in.pdf> -o <out.pdf> --p12 <file> [options]

Adds the organizational seal (a PAdES signature) in a new incremental update: in the document's unsigned Seal
field when it has one, else invisible. Earlier signatures stay valid.

  -o, --output <file>     where to write the sealed PDF (required)
      --p12 <file>        PKCS#12 file with the seal key and its certificate chain (required)
      --pass <password>   its password (default: $PARAPH_P12_PASSWORD, else empty)
      --pss               sign with RSA-PSS instead of PKCS#1 v1.5 (RSA keys)
      --org <name>        organization name shown (default: the certificate's O, else its CN)
      --field <name>      the seal field to fill (default: the first unsigned Seal field)
      --reason <text>  --location <text>
      --hash <alg>        SHA-256 (default), SHA-384 or SHA-512
      --tsa <url>         add an RFC 3161 signature time-stamp from this TSA (PAdES B-T)
      --time <iso>        the signing time written as /M (default: now)
      --contents-size <n> bytes reserved for the CMS (default 16384)
  -h, --help              show this help
`;

/** `paraph seal`. */
export const sealCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      p12: { type: 'string' },
      pass: { type: 'string' },
      pss: { type: 'boolean' },
      org: { type: 'string' },
      field: { type: 'string' },
      reason: { type: 'string' },
      location: { type: 'string' },
      hash: { type: 'string' },
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
  const hash = parseHash(values.hash);
  const signingTime = parseTime(values.time);
  const contentsSize = parseCount('contents-size', values['contents-size']);
  const timestamper = timestamperFor(values.tsa);
  const pdf = await readCliFile(positionals[0] as string, 'input PDF');
  const signer = await pkcs12SignerFor(values.p12, values.pass, values.pss ?? false);
  const result = await sealPdf(pdf, {
    signer,
    signingTime,
    hash,
    organizationName: values.org,
    field: values.field,
    reason: values.reason,
    location: values.location,
    timestamper,
    contentsSize,
  });
  await writeAtomically(values.output, result.bytes);
  io.stdout(`sealed ${positionals[0]} → ${values.output} (field ${result.fieldName}${timestamper ? ', time-stamped' : ''})\n`);
  return 0;
};
