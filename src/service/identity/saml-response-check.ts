/**
 * A posted SAMLResponse is checked by node-saml on its own worker thread (saml-response-worker.ts), never on the
 * serving thread: the assertion consumer service takes XML from anyone, and parsing it, evaluating node-saml's XPath
 * queries over it and verifying its signature can cost seconds for a crafted document (the XPath look-ups over the
 * children of one element grow faster than their number: 9,000 empty children, 180 KB, cost node-saml 3.3 s). The
 * thread has a time budget and a heap cap; past either the response is refused and the thread is ended. A thread per
 * response, not a pool: logins are rare, each check starts clean, and ending a thread is how a budget is enforced.
 * At most {@link MAX_IN_FLIGHT} checks run at once.
 */
import { startWorkerThread } from '../../worker-entry.js';
import { ServiceError } from '../service-error.js';
import type { SamlProviderSettings } from './saml-identity-provider.js';

/** What the thread needs: all plain data. */
export interface SamlCheckJob {
  readonly settings: SamlProviderSettings;
  /** The service's clock when the response arrived (validity times are judged on it). */
  readonly nowMs: number;
  readonly acsUrl: string;
  /** The only InResponseTo accepted. */
  readonly requestId: string;
  /** The SAMLResponse as posted (base64). */
  readonly samlResponse: string;
}

/** The parts of node-saml's profile paraph reads, as plain data. */
export interface CheckedSamlProfile {
  readonly issuer: string | undefined;
  readonly nameID: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly assertionXml: string;
  /** The verified assertion as xml2js parsed it. */
  readonly assertion: unknown;
}

export type SamlCheckReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'checked'; readonly profile: CheckedSamlProfile | null }
  | { readonly kind: 'refused'; readonly message: string };

/** Default time budget of one check, once node-saml is loaded (a real response takes milliseconds). */
const DEFAULT_CHECK_BUDGET_MS = 3000;
/** Loading node-saml in a fresh thread on a busy machine. */
const STARTUP_LIMIT_MS = 30_000;
const MAX_IN_FLIGHT = 4;
const HEAP_LIMIT_MB = 128;

let inFlight = 0;

/**
 * node-saml's verdict on `job`: the verified profile, or null when the response holds no assertion.
 *
 * @throws Error the refusal (node-saml's reason, the budget, the heap cap) — the caller ends the step with it.
 * @throws ServiceError `IDENTITY_PROVIDER_UNAVAILABLE` when {@link MAX_IN_FLIGHT} checks already run.
 */
export async function checkSamlResponse(job: SamlCheckJob, budgetMs = DEFAULT_CHECK_BUDGET_MS): Promise<CheckedSamlProfile | null> {
  if (inFlight >= MAX_IN_FLIGHT) {
    throw new ServiceError('IDENTITY_PROVIDER_UNAVAILABLE', 'Too many identity answers are being checked right now: try again in a moment.');
  }
  inFlight += 1;
  try {
    return await runCheck(job, budgetMs);
  } finally {
    inFlight -= 1;
  }
}

function runCheck(job: SamlCheckJob, budgetMs: number): Promise<CheckedSamlProfile | null> {
  return new Promise((resolve, reject) => {
    const worker = startWorkerThread(import.meta.url, './saml-response-worker.js', { workerData: job, resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB } });
    let settled = false;
    const settle = (error: Error | undefined, profile?: CheckedSamlProfile | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (error === undefined) resolve(profile ?? null);
      else reject(error);
    };
    let timer = setTimeout(() => settle(new Error('the SAML response checker did not start')), STARTUP_LIMIT_MS);
    worker.on('message', (reply: SamlCheckReply) => {
      if (reply.kind === 'ready') {
        clearTimeout(timer);
        timer = setTimeout(() => settle(new Error(`checking the SAML response took longer than ${budgetMs / 1000} s, so it is not accepted`)), budgetMs);
      } else if (reply.kind === 'checked') settle(undefined, reply.profile);
      else settle(new Error(`the SAML response was refused: ${reply.message}`));
    });
    worker.on('error', (error: Error & { code?: unknown }) => {
      settle(new Error(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'the SAML response needs too much memory to check, so it is not accepted' : `the SAML response could not be checked (${error.message})`));
    });
    worker.on('exit', (code) => settle(new Error(`the SAML response checker stopped (exit code ${code})`)));
  });
}

