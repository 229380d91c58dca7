import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { hasSharedMedia, NO_MEDIA_REASON, serveHttp, startService, type TestService } from '../helpers/harness.js';
import { ffprobe, prepareMedia } from '../helpers/media-prep.js';
import {
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  JobFailedError,
  Marionette,
  MarionetteApiError,
  NotFoundError,
  RateLimitError,
  type Character,
  type RenderEvent,
  type RetryInfo,
} from '../../packages/sdk/src/index.js';
import { CuttableProxy } from '../helpers/clients.js';

/**
 * @marionette/sdk against a real service on loopback with in-process workers (SQLite: the clients
 * see only HTTP, so one database is enough). Renders use the built-in default pair or a template
 * motion and a small picture so the suite stays short.
 */
describe('SDK against a live service', { skip: !hasSharedMedia() && NO_MEDIA_REASON }, () => {
  let svc: TestService;
  let m: Marionette;
  let media: { dir: string; video: string; image: string };
  const retries: RetryInfo[] = [];
  before(async () => {
    media = await prepareMedia({ seconds: 1 });
    svc = await startService({
      db: 'sqlite',
      workers: true,
      credits: 200,
      env: { MARIONETTE_JOB_HEARTBEAT_MS: '1000', MARIONETTE_URL_ALLOW_LIST: '127.0.0.1' },
    });
    m = new Marionette({ baseUrl: svc.baseUrl, apiKey: svc.apiKey, onRetry: (r) => retries.push(r) });
  });
  after(async () => {
    await svc?.close();
    if (media) await rm(media.dir, { recursive: true, force: true });
  });

  test('credits, the OpenAPI document and typed errors carrying code, retryable, remediation and request_id', async () => {
    const c = await m.credits.get();
    assert.equal(c.balance, 200);
    const ledger = await m.credits.ledger({ limit: 1 }).toArray();
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.amount, e.reserved_delta]),
      [['grant', 200, 0]],
    );
    const doc = await m.openapi();
    assert.equal((doc.info as { version: string }).version, '2.0.0');

    const missing = await m.videos.get('render_00000000000000000000000000').then(
      () => null,
      (e) => e,
    );
    assert.ok(missing instanceof NotFoundError, String(missing));
    assert.equal(missing.status, 404);
    assert.equal(missing.retryable, false);
    assert.match(missing.requestId ?? '', /\S/);
    assert.equal(missing.request_id, missing.requestId);
    assert.equal(typeof missing.remediation.action, 'string');

    const bad = new Marionette({ baseUrl: svc.baseUrl, apiKey: 'mk_live_nope' });
    const auth = await bad.credits.get().then(
      () => null,
      (e) => e,
    );
    assert.ok(auth instanceof AuthenticationError);
    assert.equal(auth.code, 'INVALID_CREDENTIAL');
    assert.equal(auth.remediation.action, 'replace_credential');

    const invalid = await m.renders.create({ backgroundMode: 'original', bgColor: '1,2,3' }).then(
      () => null,
      (e) => e,
    );
    assert.ok(invalid instanceof InvalidRequestError || invalid instanceof MarionetteApiError, String(invalid));
    assert.equal(invalid.code, 'INVALID_REQUEST');
  });

  test('characters from a path, a Buffer, a Blob, a Node stream and a web stream; get, list, export, delete', async () => {
    const bytes = await readFile(media.image);
    const fromPath = await m.characters.create(media.image, { name: 'path' });
    const fromBuffer = await m.characters.create(bytes, { name: 'buffer' });
    const fromBlob = await m.characters.create(new Blob([bytes]), { name: 'blob' });
    const fromNode = await m.characters.create(createReadStream(media.image), { name: 'node stream' });
    const fromWeb = await m.characters.create(Readable.toWeb(createReadStream(media.image)) as ReadableStream<Uint8Array>, {
      name: 'web stream',
    });
    for (const c of [fromPath, fromBuffer, fromBlob, fromNode, fromWeb]) {
      assert.match(c.id, /^char_/);
      assert.equal(c.status, 'queued');
    }
    const listed = await m.characters.list().toArray();
    assert.deepEqual(new Set(listed.map((c) => c.name)), new Set(['path', 'buffer', 'blob', 'node stream', 'web stream']));
    assert.equal((await m.characters.get(fromBuffer.id)).name, 'buffer');
    // Deleted before a worker reaches them (the worker skips deleted rows), so only one is analysed.
    for (const c of [fromBuffer, fromBlob, fromNode, fromWeb])
      assert.deepEqual(await m.characters.delete(c.id), { id: c.id, status: 'deleted' });
    await assert.rejects(m.characters.get(fromBlob.id), NotFoundError);
    const ready = await m.waitFor<Character>(fromPath.id, { intervalMs: 500, timeoutMs: 240_000 });
    assert.equal(ready.status, 'ready', JSON.stringify(ready));
    assert.ok(ready.capabilities.includes('video_render'));
    const exp = await m.characters.export(fromPath.id, { downloadType: 'vsplat' }).then(
      (r) => r,
      (e) => e,
    );
    // A render-type character has no vsplat: either an empty export or a typed refusal.
    if (exp instanceof MarionetteApiError) assert.equal(exp.retryable, false);
    else assert.equal(exp.id, fromPath.id);
  });

  test('a URL input is sent as a URL and fetched by the service', async () => {
    const bytes = await readFile(media.image);
    const hits: string[] = [];
    const server = await serveHttp((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes);
    });
    try {
      const url = `${server.url}/me.jpg`;
      const c = await m.characters.create(url, { name: 'from url' });
      assert.match(c.id, /^char_/);
      for (let i = 0; i < 600 && hits.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(hits.slice(0, 1), ['/me.jpg'], 'the service fetched the URL');
      await m.characters.delete(c.id);
    } finally {
      await server.close();
    }
  });

  test('motions: templates, import, create from a stream, paged list, get, export, delete', async () => {
    const templates = await m.motions.templates();
    assert.ok(templates.some((t) => t.id === 'tpl_wave'));
    const imported = await m.motions.import('tpl_wave', { name: 'wave' });
    const ready = await m.waitFor(imported.id, { intervalMs: 300, timeoutMs: 120_000 });
    assert.equal(ready.status, 'ready');
    const created = await m.motions.create(createReadStream(media.video), { name: 'streamed' });
    assert.equal(created.status, 'queued');
    assert.equal(created.name, 'streamed');
    const second = await m.motions.import('tpl_idle');
    const pages = [];
    for await (const page of m.motions.list({ limit: 1 }).pages()) pages.push(page);
    assert.ok(pages.length >= 3, `${pages.length} pages of one`);
    const all = await m.motions.list({ limit: 2 }).toArray();
    assert.deepEqual(new Set(all.map((x) => x.id)), new Set([imported.id, created.id, second.id]));
    assert.equal((await m.motions.get(imported.id)).name, 'wave');
    const exp = await m.motions.export(imported.id, { downloadType: 'glb' }).then(
      (r) => r,
      (e) => e,
    );
    if (exp instanceof MarionetteApiError) assert.equal(exp.retryable, false);
    else assert.equal(exp.id, imported.id);
    await m.motions.delete(second.id);
    await m.motions.delete(created.id); // before extraction: the worker skips deleted motions
    await assert.rejects(m.motions.get(second.id), NotFoundError);
  });

  test('the default render: events() resumes with Last-Event-ID after the test cuts the stream; waitFor, list, download', async () => {
    const url = new URL(svc.baseUrl);
    const proxy = new CuttableProxy({ host: url.hostname, port: Number(url.port) });
    const viaProxy = new Marionette({ baseUrl: await proxy.start(), apiKey: svc.apiKey });
    try {
      const render = await m.renders.create();
      assert.match(render.id, /^render_/);
      let cuts = 0;
      // Cut the connection right after the first progress frame goes through.
      proxy.cutWhen = (chunk) => chunk.includes('event: progress') && ++cuts === 1;
      const events: RenderEvent[] = [];
      const reconnects: (string | null)[] = [];
      for await (const e of viaProxy.events(render.id, { onReconnect: (r) => reconnects.push(r.lastEventId) })) events.push(e);
      assert.equal(cuts, 1, 'the stream was cut once');
      assert.equal(reconnects.length, 1, 'one reconnection');
      const streamHeads = proxy.heads.filter((h) => h.includes('/events'));
      assert.equal(streamHeads.length, 2);
      const resumedFrom = /last-event-id: (\S+)/i.exec(streamHeads[1])?.[1];
      assert.ok(resumedFrom, 'the second request carries Last-Event-ID');
      assert.equal(resumedFrom, reconnects[0]);
      const seqs = events
        .filter((e) => e.event !== 'snapshot' && e.event !== 'heartbeat')
        .map((e) => (e.data as { sequence: number }).sequence);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'in order',
      );
      assert.equal(new Set(seqs).size, seqs.length, 'no event twice');
      const last = events.at(-1)!;
      assert.equal(last.event, 'ready');
      assert.match((last.data as { video_url: string }).video_url, /^http/);

      const done = await m.waitFor(render.id);
      assert.equal(done.status, 'ready');
      const dl = await m.renders.download(render.id);
      const head = new Uint8Array(await dl.arrayBuffer()).subarray(4, 8);
      assert.equal(Buffer.from(head).toString('latin1'), 'ftyp');
    } finally {
      await proxy.close();
    }
  });

  test('a large input goes through a draft: a failed PUT and a lost creation answer are retried, with one Idempotency-Key and one render', async () => {
    const motion = await m.motions.import('tpl_jump');
    await m.waitFor(motion.id, { intervalMs: 300 });
    const keys: string[] = [];
    let putsFailed = 0;
    let answersLost = 0;
    const flaky: typeof fetch = async (input, init) => {
      const req = input instanceof Request ? input : new Request(input, init);
      if (req.method === 'PUT' && putsFailed === 0) {
        putsFailed++;
        await req.body?.cancel();
        throw new TypeError('fetch failed (test: connection reset during upload)');
      }
      const res = await fetch(req);
      if (req.method === 'POST' && new URL(req.url).pathname === '/v1/renders') {
        keys.push(req.headers.get('idempotency-key') ?? '');
        if (answersLost === 0) {
          answersLost++;
          throw new TypeError('fetch failed (test: answer lost)');
        }
      }
      return res;
    };
    const before = await m.videos.list({ limit: 100 }).toArray();
    const sdk = new Marionette({ baseUrl: svc.baseUrl, apiKey: svc.apiKey, draftThresholdBytes: 1024, fetch: flaky, maxRetryDelayMs: 200 });
    const progress: number[] = [];
    const render = await sdk.renders.create({
      character: await readFile(media.image),
      motionId: motion.id,
      onUploadProgress: (p) => progress.push(p.loaded / p.total),
    });
    assert.equal(putsFailed, 1);
    assert.equal(answersLost, 1);
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1], 'the retry reused the Idempotency-Key');
    assert.equal(progress.at(-1), 1);
    const afterList = await m.videos.list({ limit: 100 }).toArray();
    assert.equal(afterList.length, before.length + 1, 'exactly one render was made');
    assert.ok(afterList.some((v) => v.id === render.id));

    const ready = await m.waitFor(render.id, { intervalMs: 1000, timeoutMs: 300_000, throwOnFailure: true });
    assert.equal(ready.status, 'ready');
    const out = join(media.dir, 'draft.mp4');
    const n = await m.videos.downloadTo(render.id, out);
    assert.equal((await stat(out)).size, n);
    assert.ok(n > 1000);

    const ready2 = await m.videos.list({ status: 'ready', limit: 1 });
    const pages = [];
    for await (const p of ready2.pages()) pages.push(p);
    assert.ok(pages.length >= 2, 'two ready videos, one per page');
  });

  test('videos.create: an H3 generation, waited for and downloaded; download refuses what is not ready', async () => {
    const v = await m.videos.create({ prompt: 'a wooden puppet waves on a beach', duration_s: 3, resolution: '480p', seed: 7 });
    assert.match(v.id, /^vid_/);
    assert.equal((await m.videos.get(v.id)).id, v.id);
    const early = await m.videos.download(v.id).then(
      () => null,
      (e) => e,
    );
    // Either it is still running (not ready) or, on a fast machine, it finished.
    if (early) assert.ok(early instanceof JobFailedError);
    const done = await m.waitFor(v.id, { intervalMs: 500, timeoutMs: 300_000, throwOnFailure: true });
    assert.equal(done.status, 'ready');
    const out = join(media.dir, 'h3.mp4');
    assert.ok((await m.videos.downloadTo(v.id, out)) > 1000);
    assert.ok((await ffprobe(out)).frames > 30);
    const conflict = await m.renders.createFromDraft('draft_missing').then(
      () => null,
      (e) => e,
    );
    assert.ok(conflict instanceof MarionetteApiError);
    assert.ok(!(conflict instanceof ConflictError) || conflict.code === 'IDEMPOTENCY_KEY_REUSED');
  });
});

describe('SDK retries', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({ db: 'sqlite', env: { MARIONETTE_RATE_LIMITS: 'true', MARIONETTE_RATE_READ_PER_S: '1' } });
  });
  after(async () => svc?.close());

  test('a 429 is retried after Retry-After; with retries off it surfaces as RateLimitError', async () => {
    const strict = new Marionette({ baseUrl: svc.baseUrl, apiKey: svc.apiKey, maxRetries: 0 });
    let limited: unknown = null;
    for (let i = 0; i < 20 && !limited; i++)
      limited = await strict.credits.get().then(
        () => null,
        (e) => e,
      );
    assert.ok(limited instanceof RateLimitError, String(limited));
    assert.equal(limited.status, 429);
    assert.equal(limited.code, 'RATE_LIMITED');
    assert.equal(limited.retryable, true);
    assert.ok(limited.retryAfterS !== null && limited.retryAfterS >= 0);
    assert.ok(limited.requestId);

    const retries: RetryInfo[] = [];
    const patient = new Marionette({ baseUrl: svc.baseUrl, apiKey: svc.apiKey, onRetry: (r) => retries.push(r) });
    const started = Date.now();
    for (let i = 0; i < 4; i++) assert.equal(typeof (await patient.credits.get()).balance, 'number');
    assert.ok(retries.length >= 1, 'at least one call was limited and retried');
    for (const r of retries) {
      assert.ok(r.error instanceof RateLimitError);
      assert.equal(r.delayMs, (r.error as RateLimitError).retryAfterS! * 1000, 'waited what Retry-After said');
    }
    assert.ok(Date.now() - started >= retries.reduce((s, r) => s + r.delayMs, 0) - 50);
  });
});
