/**
 * Use case behind every transaction API request (docs/design/api.md#authentication): the account whose user token and
 * app key both match. The store keeps only their SHA-256, so the credentials are hashed here and never stored or
 * logged.
 */
import type { Account } from '../domain/account.js';
import { sha256Hex, type ServiceContext } from './context.js';

/** The account of these credentials, or undefined when no account has both. */
export function findAccountByCredentials(ctx: ServiceContext, userToken: string, appKey: string): Promise<Account | undefined> {
  return ctx.store.findAccountByCredentials(sha256Hex(userToken), sha256Hex(appKey));
}
