/**
 * The evidential receipt as a PDF job (pdf-work.ts): rendered from plain data and sealed in a PDF process, so that the
 * serving process neither builds nor reads its PDF; it only lends the seal key (and the time-stamper) one signature
 * value at a time, as for every other seal.
 */
import type { RenderReceiptOptions } from '../../receipt/receipt.js';
import type { AccountSeal } from '../keys/account-seals.js';
import type { ServiceContext } from '../context.js';
import type { SealStep } from './pdf-work-protocol.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob } from './pdf-work.js';
import { sealParties } from './seal-job.js';

/** Audit entries a receipt page holds, roughly: the receipt's length, and so its time budget, grows with its log. */
const ENTRIES_PER_PAGE = 8;

/** Builds and seals the receipt `receipt` describes in a PDF process under the service's PDF work limits. */
export async function receiptInPool(ctx: ServiceContext, sealKey: AccountSeal, receipt: RenderReceiptOptions, seal: SealStep, signal?: AbortSignal): Promise<Uint8Array> {
  const pageCount = Math.ceil(receipt.auditLog.length / ENTRIES_PER_PAGE) + receipt.transaction.signers.length + receipt.documents.length;
  const { bytes } = await runPdfJob({ kind: 'receipt', receipt, seal }, ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS, {
    pageCount,
    parties: sealParties(ctx, sealKey),
    trace: ctx.trace,
    ...(signal ? { signal } : {}),
  });
  return bytes;
}
