import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE } from '../../src/contracts/errors.js';
import { startService, type TestService } from '../helpers/harness.js';

/** GET /v1/openapi.json describes the interface Fastify actually serves (spec section 9: 2.0.0). */

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Every (method, path) Fastify has, read from its own route tree. `printRoutes` prints one node per
 * line, indented four columns per level, each child's text continuing its parent's path.
 */
function fastifyRoutes(app: FastifyInstance): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack[depth] = path;
    for (const method of (m[3] ?? '').split(', ').filter((x) => HTTP_METHODS.includes(x))) out.push({ method, path });
  }
  return out;
}

const toOpenApi = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('OpenAPI document', () => {
  let svc: TestService;
  let doc: any;
  before(async () => {
    svc = await startService({ db: 'sqlite' });
    const res = await svc.request('/v1/openapi.json', { key: null });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = await res.json();
  });
  after(async () => svc?.close());

  test('is OpenAPI 3.1 at interface version 2.0.0 with bearer security', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc.info.version, '2.0.0');
    assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
    assert.deepEqual(doc.security, [{ bearer: [] }]);
    assert.deepEqual(doc.components.schemas.Error.properties.error.properties.code.enum.sort(), Object.keys(ERROR_CATALOGUE).sort());
  });

  test('every /v1 and /api route Fastify serves is documented, and nothing else', () => {
    const served = fastifyRoutes(svc.app).filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/api/'));
    // The parser must see the routes this suite knows exist, or the comparison below proves nothing.
    for (const [method, path] of [
      ['GET', '/v1/credits'],
      ['POST', '/v1/renders'],
      ['GET', '/v1/videos/:video_id'],
      ['GET', '/v1/renders/:render_id/download'],
      ['DELETE', '/api/render/:job_id'],
      ['GET', '/api/characters'],
    ]) {
      assert.ok(
        served.some((r) => r.method === method && r.path === path),
        `route tree lacks ${method} ${path}`,
      );
    }
    for (const r of served) {
      assert.ok(doc.paths[toOpenApi(r.path)]?.[r.method.toLowerCase()], `${r.method} ${r.path} is not in the OpenAPI document`);
    }
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(ops)) {
        assert.ok(
          served.some((r) => toOpenApi(r.path) === path && r.method.toLowerCase() === method),
          `${method} ${path} is documented but not served`,
        );
      }
    }
  });

  test('operations declare their path parameters, a unique operationId, a summary and the error envelope', () => {
    const operationIds = new Set<string>();
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<any>(ops)) {
        const declared = op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name);
        assert.deepEqual(declared.sort(), [...params].sort(), `${method} ${path} path parameters`);
        assert.ok(op.summary, `${method} ${path} summary`);
        assert.ok(op.operationId && !operationIds.has(op.operationId), `${method} ${path} operationId ${op.operationId}`);
        operationIds.add(op.operationId);
        assert.ok(op.responses.default.headers['X-Request-Id'], `${method} ${path} documents X-Request-Id`);
        const legacy = path.startsWith('/api/');
        assert.equal(
          op.responses.default.content['application/json'].schema.$ref,
          legacy ? '#/components/schemas/LegacyError' : '#/components/schemas/Error',
          `${method} ${path}`,
        );
        assert.equal(op.deprecated === true, legacy, `${method} ${path}: the Legacy section and only it is deprecated`);
      }
    }
  });

  test('POST /v1/renders documents the direct form, the draft form and the Render object', () => {
    const op = doc.paths['/v1/renders'].post;
    const form = op.requestBody.content['multipart/form-data'].schema;
    for (const f of ['character_id', 'image', 'image_url', 'motion_id', 'motion_video', 'motion_video_url', 'background_mode', 'bg_color'])
      assert.ok(form.properties[f], f);
    assert.equal(form.properties.image.format, 'binary');
    assert.deepEqual(form.properties.background_mode.enum, ['original', 'solid', 'transparent']);
    assert.deepEqual(op.requestBody.content['application/json'].schema.required, ['draft_id']);
    assert.equal(op.requestBody.required, false);
    assert.ok(op.parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key'));
    for (const status of ['200', '202']) {
      const schema = op.responses[status].content['application/json'].schema;
      for (const f of ['id', 'status', 'progress', 'stage', 'video_url', 'alpha_url', 'created_at', 'completed_at', 'error', 'links'])
        assert.ok(schema.properties[f], `${status} ${f}`);
    }
    assert.ok(doc.paths['/v1/renders'].get.responses['405']);
    assert.ok(doc.paths['/v1/renders/{render_id}/download'].get.responses['302']);
    const list = doc.paths['/v1/videos'].get;
    assert.deepEqual(
      list.parameters
        .filter((p: any) => p.in === 'query')
        .map((p: any) => p.name)
        .sort(),
      ['cursor', 'limit', 'status'],
    );
    assert.deepEqual(Object.keys(list.responses['200'].content['application/json'].schema.properties).sort(), [
      'has_more',
      'items',
      'next_cursor',
    ]);
    assert.deepEqual(doc.paths['/v1/openapi.json'].get.security, []);
  });
});
