/**
 * GET /api/account/seal-chain.pem (docs/design/accounts.md#seals): the certificate chain of the seal the calling
 * account's documents and receipts are sealed with, for the account to hand to relying parties.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../service/context.js';
import { accountSeal } from '../service/pdf-jobs/seal-job.js';
import { accountOf } from './auth.js';
import { errorResponse as error, type RouteDoc } from './openapi.js';

/** The PEM answer of a seal chain. */
export const SEAL_CHAIN_PEM = { description: 'The seal certificate first, then its issuers up to the one to trust (PEM)', content: { 'application/x-pem-file': { type: 'string' } } } as const;

/** Registers the route under `/api/account`. */
export function accountRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/seal-chain.pem',
      {
        config: {
          openapi: {
            summary: "The certificate chain of the account's seal",
            tags: ['account'],
            responses: { 200: SEAL_CHAIN_PEM, 401: error('No valid application key and user token') },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => reply.type('application/x-pem-file').send((await accountSeal(ctx, accountOf(request).Id)).chainPem),
    );
  };
}
