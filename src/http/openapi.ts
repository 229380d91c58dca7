import type { FastifyInstance, RouteOptions } from 'fastify';
import { ERROR_CATALOGUE } from '../contracts/errors.js';

/**
 * OpenAPI 3.1 produced from the same route schemas Fastify validates with (TypeBox JSON Schemas).
 * Multipart bodies are not validated by Fastify (they stream), so their routes describe the form in
 * `config.openapi.multipart`; the form readers validate against the same field list.
 */
export interface RouteDoc {
  summary: string;
  tags?: string[];
  /** multipart/form-data body schema (object schema whose file fields have format: binary). */
  multipart?: Record<string, unknown>;
  /** application/json body schema for routes that take JSON without Fastify validating it (an
   * endpoint that accepts both a multipart and a JSON form, e.g. POST /v1/renders). */
  json?: Record<string, unknown>;
  /** Documented request headers (name → JSON Schema), e.g. Idempotency-Key. */
  headers?: Record<string, Record<string, unknown>>;
  /** Extra response descriptions by status (e.g. 302, 405). */
  responses?: Record<string, string>;
  public?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    openapi?: RouteDoc;
  }
}

interface Collected {
  method: string;
  url: string;
  schema: RouteOptions['schema'];
  doc: RouteDoc | undefined;
}

const errorEnvelope = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'retryable', 'request_id', 'details', 'remediation'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: 'string' },
        retryable: { type: 'boolean' },
        request_id: { type: ['string', 'null'] },
        details: { type: 'object' },
        remediation: {
          type: 'object',
          properties: { action: { type: 'string' }, retry_after_ms: { type: ['integer', 'null'], minimum: 0 } },
        },
      },
    },
  },
};

function toOpenApiPath(url: string): string {
  return url.replace(/:([A-Za-z_]+)/g, '{$1}');
}

export function registerOpenApi(app: FastifyInstance): void {
  const routes: Collected[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      if (!route.url.startsWith('/v1/')) continue;
      routes.push({ method: m.toLowerCase(), url: route.url, schema: route.schema, doc: route.config?.openapi });
    }
  });

  let cached: unknown = null;
  app.get('/v1/openapi.json', { config: { openapi: { summary: 'This document', public: true } } }, async () => {
    cached ??= buildDocument(routes);
    return cached;
  });
}

/** Every response carries the effective request ID (spec section 5). */
const REQUEST_ID_HEADER = { 'X-Request-Id': { description: 'The caller\'s X-Request-Id when valid, else a generated one; equals error.request_id.', schema: { type: 'string', minLength: 1, maxLength: 128 } } };

/** Stable, unique operation IDs for SDK generators: `get_v1_videos_video_id`. */
function operationId(method: string, url: string): string {
  return `${method}_${url.replace(/[:{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
}

export function buildDocument(routes: Collected[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const s = (r.schema ?? {}) as Record<string, any>;
    const parameters: unknown[] = [];
    for (const [where, key] of [['path', 'params'], ['query', 'querystring'], ['header', 'headers']] as const) {
      const obj = s[key];
      if (!obj?.properties) continue;
      for (const [name, schema] of Object.entries<any>(obj.properties)) {
        parameters.push({ name, in: where, required: where === 'path' || (obj.required ?? []).includes(name), schema });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [code, schema] of Object.entries<any>(s.response ?? {})) {
      responses[code] = { description: schema.description ?? 'Success', headers: REQUEST_ID_HEADER, content: { 'application/json': { schema } } };
    }
    for (const [code, description] of Object.entries(r.doc?.responses ?? {})) responses[code] ??= { description, headers: REQUEST_ID_HEADER };
    responses.default = { description: 'Error envelope', headers: REQUEST_ID_HEADER, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const op: Record<string, unknown> = {
      operationId: operationId(r.method, r.url),
      summary: r.doc?.summary ?? `${r.method.toUpperCase()} ${r.url}`,
      tags: r.doc?.tags ?? [r.url.split('/')[2]],
      parameters,
      responses,
    };
    for (const [name, schema] of Object.entries(r.doc?.headers ?? {})) {
      parameters.push({ name, in: 'header', required: false, schema, ...(typeof schema.description === 'string' ? { description: schema.description } : {}) });
    }
    const content: Record<string, unknown> = {};
    if (r.doc?.multipart) content['multipart/form-data'] = { schema: r.doc.multipart };
    const json = s.body ?? r.doc?.json;
    if (json) content['application/json'] = { schema: json };
    // A route that also works without a body (POST /v1/renders: project defaults) has an optional one.
    if (Object.keys(content).length > 0) op.requestBody = { required: !(r.doc?.multipart && r.doc?.json), content };
    if (r.doc?.public) op.security = [];
    (paths[toOpenApiPath(r.url)] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Marionette V1', version: '2.0.0', description: 'Character-animation video service (self-hostable).' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (mk_live_...)' } },
      schemas: { Error: errorEnvelope },
    },
    paths,
  };
}
