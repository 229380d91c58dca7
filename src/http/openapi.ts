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
  /** The Legacy interface (/api): marked deprecated, Legacy error shape. */
  deprecated?: boolean;
  /** A credential is optional (the Legacy status URL). */
  optionalAuth?: boolean;
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

/** Legacy errors (spec 9.3): 401 carries a string, every other error an object. */
const legacyError = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      oneOf: [
        { type: 'string', description: '401: why the credential was refused.' },
        {
          type: 'object',
          required: ['error_code', 'message'],
          properties: {
            error_code: {
              type: 'string',
              description:
                'CS-UORC01-003 not found, CS-UORC01-008 insufficient credits, CS-ORIV-002 not ready or parameter missing, CS-ORIV-001 other invalid request; RATE_LIMITED, SERVICE_BUSY, INTERNAL_ERROR as V1.',
            },
            message: { type: 'string' },
            v1_code: { type: 'string', description: 'The V1 error code of the same failure.' },
            field: { type: 'string' },
          },
        },
      ],
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
      if (!route.url.startsWith('/v1/') && !route.url.startsWith('/api/')) continue;
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
const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    description: "The caller's X-Request-Id when valid, else a generated one; equals error.request_id.",
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
};

/** Stable, unique operation IDs for SDK generators: `get_v1_videos_video_id`. */
function operationId(method: string, url: string): string {
  return `${method}_${url
    .replace(/[:{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')}`;
}

export function buildDocument(routes: Collected[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const s = (r.schema ?? {}) as Record<string, any>;
    const parameters: unknown[] = [];
    for (const [where, key] of [
      ['path', 'params'],
      ['query', 'querystring'],
      ['header', 'headers'],
    ] as const) {
      const obj = s[key];
      if (!obj?.properties) continue;
      for (const [name, schema] of Object.entries<any>(obj.properties)) {
        parameters.push({ name, in: where, required: where === 'path' || (obj.required ?? []).includes(name), schema });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [code, schema] of Object.entries<any>(s.response ?? {})) {
      responses[code] = {
        description: schema.description ?? 'Success',
        headers: REQUEST_ID_HEADER,
        content: { 'application/json': { schema } },
      };
    }
    for (const [code, description] of Object.entries(r.doc?.responses ?? {}))
      responses[code] ??= { description, headers: REQUEST_ID_HEADER };
    const legacy = r.url.startsWith('/api/');
    const errorRef = legacy ? '#/components/schemas/LegacyError' : '#/components/schemas/Error';
    responses.default = {
      description: legacy ? 'Legacy error' : 'Error envelope',
      headers: REQUEST_ID_HEADER,
      content: { 'application/json': { schema: { $ref: errorRef } } },
    };
    const op: Record<string, unknown> = {
      operationId: operationId(r.method, r.url),
      summary: r.doc?.summary ?? `${r.method.toUpperCase()} ${r.url}`,
      tags: r.doc?.tags ?? [r.url.split('/')[2]],
      parameters,
      responses,
    };
    for (const [name, schema] of Object.entries(r.doc?.headers ?? {})) {
      parameters.push({
        name,
        in: 'header',
        required: false,
        schema,
        ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      });
    }
    const content: Record<string, unknown> = {};
    if (r.doc?.multipart) content['multipart/form-data'] = { schema: r.doc.multipart };
    const json = s.body ?? r.doc?.json;
    if (json) content['application/json'] = { schema: json };
    // A route that also works without a body (POST /v1/renders: project defaults) has an optional one.
    if (Object.keys(content).length > 0) op.requestBody = { required: !(r.doc?.multipart && r.doc?.json), content };
    if (r.doc?.public) op.security = [];
    if (r.doc?.optionalAuth) op.security = [{}, { bearer: [] }];
    if (legacy || r.doc?.deprecated) op.deprecated = true;
    (paths[toOpenApiPath(r.url)] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Marionette V1', version: '2.0.0', description: 'Character-animation video service (self-hostable).' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (mk_live_...)' } },
      schemas: { Error: errorEnvelope, LegacyError: legacyError },
    },
    tags: [
      {
        name: 'legacy',
        description:
          'DEPRECATED Legacy interface under /api, kept for integrations that have not moved to V1: same API keys and data, Legacy names. Every answer carries `Deprecation: true` and `Link: <V1 equivalent>; rel="successor-version"`. See docs/legacy.md.',
      },
    ],
    paths,
  };
}
