/**
 * Vitest setup (every test file): every response a paraph service running in the test's process sends is checked
 * against the service's own OpenAPI document. A test-only `onSend` hook is added to each fastify
 * instance as it is created (fastify's `fastify.initialization` diagnostics channel); a mismatch fails the test that
 * received the response, loudly, with the operation, the schema errors and the body. Services started as child
 * processes are checked by the suite's `call` helper (served-contract.ts) and fail the test the same way.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, afterEach } from 'vitest';
import { contractChecker, reportContractMismatch, takeContractMismatches, type OpenApiDocument } from './response-contract.js';

subscribe('fastify.initialization', (message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  fastify.addHook('onSend', async (request, reply, payload) => {
    try {
      const problem = check(request, reply, payload);
      if (problem !== undefined) reportContractMismatch(problem);
    } catch (error) {
      reportContractMismatch(`contract check failed for ${request.method} ${request.url}: ${String(error)}`);
    }
    return payload;
  });
});

function check(request: FastifyRequest, reply: FastifyReply, payload: unknown): string | undefined {
  const swagger = (request.server as { swagger?: () => unknown }).swagger;
  const url = request.routeOptions.url;
  if (typeof swagger !== 'function' || url === undefined || request.method === 'HEAD') return undefined;
  const checker = contractChecker(swagger.call(request.server) as OpenApiDocument);
  const trimmed = url.length > 1 ? url.replace(/\/$/, '') : url;
  const path = trimmed.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  if (!checker.documents(request.method, path)) return undefined;
  const contentType = reply.getHeader('content-type');
  return checker.problem({
    method: request.method,
    path,
    status: reply.statusCode,
    contentType: typeof contentType === 'string' ? contentType : undefined,
    body: typeof payload === 'string' ? payload : undefined,
  });
}

function failOnMismatches(): void {
  const found = takeContractMismatches();
  if (found.length === 0) return;
  throw new Error(`${found.length} response(s) do not conform to the OpenAPI document:\n${found.join('\n')}`);
}

afterEach(failOnMismatches);
afterAll(failOnMismatches);
