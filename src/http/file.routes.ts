/**
 * The file resource (docs/design/files.md): PUT a PDF (raw body streamed to the blob store, never
 * buffered by fastify) or FileMetaData JSON (raw bytes, so the Digest covers exactly what was sent), GET the
 * current PDF. fileIds arrive percent-encoded and the router decodes them once.
 */
import { contextOf } from './request-trace.js';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../service/context.js';
import { downloadFile } from '../service/download-file.js';
import { uploadFile } from '../service/upload-file.js';
import { accountOf } from './auth.js';
import { grantBodyBudget } from './connection-limits.js';
import { parseDigestHeader } from './digest-header.js';
import { JSON_CONTENT_TYPE } from './response-version.js';
import { FileParamsSchema } from './transaction.schema.js';
import { errorResponse as error, goneResponse, PDF_CONTENT, type RouteDoc } from './openapi.js';
import { ref } from './response.schema.js';
/** Largest FileMetaData body; the metadata parser has its own, smaller, limits. */
const METADATA_BODY_LIMIT = 4 * 1024 * 1024;

/** Registers the routes under `/api/transaction`. */
export function fileRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    // A PDF body is handed over as the raw request stream; the use case streams it into the blob store.
    app.addContentTypeParser('application/pdf', (_request, payload, done) => done(null, payload));
    // This scope's own parser replaces the app's (which only checks the nesting limit).
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: METADATA_BODY_LIMIT }, (_request, body, done) => done(null, body));
    // Any other type reaches the use case, which names the problem (docs/design/files.md#upload-kinds).
    app.addContentTypeParser('*', (_request, payload, done) => {
      payload.resume();
      done(null, undefined);
    });
    // Only here, with the caller authenticated, does a body get more than the JSON budget: the time to upload what it
    // declares (a PDF, FileMetaData) at the slowest accepted rate.
    app.addHook('preParsing', async (request, _reply, payload) => {
      const length = request.headers['content-length'];
      const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
      const json = (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
      grantBodyBudget(request.raw, json ? Math.min(declared ?? METADATA_BODY_LIMIT, METADATA_BODY_LIMIT) : declared);
      return payload;
    });
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.put(
      '/:transactionId/file/:fileId',
      {
        schema: { params: FileParamsSchema },
        config: {
          openapi: {
            summary: 'Upload a PDF or its FileMetaData',
            tags: ['file'],
            requestBody: { ...PDF_CONTENT, 'application/json': ref('FileMetaData') },
            headers: {
              Digest: {
                type: 'string',
                description: 'Optional RFC 3230 digest of the body, e.g. `SHA-256=<base64>`; a mismatch is refused with 400',
              },
            },
            responses: {
              201: error('PDF added: `Stored file <fileId> to transaction <id>`'),
              202: error('Metadata accepted, awaiting the PDF: `Meta data for file <fileId> accepted, waiting for actual file`'),
              204: { description: 'Replaced (or metadata for a PDF already uploaded)' },
              400: error('Invalid file, metadata, digest, Content-Type (neither application/pdf nor application/json) or fileId; or the transaction was started'),
              409: error('The same fileId was uploaded again within too short an interval, or changed concurrently'),
              410: goneResponse('Cleaned'),
              413: error('Too large'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        const contentType = request.headers['content-type'];
        const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
        const length = request.headers['content-length'];
        const status = await uploadFile(contextOf(ctx, request), {
          account: accountOf(request),
          transactionId: request.params.transactionId,
          fileId: request.params.fileId,
          mediaType,
          digests: parseDigestHeader(request.headers.digest),
          body: request.body as AsyncIterable<Uint8Array> | Uint8Array | undefined,
          ...(length !== undefined && /^\d+$/.test(length) ? { declaredLength: Number(length) } : {}),
        });
        if (status === 204) return reply.code(204).send();
        return reply.code(status).type(JSON_CONTENT_TYPE).send({ Message: uploadMessage(status, request.params.fileId, request.params.transactionId) });
      },
    );

    api.get(
      '/:transactionId/file/:fileId',
      {
        schema: { params: FileParamsSchema },
        config: {
          openapi: {
            summary: 'Download a PDF (as uploaded, prepared, or signed and sealed)',
            tags: ['file'],
            responses: {
              200: { description: 'The PDF', content: PDF_CONTENT },
              400: error('Invalid id'),
              404: error('Either the file or transaction does not exist or the file has not yet been processed.'),
              410: goneResponse('The document is no longer available (cleaned; after a DELETE once its grace period passed)'),
            },
          } satisfies RouteDoc,
        },
      },
      async (request, reply) => {
        const file = await downloadFile(contextOf(ctx, request), accountOf(request), request.params.transactionId, request.params.fileId);
        return reply
          .type('application/pdf')
          .header('content-disposition', contentDisposition(file.fileName))
          .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
      },
    );
  };
}

/** Signhost's bodies of 201 and 202 (docs/design/files.md#upload-kinds). */
function uploadMessage(status: 201 | 202, fileId: string, transactionId: string): string {
  return status === 201 ? `Stored file ${fileId} to transaction ${transactionId}` : `Meta data for file ${fileId} accepted, waiting for actual file`;
}

/** `attachment` with an ASCII fallback and the RFC 6266 `filename*` for the real name. */
function contentDisposition(name: string): string {
  const fileName = /\.pdf$/i.test(name) ? name : `${name}.pdf`;
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
