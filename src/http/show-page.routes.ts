/**
 * ShowUrl (`/show/<token>`) and ReceiptUrl (`/receipt/<token>`) (docs/design/signer-api.md#show-and-receipt-urls): HTML
 * pages in the signer's language with the signing page's headers (CSP, no framing, no referrer, no caching), and the
 * PDFs they link to — `?download=1` saves instead of opening. A download that needs a fresh SecureDownload code first
 * goes back to the page (303), which asks for it. Unknown token 404, cleaned transaction 410, as HTML pages.
 */
import { contextOf } from './request-trace.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ParaphError } from '../errors.js';
import { receiptFileName } from '../i18n/catalogue.js';
import type { ServiceContext } from '../service/context.js';
import { deliverShownReceipt, deliverShownDocument, showDocuments, type DeliveryMode } from '../service/signer/show-page.js';
import { renderSignErrorPage } from './sign-page-html.js';
import { securityHeaders } from './sign-page.routes.js';
import { signPageTexts } from './sign-page-texts.js';
import { renderReceiptSecurePage, renderReceiptStatePage, renderShowPage } from './show-page-html.js';

type TokenRequest = FastifyRequest<{ Params: { token: string }; Querystring: { download?: string } }>;

const modeOf = (request: { query: { download?: string } }): DeliveryMode => (request.query.download === '1' ? 'download' : 'open');

function pdfName(name: string): string {
  return `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.pdf`;
}

/** The way from a page at `/show/<token>` or `/receipt/<token>` back to the service's root. */
const TOKEN_PAGE_ROOT = '../';

/** Answers a refusal of the signer's use cases as an HTML page (`root` as for `pageTop`); rethrows everything else. */
function refusalPage(request: FastifyRequest, reply: FastifyReply, error: unknown, root: string): FastifyReply {
  if (!(error instanceof ParaphError) || error.origin !== 'input') throw error;
  const t = signPageTexts(request.headers['accept-language']);
  const html = (status: number, heading: string, text: string) => reply.code(status).type('text/html; charset=utf-8').send(renderSignErrorPage(t, heading, text, root));
  switch (error.code) {
    case 'SIGN_TOKEN_UNKNOWN':
      return html(404, t.errorHeading, t.invalidLinkText);
    case 'TRANSACTION_CLEANED':
      return html(410, t.cleanedHeading, t.cleanedText);
    case 'FILE_NOT_FOUND':
      return html(404, t.errorHeading, error.message);
    default:
      return html(error.code === 'TRANSACTION_ENDED' ? 410 : error.code === 'TRANSACTION_NOT_STARTED' ? 409 : 403, t.errorHeading, error.message);
  }
}

/** Registers `/show/:token`, `/show/:token/file/:fileId` and `/receipt/:token`. */
export function showPageRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/show/:token', async (request: TokenRequest, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      try {
        const view = await showDocuments(contextOf(ctx, request), request.params.token);
        const t = signPageTexts(view.language);
        return reply.type('text/html; charset=utf-8').send(renderShowPage(t, view, request.params.token, TOKEN_PAGE_ROOT));
      } catch (error) {
        return refusalPage(request, reply, error, TOKEN_PAGE_ROOT);
      }
    });

    app.get<{ Params: { token: string; fileId: string }; Querystring: { download?: string } }>('/show/:token/file/:fileId', async (request, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      const { token, fileId } = request.params;
      const mode = modeOf(request);
      try {
        const file = await deliverShownDocument(contextOf(ctx, request), token, fileId, mode);
        return reply
          .type('application/pdf')
          .header('content-disposition', `${mode === 'download' ? 'attachment' : 'inline'}; filename="${pdfName(file.fileName)}"`)
          .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
      } catch (error) {
        if (error instanceof ParaphError && error.code === 'SECURE_DOWNLOAD_REQUIRED') return reply.redirect(`../../${encodeURIComponent(token)}`, 303);
        return refusalPage(request, reply, error, '../../../');
      }
    });

    app.get('/receipt/:token', async (request: TokenRequest, reply) => {
      securityHeaders(reply).header('cache-control', 'no-store');
      const token = request.params.token;
      const mode = modeOf(request);
      try {
        const result = await deliverShownReceipt(contextOf(ctx, request), token, mode);
        if (result.kind !== 'receipt') {
          const t = signPageTexts(result.language);
          return reply.code(404).type('text/html; charset=utf-8').send(renderReceiptStatePage(t, result.kind, token, TOKEN_PAGE_ROOT));
        }
        return reply
          .type('application/pdf')
          .header('content-disposition', `${mode === 'download' ? 'attachment' : 'inline'}; filename="${receiptFileName(result.language, result.transactionId)}"`)
          .send(Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength));
      } catch (error) {
        if (error instanceof ParaphError && error.code === 'SECURE_DOWNLOAD_REQUIRED') {
          const view = await showDocuments(contextOf(ctx, request), token);
          return reply.code(403).type('text/html; charset=utf-8').send(renderReceiptSecurePage(signPageTexts(view.language), view, token, TOKEN_PAGE_ROOT));
        }
        return refusalPage(request, reply, error, TOKEN_PAGE_ROOT);
      }
    });
  };
}
