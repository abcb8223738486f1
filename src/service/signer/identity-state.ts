/**
 * The one-time state of an external identity step (docs/verifications.md#how-the-signer-comes-back): the random part
 * kept in the signer's sign session, the form sent to a provider that returns to the shared callback address (it also
 * names the transaction and signer, never the signer's link token), and the provider's pending values sealed at rest.
 */
import { randomBytes } from 'node:crypto';
import { isSealed, type MasterKey } from '../../store/master-key.js';

/** The shared return address of providers that need one registered address (OpenID Connect's redirect URI). */
export const IDENTITY_CALLBACK_PATH = '/sign/identity/return';

/** paraph's page where the signer picks one of several providers of a Type (`OpenID Providers`). */
export const IDENTITY_CHOOSE_PATH = '/sign/identity/choose';

/** Purpose of the sealed pending values under the master key. */
const PENDING_PURPOSE = 'identity-pending';

/** A fresh random state (128 bits, URL-safe). */
export function newIdentityState(): string {
  return randomBytes(16).toString('base64url');
}

/** The state sent to the provider with the callback address: `<random>.<transaction id>.<signer id>` (ids base64url). */
export function callbackState(state: string, transactionId: string, signerId: string): string {
  return [state, Buffer.from(transactionId).toString('base64url'), Buffer.from(signerId).toString('base64url')].join('.');
}

/** The parts of a callback state, or undefined when it is not one. */
export function parseCallbackState(value: string): { state: string; transactionId: string; signerId: string } | undefined {
  const parts = value.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]{1,400}$/.test(p))) return undefined;
  const [state, tx, signer] = parts as [string, string, string];
  return { state, transactionId: Buffer.from(tx, 'base64url').toString('utf8'), signerId: Buffer.from(signer, 'base64url').toString('utf8') };
}

/** The provider's pending values as kept in the sign session. */
export function sealPending(pending: Readonly<Record<string, string>>, secrets: MasterKey | undefined): string {
  const json = JSON.stringify(pending);
  return secrets === undefined ? json : secrets.seal(json, PENDING_PURPOSE);
}

/** The provider's pending values back from the sign session (empty when none were kept). */
export function openPending(kept: string | undefined, secrets: MasterKey | undefined): Readonly<Record<string, string>> {
  if (kept === undefined) return {};
  const json = isSealed(kept) && secrets !== undefined ? secrets.open(kept, PENDING_PURPOSE) : kept;
  return JSON.parse(json) as Record<string, string>;
}
