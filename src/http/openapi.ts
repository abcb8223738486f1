/**
 * The OpenAPI 3.1 document of the service (issue 5), generated from the very schemas fastify validates with: every
 * route registered with an `openapi` entry in its `config` is collected by an `onRoute` hook; its `schema.body` and
 * `schema.params` become the request, its documented responses come from the `openapi` entry. JSON Schema 2020-12
 * is OpenAPI 3.1's schema dialect, so TypeBox schemas go in as they are (ajv's `discriminator` is OpenAPI's too).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';

/** What a route says about itself for the document. */
export interface RouteDoc {
  readonly summary: string;
  readonly tags?: readonly string[];
  /** Request media types other than JSON (the file upload takes `application/pdf` too). */
  readonly requestBody?: Readonly<Record<string, TSchema | Record<string, unknown>>>;
  /** Status → description and optional media type → schema. */
  readonly responses: Readonly<Record<string, { description: string; content?: Readonly<Record<string, TSchema | Record<string, unknown>>> }>>;
  /** False for unauthenticated routes (CA certificates, health). */
  readonly auth?: boolean;
}

interface CollectedRoute {
  readonly method: string;
  readonly url: string;
  readonly doc: RouteDoc;
  readonly params?: TSchema;
  readonly body?: TSchema;
}

/** Collects documented routes of `app` (call before the routes are registered). */
export function collectOpenApiRoutes(app: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const doc = (route.config as { openapi?: RouteDoc } | undefined)?.openapi;
    if (!doc) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = route.schema as { params?: TSchema; body?: TSchema } | undefined;
    for (const method of methods) {
      if (method === 'HEAD') continue;
      // The trailing-slash twin (ignoreTrailingSlash) is one path in the document.
      const url = route.url.length > 1 ? route.url.replace(/\/$/, '') : route.url;
      if (routes.some((r) => r.method === method && r.url === url)) continue;
      routes.push({ method, url, doc, ...(schema?.params ? { params: schema.params } : {}), ...(schema?.body ? { body: schema.body } : {}) });
    }
  });
  return routes;
}

/** Builds the OpenAPI 3.1 document from the collected routes. */
export function buildOpenApiDocument(routes: readonly CollectedRoute[], info: { version: string; serverUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation: Record<string, unknown> = {
      summary: route.doc.summary,
      operationId: `${route.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      tags: route.doc.tags ?? [],
      responses: Object.fromEntries(
        Object.entries(route.doc.responses).map(([status, r]) => [
          status,
          {
            description: r.description,
            ...(r.content ? { content: Object.fromEntries(Object.entries(r.content).map(([type, schema]) => [type, { schema: clean(schema) }])) } : {}),
          },
        ]),
      ),
    };
    if (route.doc.auth !== false) operation.security = [{ APIKey: [], APPKey: [] }];
    const params = route.params as { properties?: Record<string, TSchema> } | undefined;
    if (params?.properties) {
      operation.parameters = Object.entries(params.properties).map(([name, schema]) => ({ name, in: 'path', required: true, schema: clean(schema) }));
    }
    const content: Record<string, unknown> = {};
    if (route.body) content['application/json'] = { schema: clean(route.body) };
    for (const [type, schema] of Object.entries(route.doc.requestBody ?? {})) content[type] = { schema: clean(schema) };
    if (Object.keys(content).length > 0) operation.requestBody = { required: route.method !== 'DELETE', content };
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'paraph transaction API',
      version: info.version,
      description: 'Signing transactions on PDFs, Signhost-compatible (see service-spec.md and decisions.md).',
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        APIKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`APIKey <user token>`' },
        APPKey: { type: 'apiKey', in: 'header', name: 'Application', description: '`APPKey <app key>`' },
      },
    },
    paths,
  };
}

/** A plain JSON copy of a schema (TypeBox marks its schemas with symbol keys, which JSON drops anyway). */
function clean(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}
