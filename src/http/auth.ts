/**
 * Authentication of the transaction API (docs/design/api.md#authentication): `Authorization: APIKey <user token>` and
 * `Application: APPKey <app key>` must both be valid credentials of one enabled account (docs/design/accounts.md);
 * the store keeps only their keyed hashes. Anything else answers 401 `{"Message":"Authorization has been denied for this request."}` before the body is read.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../service/context.js';
import { authenticateAccount } from '../service/keys/credentials.js';
import type { Account } from '../domain/account.js';
import { ServiceError } from '../service/service-error.js';
import { AuthFailureThrottle } from './auth-throttle.js';
import { UNAUTHORIZED_MESSAGE } from './error-map.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account (set by the auth hook on API routes). */
    account: Account | null;
  }
}

/** The value after `<scheme> ` when the header uses `scheme` (case-insensitive), else undefined. */
export function credentialOf(header: string | string[] | undefined, scheme: string): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!match || (match[1] ?? '').toLowerCase() !== scheme.toLowerCase()) return undefined;
  return match[2];
}

/**
 * An onRequest hook that sets `request.account` or answers 401; credentials that match no account count against
 * the client address in `throttle` (429 once it has none left).
 */
export function authenticate(ctx: ServiceContext, throttle: AuthFailureThrottle = new AuthFailureThrottle()) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const userToken = credentialOf(request.headers.authorization, 'APIKey');
    const appKey = credentialOf(request.headers.application, 'APPKey');
    if (userToken === undefined || appKey === undefined) throw new ServiceError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    throttle.check(request.ip);
    const account = await authenticateAccount(ctx, userToken, appKey);
    if (account === undefined) {
      throttle.fail(request.ip);
      throw new ServiceError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    }
    request.account = account;
  };
}

/** The account of an authenticated request (the hook guarantees it on API routes). */
export function accountOf(request: FastifyRequest): Account {
  if (request.account === null) throw new ServiceError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  return request.account;
}
