/**
 * `paraph receipt verify <receipt.pdf> [--trust <root.pem> ...] [--document <signed.pdf> ...] [--json]`:
 * checks an evidential receipt's seal, extracts its attached audit log, verifies the hash chain, looks up the
 * given documents in it by SHA-256 and prints a summary.
 *
 * Exit codes (as `paraph verify`): 0 when the seal is valid, trusted and covers the whole file, the audit log is
 * intact and every --document is recorded in it; 3 when verification found a problem; 2 for bad input (unreadable file, bad trust root, usage); 1 for
 * an internal error.
 */
import { parseArgs } from 'node:util';
import { verifyReceipt, type ReceiptVerdict } from '../receipt/verify-receipt.js';
import { readCliFile, readTrustRoots } from './cli-files.js';
import { UsageError, type CliCommand } from './common.js';

const USAGE = `usage: paraph receipt verify <receipt.pdf> [--trust <root.pem> ...] [--document <file.pdf> ...] [--json]

Checks an evidential receipt: its seal (valid, trusted by a --trust root, covering the whole file), the audit
log attached to it (audit-log.json) and that log's hash chain.

      --trust <file>     PEM or DER certificate the seal must chain to (repeatable)
      --document <file>  a document that must be recorded in the log, signed or as uploaded (repeatable)
      --json             print the verdict as JSON
  -h, --help             show this help

exit codes: 0 receipt verified, 3 verification found a problem, 2 bad input or usage
`;


/** The human summary `paraph receipt verify` prints. */
function formatReceiptVerdict(file: string, verdict: ReceiptVerdict, documentNames: readonly string[] = []): string {
  const lines = [`${file}: receipt ${verdict.ok ? 'VERIFIED' : 'NOT VERIFIED'}`];
  const { attachment, auditLog, seal } = verdict;
  if (attachment !== undefined) lines.push(`  transaction: ${attachment.transactionId}`);
  const s = seal.signature;
  if (s === undefined) {
    lines.push('  seal: none');
  } else {
    const signer = s.signer ? `${s.signer.subject} (serial ${s.signer.serialNumber})` : 'unknown signer';
    lines.push(`  seal: ${seal.ok ? 'VALID' : 'NOT VALID'} — ${signer}`);
    lines.push(`        ${s.coversWholeDocument ? 'covers the whole file' : 'does NOT cover the whole file'}; chain ${s.chainOk ? 'trusted' : `NOT trusted: ${s.chainReason}`}${s.level ? `; PAdES ${s.level}` : ''}`);
  }
  if (attachment !== undefined && auditLog !== undefined) {
    const first = attachment.entries[0] as { at?: unknown } | undefined;
    const last = attachment.entries[attachment.entries.length - 1] as { at?: unknown } | undefined;
    lines.push(`  audit log: ${attachment.entries.length} entries${first && last ? `, ${String(first.at)} … ${String(last.at)}` : ''}`);
    lines.push(auditLog.ok ? `  chain: intact, head ${auditLog.head}` : `  chain: BROKEN at entry ${auditLog.position + 1} (${auditLog.code})`);
  } else {
    lines.push('  audit log: not readable');
  }
  for (const d of verdict.documents) {
    const name = documentNames[d.index] ?? `document ${d.index + 1}`;
    lines.push(`  ${name}: ${d.as === undefined ? 'NOT recorded in the audit log' : `recorded as ${d.as} ${d.fileId ?? ''}`} (SHA-256 ${d.sha256})`);
  }
  for (const problem of verdict.problems) lines.push(`  problem: ${problem}`);
  return `${lines.join('\n')}\n`;
}

/** The verdict for `--json`: the attachment summarized (count and head, not its entries). */
function toJson(verdict: ReceiptVerdict): object {
  const { attachment, seal, ...rest } = verdict;
  return {
    ...rest,
    seal: { ok: seal.ok, signature: seal.signature, problems: seal.report.problems, warnings: seal.report.warnings },
    attachment:
      attachment === undefined
        ? undefined
        : { transactionId: attachment.transactionId, count: attachment.count, head: attachment.head, entries: attachment.entries.length },
  };
}

/** The `receipt` command (sub-command `verify`). */
export const receiptCommand: CliCommand = async (args, io) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      trust: { type: 'string', multiple: true },
      document: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [sub, file, ...extra] = positionals;
  if (sub !== 'verify') throw new UsageError(`unknown or missing sub-command ${sub === undefined ? '' : `"${sub}" `}\n\n${USAGE}`);
  if (file === undefined || extra.length > 0) throw new UsageError(`paraph receipt verify needs exactly one receipt PDF\n\n${USAGE}`);
  const trustRoots = await readTrustRoots(values.trust);
  if (trustRoots.length === 0) io.stderr('warning: no --trust root given: the seal cannot be trusted\n');
  const pdf = await readCliFile(file, 'receipt');
  const documentPaths = values.document ?? [];
  const documents: Uint8Array[] = [];
  for (const path of documentPaths) documents.push(await readCliFile(path, 'document'));
  // The CLI is an entry point, so it may read the clock: a seal without time-stamp is judged now.
  const verdict = await verifyReceipt(pdf, { trustRoots, now: new Date(), documents });
  io.stdout(values.json ? `${JSON.stringify(toJson(verdict), null, 2)}\n` : formatReceiptVerdict(file, verdict, documentPaths));
  if (!verdict.seal.report.readable && verdict.attachment === undefined) {
    // Bad input is told as every command tells it (common.ts): its documented code, on stderr.
    const { code = null, problems } = verdict.seal.report;
    const message = problems.join('; ');
    io.stderr(values.json ? `${JSON.stringify({ error: { code, message } })}\n` : `${code ?? 'PDF_UNREADABLE'}: ${message}\n`);
    return 2;
  }
  return verdict.ok ? 0 : 3;
};
