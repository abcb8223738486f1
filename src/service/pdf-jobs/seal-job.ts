/**
 * The seal as a PDF job (pdf-work.ts): the document is parsed, sealed and checked in a PDF process; the serving
 * process only lends the seal key (and the time-stamper) one signature value at a time.
 */
import type { Signer } from '../../pades/types.js';
import type { Language } from '../../i18n/languages.js';
import { catalogueFor } from '../../i18n/catalogue.js';
import { environmentSeal, type AccountSeal } from '../keys/account-seals.js';
import type { ServiceContext } from '../context.js';
import type { RemoteSignerInfo, SealedDocument, SealStep } from './pdf-work-protocol.js';
import { DEFAULT_PDF_WORK_LIMITS, runPdfJob, type PdfJobParties } from './pdf-work.js';

/** The public half of `signer` a PDF job builds its CMS around. */
export function remoteSignerInfo(party: RemoteSignerInfo['party'], signer: Signer): RemoteSignerInfo {
  return { party, certificateChain: signer.certificateChain, scheme: signer.scheme };
}

/** The seal of the account `accountId` (account-seals.ts); the environment's without per-account seals. */
export function accountSeal(ctx: ServiceContext, accountId: string): Promise<AccountSeal> {
  return ctx.accountSeals?.forAccount(accountId) ?? Promise.resolve(environmentSeal(ctx.keys, ctx.settings.organizationName ?? 'paraph'));
}

/**
 * The seal's step at `now`; its appearance speaks the transaction's language ("Verzegeld …" on a Dutch transaction).
 * `check`: the sealed output is checked as readers would (check-sealed-output.ts) in the same job.
 */
export function sealStep(ctx: ServiceContext, seal: AccountSeal, now: Date, language: Language | undefined, check: boolean): SealStep {
  return {
    signer: remoteSignerInfo('seal', seal.signer),
    signingTime: now,
    sealedLabel: catalogueFor(language).evidence.sealed,
    timestamp: ctx.timestamper !== undefined,
    ...(check ? { checkWithCaPem: seal.trustPem } : {}),
  };
}

/** The seal key and the time-stamper, lent to a job that seals. */
export function sealParties(ctx: ServiceContext, seal: AccountSeal): PdfJobParties {
  return { seal: seal.signer, ...(ctx.timestamper ? { timestamper: ctx.timestamper } : {}) };
}

/** Seals `bytes` in a PDF process under the service's PDF work limits. */
export function sealInPool(ctx: ServiceContext, seal: AccountSeal, bytes: Uint8Array, step: SealStep, pageCount = 0, signal?: AbortSignal): Promise<SealedDocument> {
  return runPdfJob({ kind: 'seal', bytes, seal: step }, ctx.settings.pdfWork ?? DEFAULT_PDF_WORK_LIMITS, {
    pageCount,
    parties: sealParties(ctx, seal),
    trace: ctx.trace,
    ...(signal ? { signal } : {}),
  });
}
