/**
 * Which identity provider performs a verification Type for a transaction of an account
 * (docs/verifications.md#per-account-providers): the account's own provider of that Type, else the service-wide one.
 */
import type { ServiceContext } from '../context.js';
import type { IdentityProvider } from '../delivery/verification-senders.js';

export function identityProviderFor(ctx: Pick<ServiceContext, 'identityProviders' | 'accountIdentityProviders'>, accountId: string, type: string): IdentityProvider | undefined {
  return ctx.accountIdentityProviders?.get(accountId)?.get(type) ?? ctx.identityProviders?.get(type);
}
