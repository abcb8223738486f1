/**
 * `paraph verify <in.pdf> [--trust <root.pem> ...] [--json]`: verifies every signature and document time-stamp of a
 * PDF and prints a summary per signature, or the whole report as JSON.
 *
 * Exit codes: 0 when there is at least one signature and every one is valid and trusted; 3 when verification found
 * problems (an invalid or untrusted signature, a disallowed change, no signatures at all); 2 for bad input (not a
 * PDF, unreadable file, bad trust root, usage mistake); 1 for an internal error.
 */
import { parseArgs } from 'node:util';
import { verifyPdf, type SignatureReport, type VerificationReport } from '../pades/verify.js';
import { readCliFile, readTrustRoots } from './cli-files.js';
import { UsageError, type CliCommand } from './common.js';

const USAGE = 'usage: paraph verify <in.pdf> [--trust <root.pem> ...] [--json]';


function describeSignature(s: SignatureReport, index: number, revisions: number): string {
  const lines: string[] = [];
  const title = s.kind === 'document-timestamp' ? 'document time-stamp' : 'signature';
  lines.push(`#${index + 1} ${s.fieldName ?? '(no field)'} — ${title}, ${s.subFilter ?? 'no /SubFilter'} — ${s.valid ? 'VALID' : 'INVALID'}`);
  if (s.signer) lines.push(`   signer: ${s.signer.subject} (serial ${s.signer.serialNumber}, issued by ${s.signer.issuer})`);
  if (s.signingTime) lines.push(`   claimed signing time (/M): ${s.signingTime.toISOString()}`);
  const coverage = s.coveredRevision === undefined ? 'no revision boundary' : `revision ${s.coveredRevision} (of 0…${revisions - 1}; 0 is the original)`;
  lines.push(`   covers ${coverage}${s.coversWholeDocument ? ', the whole file' : ', not the whole file'}`);
  if (s.modifications.laterRevisions > 0) {
    lines.push(
      `   later revisions: ${s.modifications.laterRevisions}, changes ${s.modifications.ok ? 'allowed' : 'NOT allowed'} (${s.modifications.allowed.length} allowed, ${s.modifications.disallowed.length} disallowed)`,
    );
  }
  const checks = [
    `digest ${s.digestOk ? 'ok' : 'BAD'}`,
    `signature ${s.signatureOk ? 'ok' : 'BAD'}${s.signatureAlgorithm ? ` (${s.signatureAlgorithm}, ${s.digestAlgorithm ?? '?'})` : ''}`,
    `chain ${s.chainOk ? 'trusted' : `NOT trusted: ${s.chainReason}`}`,
  ];
  lines.push(`   ${checks.join('; ')}`);
  if (s.level) lines.push(`   level: PAdES ${s.level}`);
  if (s.timestamp) {
    const when = s.timestamp.time ? s.timestamp.time.toISOString() : 'unknown time';
    lines.push(`   time-stamp: ${when} by ${s.timestamp.tsa ?? 'unknown TSA'} — ${s.timestamp.valid && s.timestamp.chainOk ? 'valid' : 'NOT valid'}`);
  }
  for (const p of s.problems) lines.push(`   problem: ${p}`);
  for (const d of s.modifications.disallowed) lines.push(`   disallowed change: ${d}`);
  for (const w of s.warnings) lines.push(`   warning: ${w}`);
  return lines.join('\n');
}

/** Renders a report as the human summary `paraph verify` prints. */
function formatReport(file: string, report: VerificationReport): string {
  const count = report.signatures.length;
  const head = `${file}: ${count} signature${count === 1 ? '' : 's'}, ${report.revisions} revision${report.revisions === 1 ? '' : 's'} — ${report.valid ? 'VALID' : 'NOT VALID'}`;
  const lines = [head, ...report.signatures.map((s, i) => describeSignature(s, i, report.revisions))];
  for (const p of report.problems) lines.push(`problem: ${p}`);
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  return `${lines.join('\n')}\n`;
}

/** The `verify` command. */
export const verifyCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      trust: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${USAGE}\nexit codes: 0 all signatures valid and trusted, 3 verification found problems, 2 bad input\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const file = positionals[0]!;
  const trustRoots = await readTrustRoots(values.trust);
  if (trustRoots.length === 0) io.stderr('warning: no --trust root given: no certificate chain can be trusted\n');
  const pdf = await readCliFile(file, 'PDF');
  // The CLI is an entry point, so it may read the clock: untimestamped signatures are judged now.
  const report = await verifyPdf(pdf, { trustRoots, now: new Date() });
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(file, report));
  if (!report.readable) {
    // Bad input is told as every command tells it (common.ts): its documented code, on stderr.
    const message = report.problems.join('; ');
    io.stderr(values.json ? `${JSON.stringify({ error: { code: report.code ?? null, message } })}\n` : `${report.code ?? 'PDF_UNREADABLE'}: ${message}\n`);
    return 2;
  }
  return report.valid ? 0 : 3;
};
