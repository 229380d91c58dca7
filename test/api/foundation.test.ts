import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { createKey, revokeKey } from '../../src/domain/accounts/accounts.service.js';
import { dbTargets, startService, type TestService } from '../helpers/harness.js';

/**
 * Authentication and the cross-cutting HTTP rules (spec sections 5 and 7, DECISIONS "Errors"): every
 * failure is the JSON envelope, with `error.request_id` equal to the X-Request-Id header.
 */

async function envelope(res: Response, status: number, code: string): Promise<any> {
  const body = (await res.json()) as any;
  assert.equal(res.status, status, JSON.stringify(body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(body.error.code, code);
  const rid = res.headers.get('x-request-id');
  assert.ok(rid && rid.length >= 1 && rid.length <= 128, `X-Request-Id ${rid}`);
  assert.equal(body.error.request_id, rid);
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'details', 'message', 'remediation', 'request_id', 'retryable']);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.retryable, 'boolean');
  assert.equal(typeof body.error.details, 'object');
  return body.error;
}

/** A raw request, for bodies and headers fetch will not send (broken multipart). */
function raw(url: string, opts: { method: string; headers: Record<string, string>; body: string }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method, headers: opts.headers }, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
      resolve(new Response(Readable.toWeb(res) as ReadableStream, { status: res.statusCode, headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

for (const t of await dbTargets()) {
  describe(`foundation (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, env: { MARIONETTE_MAX_JSON_BYTES: '2048', MARIONETTE_MAX_IMAGE_BYTES: '4096' } });
    });
    after(async () => svc?.close());

    test('no credential: 401 UNAUTHENTICATED with WWW-Authenticate', async () => {
      for (const path of ['/v1/credits', '/v1/videos', '/v1/renders']) {
        const res = await svc.request(path, { key: null });
        const e = await envelope(res, 401, 'UNAUTHENTICATED');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
        assert.deepEqual([e.retryable, e.remediation.action], [false, 'provide_credential']);
      }
    });

    test('malformed, unknown and revoked credentials: 401 INVALID_CREDENTIAL, not retryable, replace_credential', async () => {
      for (const authorization of ['Bearer nope', 'Basic dXNlcjpwdw==', 'Bearer ', 'mk_live_abc', `Bearer mk_live_${'A'.repeat(32)}`]) {
        const res = await svc.request('/v1/credits', { key: null, headers: { authorization } });
        const e = await envelope(res, 401, 'INVALID_CREDENTIAL');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
        assert.deepEqual([e.retryable, e.remediation.action], [false, 'replace_credential']);
      }
      const { apiKey, keyId } = await createKey(svc.wired.deps.db, svc.accountId);
      assert.equal((await svc.request('/v1/credits', { key: apiKey })).status, 200);
      await revokeKey(svc.wired.deps.db, keyId);
      const res = await svc.request('/v1/credits', { key: apiKey });
      await envelope(res, 401, 'INVALID_CREDENTIAL');
      assert.ok(res.headers.get('www-authenticate'));
      assert.equal((await svc.request('/v1/credits')).status, 200, 'other keys of the account keep working');
    });

    test('signed file URLs: valid serves, expired or tampered is 403 FORBIDDEN', async () => {
      const key = 'renders/foundation/output/video.mp4';
      await svc.wired.deps.storage.putStream(key, Readable.from([Buffer.from('0123456789')]));
      const good = await svc.wired.deps.storage.signedGetUrl(key, 60);
      assert.equal(await (await fetch(good)).text(), '0123456789');
      const expired = await svc.wired.deps.storage.signedGetUrl(key, -5);
      const e = await envelope(await fetch(expired), 403, 'FORBIDDEN');
      assert.equal(e.remediation.action, 'check_permissions');
      assert.equal(e.details.reason, 'expired');
      await envelope(await fetch(good.replace(/sig=[^&]+/, 'sig=AAAA')), 403, 'FORBIDDEN');
      await envelope(await fetch(good.replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 3600}`)), 403, 'FORBIDDEN');
    });

    test('X-Request-Id: adopted when valid, generated when absent, refused outside 1-128 characters', async () => {
      for (const id of ['a', 'x'.repeat(128), 'trace-01HZ/with.punctuation:ok']) {
        const res = await svc.request('/v1/credits', { headers: { 'x-request-id': id } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-request-id'), id);
      }
      const gen1 = (await svc.request('/v1/credits')).headers.get('x-request-id');
      const gen2 = (await svc.request('/v1/credits')).headers.get('x-request-id');
      assert.ok(gen1 && gen2 && gen1 !== gen2 && gen1.length <= 128);
      for (const bad of ['x'.repeat(129), '', '   ']) {
        const res = await svc.request('/v1/credits', { headers: { 'x-request-id': bad } });
        const e = await envelope(res, 400, 'INVALID_REQUEST');
        assert.notEqual(res.headers.get('x-request-id'), bad);
        assert.equal(e.details.header, 'x-request-id');
      }
      // Also before authentication and on unknown routes.
      const anon = await svc.request('/v1/credits', { key: null, headers: { 'x-request-id': 'anon-1' } });
      assert.equal((await envelope(anon, 401, 'UNAUTHENTICATED')).request_id, 'anon-1');
    });

    test('X-Service-Source: 1-128 characters', async () => {
      assert.equal((await svc.request('/v1/credits', { headers: { 'x-service-source': 'integration/zapier' } })).status, 200);
      for (const bad of ['s'.repeat(129), '']) {
        const e = await envelope(await svc.request('/v1/credits', { headers: { 'x-service-source': bad } }), 400, 'INVALID_REQUEST');
        assert.equal(e.details.header, 'x-service-source');
      }
    });

    test('unknown routes are 404 INVALID_REQUEST and retired ones 405, both in the envelope', async () => {
      for (const [method, path] of [
        ['GET', '/v1/nothing-here'],
        ['PATCH', '/v1/credits'],
        ['GET', '/nowhere'],
        ['POST', '/v1/videos/x/y'],
      ]) {
        const res = await svc.request(path, { method, headers: { 'x-request-id': `route-${method}` } });
        const e = await envelope(res, 404, 'INVALID_REQUEST');
        assert.equal(e.request_id, `route-${method}`);
      }
      const res = await svc.request('/v1/renders', { headers: { 'x-request-id': 'retired-1' } });
      assert.equal((await envelope(res, 405, 'INVALID_REQUEST')).request_id, 'retired-1');
      assert.equal(res.headers.get('allow'), 'POST');
    });

    test('malformed JSON, unsupported content types and oversized bodies are 400 INVALID_REQUEST', async () => {
      const json = { 'content-type': 'application/json', 'idempotency-key': 'k1' };
      await envelope(await svc.request('/v1/renders', { method: 'POST', headers: json, body: '{"draft_id": ' }), 400, 'INVALID_REQUEST');
      await envelope(await svc.request('/v1/renders', { method: 'POST', headers: json, body: '' }), 400, 'INVALID_REQUEST');
      await envelope(
        await svc.request('/v1/renders', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }),
        400,
        'INVALID_REQUEST',
      );
      const big = await envelope(
        await svc.request('/v1/renders', { method: 'POST', headers: json, body: JSON.stringify({ draft_id: 'd'.repeat(4000) }) }),
        400,
        'INVALID_REQUEST',
      );
      assert.equal(big.details.limit_bytes, 2048);
    });

    test('malformed multipart and wrong field types are 400 INVALID_REQUEST; an oversized file is 422 UNSUPPORTED_MEDIA', async () => {
      const url = `${svc.baseUrl}/v1/renders`;
      const auth = { authorization: `Bearer ${svc.apiKey}` };
      const broken = '--xyz\r\nContent-Disposition: form-data; name="character_id"\r\n\r\nchar_1\r\n--xyz\r\nContent-Disposition: form-da';
      await envelope(
        await raw(url, { method: 'POST', headers: { ...auth, 'content-type': 'multipart/form-data; boundary=xyz' }, body: broken }),
        400,
        'INVALID_REQUEST',
      );
      await envelope(
        await raw(url, { method: 'POST', headers: { ...auth, 'content-type': 'multipart/form-data' }, body: 'abc' }),
        400,
        'INVALID_REQUEST',
      );

      const asText = new FormData();
      asText.append('image', 'this should have been a file');
      assert.equal(
        (await envelope(await svc.request('/v1/renders', { method: 'POST', body: asText }), 400, 'INVALID_REQUEST')).details.field,
        'image',
      );
      const asFile = new FormData();
      asFile.append('character_id', new Blob(['char_x']), 'id.txt');
      assert.equal(
        (await envelope(await svc.request('/v1/renders', { method: 'POST', body: asFile }), 400, 'INVALID_REQUEST')).details.field,
        'character_id',
      );

      const tooBig = new FormData();
      tooBig.append('image', new Blob([Buffer.alloc(10_000, 7)]), 'big.png');
      tooBig.append('motion_video_url', 'https://example.com/v.mp4');
      const e = await envelope(await svc.request('/v1/renders', { method: 'POST', body: tooBig }), 422, 'UNSUPPORTED_MEDIA');
      assert.deepEqual([e.details.field, e.details.limit_bytes], ['image', 4096]);
      const wrongType = await svc.request('/v1/videos?limit=many');
      await envelope(wrongType, 400, 'INVALID_REQUEST');
    });

    test('JSON bodies are validated as sent (no type coercion); querystrings are coerced from text', async () => {
      const json = { 'content-type': 'application/json' };
      const templates = (await (await svc.request('/v1/motions/templates')).json()) as any;
      const templateId = templates.items[0].id as string;
      for (const body of [
        { template_id: 7 },
        { template_id: true },
        { template_id: [templateId] },
        { template_id: templateId, name: 12 },
        { template_id: templateId, name: false },
      ]) {
        const e = await envelope(
          await svc.request('/v1/motions/import', { method: 'POST', headers: json, body: JSON.stringify(body) }),
          400,
          'INVALID_REQUEST',
        );
        assert.equal(e.details.location, 'body', JSON.stringify(body));
      }
      assert.equal(
        (
          await svc.request('/v1/motions/import', {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ template_id: templateId, name: '12' }),
          })
        ).status,
        200,
      );
      const draftId = await envelope(
        await svc.request('/v1/renders', { method: 'POST', headers: { ...json, 'idempotency-key': 'coerce-1' }, body: '{"draft_id": 7}' }),
        400,
        'INVALID_REQUEST',
      );
      assert.deepEqual([draftId.details.field, /must be a string/.test(draftId.message)], ['draft_id', true]);
      const form = new FormData();
      form.append('template_id', templateId);
      const notJson = await envelope(await svc.request('/v1/motions/import', { method: 'POST', body: form }), 400, 'INVALID_REQUEST');
      assert.match(notJson.message, /JSON object/);
      const listed = await svc.request('/v1/videos?limit=3');
      assert.equal(listed.status, 200, 'limit=3 arrives as text and is read as the integer 3');
      const motions = await svc.request('/v1/motions?limit=1');
      assert.equal(((await motions.json()) as any).items.length, 1);
    });

    test('lists refuse query parameters they do not define, naming them', async () => {
      for (const path of ['/v1/videos?stauts=ready', '/v1/motions?status=ready', '/v1/characters?limit=5']) {
        const e = await envelope(await svc.request(path), 400, 'INVALID_REQUEST');
        assert.equal(e.details.location, 'querystring', path);
        assert.equal(e.details.field, path.split('?')[1].split('=')[0], path);
      }
    });

    // Router-level refusals (bad percent-encoding, over-long path parameters) happen before hooks run;
    // src/http/app.ts routes them through the same error handler via `frameworkErrors`.
    test('URLs the router cannot parse are answered in the envelope too', async () => {
      await envelope(await svc.request('/v1/videos/%E0%A4%A', { headers: { 'x-request-id': 'bad-url-1' } }), 400, 'INVALID_REQUEST');
      const long = await svc.request(`/v1/videos/render_${'Z'.repeat(200)}`);
      assert.ok([400, 404].includes(long.status), String(long.status));
      await envelope(long, long.status, long.status === 404 ? 'RENDER_NOT_FOUND' : 'INVALID_REQUEST');
    });

    test('successful responses carry X-Request-Id too', async () => {
      for (const path of ['/v1/credits', '/v1/videos', '/v1/openapi.json']) {
        const res = await svc.request(path);
        assert.equal(res.status, 200, path);
        assert.ok(res.headers.get('x-request-id'), path);
      }
    });
  });
}

describe('shutdown', () => {
  test('a request that arrives while the server drains gets 503 SERVICE_BUSY in the envelope, with Retry-After', async () => {
    const svc = await startService({ db: 'sqlite' });
    const sock = connect(Number(new URL(svc.baseUrl).port), '127.0.0.1');
    let data = '';
    sock.on('data', (d) => (data += d));
    await new Promise((r) => sock.once('connect', r));
    try {
      // Half a request keeps the connection busy, so closing the server does not drop it as idle.
      sock.write('GET /v1/credits HTTP/1.1\r\nHost: marionette\r\n');
      await new Promise((r) => setTimeout(r, 100));
      const closing = svc.app.close();
      await new Promise((r) => setTimeout(r, 100));
      sock.write(`Authorization: Bearer ${svc.apiKey}\r\nX-Request-Id: drain-1\r\n\r\n`);
      await new Promise((r) => sock.once('close', r));
      await closing;
      const [head, body] = data.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 503/);
      assert.match(head, /\r\nx-request-id: drain-1\r\n/i);
      assert.match(head, /\r\nretry-after: 1\r\n/i);
      const e = JSON.parse(body).error;
      assert.deepEqual([e.code, e.retryable, e.request_id, e.remediation.retry_after_ms], ['SERVICE_BUSY', true, 'drain-1', 1000]);
    } finally {
      sock.destroy();
      await svc.close().catch(() => {});
    }
  });
});
