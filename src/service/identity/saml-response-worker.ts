/**
 * The thread that checks one posted SAMLResponse with node-saml (saml-response-check.ts): XML parse, signature, and
 * node-saml's own checks. It says `ready` once node-saml is loaded, so that the time budget counts the check alone.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SamlCheckJob, SamlCheckReply } from './saml-response-check.js';
import { samlFor } from './saml-instance.js';

const port = parentPort;
if (port === null) throw new Error('saml-response-worker must run as a worker thread');
const job = workerData as SamlCheckJob;
const saml = await samlFor(job.settings, () => new Date(job.nowMs), job.acsUrl, job.requestId);
port.postMessage({ kind: 'ready' } satisfies SamlCheckReply);
let reply: SamlCheckReply;
try {
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: job.samlResponse });
  reply = {
    kind: 'checked',
    profile: profile === null ? null : {
      issuer: profile.issuer,
      nameID: profile.nameID,
      attributes: (profile.attributes ?? {}) as Record<string, unknown>,
      assertionXml: profile.getAssertionXml?.() ?? '',
      assertion: (profile.getAssertion?.() as { Assertion?: unknown } | undefined)?.Assertion,
    },
  };
} catch (error) {
  reply = { kind: 'refused', message: error instanceof Error ? error.message : String(error) };
}
port.postMessage(reply);
