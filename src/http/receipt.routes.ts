/**
 * GET /api/file/receipt/{transactionId} (docs/design/receipt.md#availability): the sealed evidential receipt.
 */
import { contextOf } from './request-trace.js';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../service/context.js';
import { downloadReceipt } from '../service/download-receipt.js';
import { accountOf } from './auth.js';
import { TransactionParamsSchema } from './transaction.schema.js';
import { errorResponse as error, goneResponse, PDF_CONTENT, type RouteDoc } from './openapi.js';

/** Registers the route under `/api/file/receipt`. */
export function receiptRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.withTypeProvider<TypeBoxTypeProvider>().get(
      '/:transactionId',
      {
        schema: { params: TransactionParamsSchema },
        config: {
          openapi: {
            summary: 'Download the evidential receipt',
            tags: ['receipt'],
            responses: {
              200: { description: 'The sealed receipt', content: PDF_CONTENT },
              400: error('Invalid id'),
              404: error('receipt not found.'),
              410: goneResponse('The receipt is no longer available (cleaned; after a DELETE once its grace period passed)'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        const pdf = await downloadReceipt(contextOf(ctx, request), accountOf(request), request.params.transactionId);
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename="receipt-${request.params.transactionId.replace(/[^A-Za-z0-9_-]/g, '_')}.pdf"`)
          .send(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
      },
    );
  };
}
