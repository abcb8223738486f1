/**
 * Authentication of the admin API (docs/design/accounts.md#admin-api): `Authorization: Bearer <admin token>`, the
 * service's own admin credential (PARAPH_ADMIN_TOKEN), never an account's key. Compared in constant time (digests of
 * both); wrong tokens are throttled per client address like wrong account keys. Without a configured token every
 * admin request answers 401.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../service/service-error.js';
import { AuthFailureThrottle } from './auth-throttle.js';
import { credentialOf } from './auth.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** An onRequest hook that lets only requests bearing `adminToken` through. */
export function authenticateAdmin(adminToken: string | undefined, throttle: AuthFailureThrottle = new AuthFailureThrottle()) {
  const expected = adminToken === undefined ? undefined : digest(adminToken);
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const given = credentialOf(request.headers.authorization, 'Bearer');
    if (given === undefined || expected === undefined) {
      throw new ServiceError('ADMIN_UNAUTHORIZED', 'The admin API needs `Authorization: Bearer <admin token>` (PARAPH_ADMIN_TOKEN).');
    }
    throttle.check(request.ip);
    if (!timingSafeEqual(digest(given), expected)) {
      throttle.fail(request.ip);
      throw new ServiceError('ADMIN_UNAUTHORIZED', 'Wrong admin token.');
    }
  };
}
