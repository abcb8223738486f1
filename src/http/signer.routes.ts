/**
 * The signer JSON API behind SignUrl (docs/design/signer-api.md), authorized by the token in the path only:
 * GET session, GET file, POST verification, POST sign, POST reject. JSON bodies only (other content types get 415,
 * which with the token in the path makes the API CSRF-safe); responses are never cached. The routes are in the
 * OpenAPI document under the `signer` tag with `security: []`: the token in the path is the credential.
 */
import { contextOf } from './request-trace.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { hasForbiddenCharacters, hasForbiddenMultiLineCharacters, INVALID_CHARACTERS } from '../domain/text-rules.js';
import { ValidationError } from '../errors.js';
import type { ServiceContext } from '../service/context.js';
import type { VerificationSenders } from '../service/delivery/verification-senders.js';
import { downloadSignerFile } from '../service/signer/download-signer-file.js';
import { openSignerSession } from '../service/signer/open-session.js';
import { performVerification } from '../service/signer/perform-verification.js';
import { rejectAsSigner } from '../service/signer/reject-as-signer.js';
import { signAsSigner } from '../service/signer/sign-as-signer.js';
import type { SignerRequestInfo } from '../service/signer/signer-access.js';
import {
  RejectBodySchema,
  SignBodySchema,
  SignerFileParamsSchema,
  SignerParamsSchema,
  VerificationBodySchema,
} from './signer.schema.js';
import { errorResponse as error, PDF_CONTENT, type ResponseDoc, type RouteDoc } from './openapi.js';
import { ref } from './response.schema.js';

const SIGNER_ERRORS: Readonly<Record<number, ResponseDoc>> = {
  400: error('Invalid request'),
  403: error('Authentication or a secure download code required first'),
  404: error('Unknown or expired token'),
  409: error('Not this signer’s turn yet, already signed, or signing in progress'),
  410: error('The transaction ended or was cleaned, or the signer rejected'),
  429: error('Too many codes requested'),
};
const POST_ERRORS: Readonly<Record<number, ResponseDoc>> = { 413: error('Body too large'), 415: error('Not JSON') };
const signerDoc = (summary: string, responses: Readonly<Record<number, ResponseDoc>>, post = false): { openapi: RouteDoc } => ({
  openapi: { summary, tags: ['signer'], auth: 'token', responses: { ...SIGNER_ERRORS, ...(post ? POST_ERRORS : {}), ...responses } },
});
const json = (description: string, schema: Record<string, unknown>): ResponseDoc => ({ description, content: { 'application/json': schema } });

/** What the signer routes need besides the use cases' context. */
export interface SignerRouteDeps {
  readonly senders: VerificationSenders;
}

/** IP address and user agent of a request, for the audit trail. */
function requestInfo(request: FastifyRequest): SignerRequestInfo {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: (typeof agent === 'string' ? agent : '').slice(0, 512) };
}

/** Registers the signer API under `/api/signer`. */
export function signerRoutes(ctx: ServiceContext, deps: SignerRouteDeps): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    // JSON bodies only: fastify also parses text/plain, which a cross-site form or simple request may send.
    app.addHook('preValidation', async (request, reply) => {
      if (request.method !== 'POST') return;
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json') {
        await reply.code(415).send({ Message: 'Send the request body as JSON (Content-Type: application/json).' });
      }
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    });
    app.get('/:token', { schema: { params: SignerParamsSchema }, config: signerDoc('The signer’s session', { 200: json('The session', ref('SignerSession')) }) }, async (request) =>
      openSignerSession(contextOf(ctx, request), request.params.token, requestInfo(request)),
    );
    app.get(
      '/:token/file/:fileId',
      { schema: { params: SignerFileParamsSchema }, config: signerDoc('A document as the signer sees it', { 200: { description: 'The PDF', content: PDF_CONTENT } }) },
      async (request, reply) => {
        const file = await downloadSignerFile(contextOf(ctx, request), request.params.token, request.params.fileId, requestInfo(request));
        return reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename="${file.fileName.replace(/[^A-Za-z0-9_.-]/g, '_')}.pdf"`)
          .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
      },
    );
    app.post(
      '/:token/verification',
      {
        schema: { params: SignerParamsSchema, body: VerificationBodySchema },
        config: signerDoc('Perform (or request the code of) a verification step', { 200: json('The outcome', ref('VerificationOutcome')), 503: error('The identity provider of the step did not answer') }, true),
      },
      async (request) => {
        if (request.body.Name !== undefined && hasForbiddenCharacters(request.body.Name)) throw new ValidationError([`Name: ${INVALID_CHARACTERS}`], 'INVALID_REQUEST');
        return performVerification(contextOf(ctx, request), deps.senders, request.params.token, request.body);
      },
    );
    app.post(
      '/:token/sign',
      { schema: { params: SignerParamsSchema, body: SignBodySchema }, config: signerDoc('Sign, with the field values', { 200: json('Signed', ref('SignOutcome')), 503: error('The signature was not applied (the service is stopping, or signing ran past its hold): sign again') }, true) },
      async (request) => signAsSigner(contextOf(ctx, request), request.params.token, request.body, requestInfo(request)),
    );
    app.post(
      '/:token/reject',
      { schema: { params: SignerParamsSchema, body: RejectBodySchema }, config: signerDoc('Reject', { 202: json('Rejected', ref('RejectOutcome')) }, true) },
      async (request, reply) => {
        if (hasForbiddenMultiLineCharacters(request.body.Reason)) throw new ValidationError([`Reason: ${INVALID_CHARACTERS}`], 'INVALID_REQUEST');
        return reply.code(202).send(await rejectAsSigner(contextOf(ctx, request), request.params.token, request.body.Reason, requestInfo(request)));
      },
    );
  };
}

/**
 * A URL with the signer's token replaced, for logs: the token is a credential, and SignUrl, ShowUrl and ReceiptUrl
 * (and the signer API) all carry the same one. Also under a plugin prefix (`/paraph/sign/…`).
 */
export function redactSignToken(url: string): string {
  return url.replace(/^((?:\/[^/?#]+)*?\/(?:api\/signer|sign|show|receipt)\/)[^/?#]+/, '$1[token]');
}
