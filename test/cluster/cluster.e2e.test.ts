import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { startCluster, type Cluster, type ClusterProcess } from '../../src/main/cluster.js';
import { openDb, type DbHandle } from '../../src/infra/db/database.js';
import { createAccount, createKey } from '../../src/domain/accounts/accounts.service.js';
import { S3Storage } from '../../src/infra/storage/s3-storage.js';
import { RedisPubSub } from '../../src/infra/pubsub/redis-pubsub.js';
import { BullMqQueue } from '../../src/infra/queue/bullmq-queue.js';
import { cancelRender } from '../../src/domain/renders/render-cancel.service.js';
import { loadConfig } from '../../src/config/config.js';
import { dbTargets, freePort, hasSharedMedia, NO_MEDIA_REASON } from '../helpers/harness.js';
import { ownRedis, type TestRedis } from '../helpers/redis.js';
import { openSse, type SseStream } from '../helpers/sse-reader.js';
import { ledgerOf } from '../helpers/render-fixture.js';
import { prepareMedia } from '../helpers/media-prep.js';

/**
 * The distributed topology, as `npm run cluster` starts it: two API processes (no workers) and
 * worker processes, each with its own data dir, sharing only PostgreSQL (through a TCP proxy this
 * test can cut), a private Redis (that this test kills and restarts) and an S3-protocol server
 * (s3rver). Renders are real (shared media, the CPU engine).
 */
const pgTarget = (await dbTargets()).find((t) => t.kind === 'postgres')!;
// A private redis-server only when the suite will run: a skipped suite never reaches `after`, and the
// server would keep this file's process alive (seen from a clone without ../shared/media).
const notHere = pgTarget.skip ? 'no PostgreSQL' : !hasSharedMedia() ? NO_MEDIA_REASON : null;
const redis: TestRedis = notHere ? { url: '', prefix: '', skip: notHere, close: async () => {} } : await ownRedis();
const skip = notHere || redis.skip;

/** A TCP proxy in front of PostgreSQL: `cut()` drops every connection and refuses new ones. */
async function pgProxy(target: {
  host: string;
  port: number;
}): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = () =>
    new Promise<void>((ok) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => ok());
    });
  const cut = async () => {
    const s = server as Server | null;
    server = null;
    for (const c of sockets) c.destroy();
    sockets.clear();
    if (s) await new Promise((r) => s.close(() => r(null)));
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}

describe('distributed cluster: 2 API processes, workers, PostgreSQL + Redis + S3', { skip, timeout: 900_000 }, () => {
  let cluster: Cluster;
  let db: DbHandle;
  let s3: S3Storage;
  let proxy: Awaited<ReturnType<typeof pgProxy>>;
  let media: { dir: string; video: string; image: string };
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const pgUrl = process.env.MARIONETTE_TEST_PG_URL!;
  let A: ClusterProcess;
  let B: ClusterProcess;
  const streams: SseStream[] = [];

  before(async () => {
    media = await prepareMedia({ seconds: 2 });
    const u = new URL(pgUrl);
    proxy = await pgProxy({ host: u.hostname, port: Number(u.port || 5432) });
    const proxied = new URL(pgUrl);
    proxied.port = String(proxy.port);
    proxied.hostname = '127.0.0.1';
    cluster = await startCluster({
      apis: 2,
      workers: 0,
      databaseUrl: proxied.toString(),
      schema,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      env: {
        MARIONETTE_LOG_LEVEL: 'warn',
        MARIONETTE_ENGINE_WARMUP: 'false',
        MARIONETTE_RATE_READ_PER_S: '5',
        MARIONETTE_RATE_CREATE_BURST: '1000',
        MARIONETTE_RATE_CREATE_PER_S: '1000',
        MARIONETTE_JOB_HEARTBEAT_MS: '1000',
        // Keys stay cached for 10 minutes and are not confirmed on each use (the default with Redis
        // pub/sub): only a pushed revocation can make a process refuse a cached key at once.
        MARIONETTE_API_KEY_CACHE_MS: '600000',
      },
    });
    [A, B] = cluster.apis;
    db = await openDb({ url: pgUrl, schema });
    s3 = new S3Storage({ ...loadConfig(cluster.env).storage.s3!, partBytes: 5 * 1024 * 1024 });
  });

  after(async () => {
    for (const s of streams) s.close();
    await cluster?.close();
    s3?.close();
    await db?.close();
    await proxy?.close();
    await redis.close();
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`).finally(() => c.end());
    if (media) await rm(media.dir, { recursive: true, force: true });
  });

  const call = (p: ClusterProcess, key: string, path: string, init: RequestInit = {}) =>
    fetch(p.baseUrl + path, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });
  const stream = async (p: ClusterProcess, key: string, id: string, headers: Record<string, string> = {}) => {
    const s = await openSse(`${p.baseUrl}/v1/renders/${id}/events`, { authorization: `Bearer ${key}`, ...headers });
    streams.push(s);
    return s;
  };
  const logs = () => [...cluster.apis, ...cluster.workers].map((p) => `--- ${p.name}\n${p.output().slice(-2500)}`).join('\n');

  /** A render through the draft form: declared, uploaded straight to S3 with the presigned PUT, created. */
  async function draftRender(p: ClusterProcess, key: string): Promise<string> {
    const image = await readFile(media.image);
    const video = await readFile(media.video);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const prep = await call(p, key, '/v1/renders/prepare', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        image: { content_type: 'image/jpeg', size_bytes: image.length, sha256: sha(image) },
        motion_video: { content_type: 'video/mp4', size_bytes: video.length },
      }),
    });
    assert.equal(prep.status, 200, await prep.clone().text());
    const plan = (await prep.json()) as { draft_id: string; uploads: { field: string; url: string; headers: Record<string, string> }[] };
    for (const u of plan.uploads) {
      assert.ok(u.url.startsWith(cluster.env.MARIONETTE_S3_ENDPOINT), `upload goes straight to the object store: ${u.url}`);
      const put = await fetch(u.url, { method: 'PUT', headers: u.headers, body: u.field === 'image' ? image : video });
      assert.equal(put.status, 200, await put.text());
    }
    const res = await call(p, key, '/v1/renders', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
      body: JSON.stringify({ draft_id: plan.draft_id }),
    });
    assert.equal(res.status, 202, await res.clone().text());
    return ((await res.json()) as { id: string }).id;
  }

  async function cancelDirect(id: string): Promise<void> {
    const config = loadConfig(cluster.env);
    const pubsub = new RedisPubSub(redis.url, redis.prefix);
    const queue = new BullMqQueue(db.db, pubsub, {
      redisUrl: redis.url,
      prefix: redis.prefix,
      workerId: 'test',
      lockMs: 6000,
      stalledIntervalMs: 2000,
      relayMs: 60_000,
      leaseMs: 30_000,
      heartbeatMs: 1000,
    });
    try {
      await cancelRender({ db: db.db, pubsub, queue, storage: s3 } as never, id);
    } finally {
      await queue.stop();
      await pubsub.close();
      void config;
    }
  }

  it('rate limits are shared by both API processes (the sum, not each)', async () => {
    // Reads: 5 per second, burst 5, per API key (MARIONETTE_RATE_READ_PER_S=5 for this cluster).
    const acct = await createAccount(db.db, { name: 'rl', credits: 0 });
    const t0 = Date.now();
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? A : B, acct.apiKey, '/v1/credits').then((r) => r.status)),
    );
    const allowed = rs.filter((c) => c === 200).length;
    const elapsedS = (Date.now() - t0) / 1000;
    // One bucket of 5 plus what refilled meanwhile; per-process buckets would allow 10 at once.
    assert.ok(allowed >= 5 && allowed <= 5 + Math.ceil(5 * elapsedS) + 1, `allowed ${allowed} of 20 in ${elapsedS}s`);
    assert.ok(
      rs.every((c) => c === 200 || c === 429),
      JSON.stringify(rs),
    );
    // A bucket emptied through A is empty for B.
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 0; i < 30; i++) if ((await call(A, acct.apiKey, '/v1/credits')).status === 429) break;
    const viaB = await Promise.all(Array.from({ length: 5 }, () => call(B, acct.apiKey, '/v1/credits')));
    const bAllowed = viaB.filter((r) => r.status === 200).length;
    assert.ok(bAllowed <= 2, `B allowed ${bAllowed} of 5 right after A emptied the bucket`);
    const refused = viaB.find((r) => r.status === 429)!;
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'RATE_LIMITED');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  });

  it('a key revoked with the admin command is refused at once by both API processes (revocation pushed over Redis)', async () => {
    const acct = await createAccount(db.db, { name: 'revoke', credits: 0 });
    const second = await createKey(db.db, acct.accountId);
    // Both keys are now cached by both processes.
    for (const p of [A, B]) {
      for (const k of [acct.apiKey, second.apiKey]) assert.equal((await call(p, k, '/v1/credits')).status, 200, p.name);
    }
    // Control: a revocation written straight to the database (announced to nobody) is not seen by a
    // process that trusts its cache, so what follows is the pushed revocation's doing.
    await db.db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('id', '=', second.keyId).execute();
    assert.equal((await call(A, second.apiKey, '/v1/credits')).status, 200, 'the cache is trusted without a pushed revocation');

    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...cluster.env };
    for (const k of Object.keys(env)) if (k.startsWith('MARIONETTE_TEST_')) delete env[k];
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', 'key', 'revoke', acct.keyId], {
      env,
      timeout: 120_000,
    });
    assert.deepEqual(JSON.parse(stdout), { key_id: acct.keyId, revoked: true, announced: true });
    for (const p of [A, B]) {
      const r = await call(p, acct.apiKey, '/v1/credits');
      assert.equal(r.status, 401, `${p.name} refused the revoked key on the first request after the command`);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'INVALID_CREDENTIAL');
    }
  });

  it('50 concurrent creations across two API processes against a balance for 10: exactly 10 succeed', async () => {
    const probe = await createAccount(db.db, { name: 'probe', credits: 1000 });
    const before = ((await (await call(A, probe.apiKey, '/v1/credits')).json()) as { balance: number }).balance;
    const first = await call(A, probe.apiKey, '/v1/renders', { method: 'POST' });
    assert.equal(first.status, 200, await first.clone().text());
    const price = before - ((await (await call(A, probe.apiKey, '/v1/credits')).json()) as { balance: number }).balance;
    assert.ok(price > 0);
    const acct = await createAccount(db.db, { name: 'ten', credits: price * 10 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call(i % 2 ? B : A, acct.apiKey, '/v1/renders', { method: 'POST' })),
    );
    const codes = results.map((r) => r.status);
    assert.equal(codes.filter((c) => c === 200).length, 10, JSON.stringify(codes));
    assert.equal(codes.filter((c) => c === 402).length, 40, JSON.stringify(codes));
    const bodies = await Promise.all(results.map((r) => r.json() as Promise<{ id?: string; error?: { code: string } }>));
    assert.ok(bodies.filter((b) => b.error).every((b) => b.error!.code === 'INSUFFICIENT_CREDITS'));
    const bal = (await (await call(B, acct.apiKey, '/v1/credits')).json()) as { balance: number };
    assert.equal(bal.balance, 0);
    // No workers yet: cancel these (no CPU spent on them) and the probe's render.
    const first_ = (await first.json()) as { id: string };
    for (const id of [first_.id, ...bodies.filter((b) => b.id).map((b) => b.id!)]) await cancelDirect(id);
    const after_ = (await (await call(A, acct.apiKey, '/v1/credits')).json()) as { balance: number };
    assert.equal(after_.balance, price * 10, 'cancelled reservations came back');
  });

  it('a render created through API A runs on a worker process, streams through API B, downloads through either', async () => {
    await Promise.all([cluster.addWorker(), cluster.addWorker()]);
    const acct = await createAccount(db.db, { name: 'flow', credits: 100 });
    const id = await draftRender(A, acct.apiKey);
    const s = await stream(B, acct.apiKey, id);
    const frames = await s.until(['ready', 'failed', 'cancelled'], 240_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    const last = frames[frames.length - 1];
    assert.equal(last.event, 'ready', JSON.stringify(last.json));
    assert.ok(
      frames.some((f) => f.event === 'progress'),
      'progress crossed processes',
    );
    for (const p of [A, B]) {
      const v = (await (await call(p, acct.apiKey, `/v1/videos/${id}`)).json()) as { video_url: string };
      assert.ok(v.video_url.startsWith(cluster.env.MARIONETTE_S3_ENDPOINT), v.video_url);
      const got = await fetch(v.video_url);
      assert.equal(got.status, 200);
      const bytes = Buffer.from(await got.arrayBuffer());
      assert.ok(bytes.length > 1000 && bytes.subarray(4, 8).toString() === 'ftyp', 'an MP4 from the object store');
    }
    assert.deepEqual(
      (await ledgerOf(db.db, id)).map((l) => l.kind),
      ['reserve', 'settle'],
    );
    // Nothing of the render or its uploads is on any process's disk: only the object store has it.
    const keys = await s3.list('');
    assert.ok(
      keys.some((k) => k.includes(id)),
      JSON.stringify(keys),
    );
  });

  it('/metrics: the worker that rendered reports render fps and job durations; the API reports HTTP latency and queue depth', async () => {
    const scrape = async (p: ClusterProcess) => {
      const r = await fetch(`${p.baseUrl}/metrics`);
      assert.equal(r.status, 200, p.name);
      assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return r.text();
    };
    const sample = (text: string, name: string, labels: Record<string, string> = {}) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
        .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    const workers = await Promise.all(cluster.workers.map(scrape));
    // The render of the previous test ran on one of the workers (rendered frames over wall time).
    assert.ok(workers.reduce((n, t) => n + sample(t, 'marionette_render_fps_count'), 0) >= 1, workers.join('\n'));
    const fpsSum = workers.reduce((n, t) => n + sample(t, 'marionette_render_fps_sum'), 0);
    assert.ok(fpsSum > 0 && Number.isFinite(fpsSum), `render fps sum ${fpsSum}`);
    assert.ok(
      workers.reduce((n, t) => n + sample(t, 'marionette_job_duration_seconds_count', { type: 'render.run', outcome: 'ok' }), 0) >= 1,
    );
    const api = await scrape(A);
    assert.ok(
      sample(api, 'marionette_http_request_duration_seconds_count', { method: 'POST', route: '/v1/renders', status: '202' }) >= 1,
      api,
    );
    assert.ok(sample(api, 'marionette_http_request_duration_seconds_count', { route: '/v1/videos/:video_id', status: '200' }) >= 1, api);
    assert.match(api, /^# TYPE marionette_queue_depth gauge$/m);
    assert.match(api, /^# TYPE marionette_bullmq_jobs gauge$/m);
    assert.match(api, /^marionette_bullmq_jobs\{state="waiting"\} \d+$/m);
  });

  it('SIGKILL of the worker mid-render: the other worker finishes it within the lease budget, settled once, no orphaned objects', async () => {
    const acct = await createAccount(db.db, { name: 'kill', credits: 100 });
    const id = await draftRender(B, acct.apiKey);
    const s = await stream(A, acct.apiKey, id);
    await s.until(['progress'], 240_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    const job = await db.db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
    const victim = cluster.workers.find((w) => job.lease_owner?.includes(`:${w.child.pid}:`));
    assert.ok(victim, `owner ${job.lease_owner}`);
    await victim.kill('SIGKILL');
    const killedAt = Date.now();
    let taken: typeof job | undefined;
    while (Date.now() - killedAt < 15_000) {
      taken = await db.db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirst();
      if (taken && taken.lease_owner && taken.lease_owner !== job.lease_owner) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const takeoverMs = Date.now() - killedAt;
    assert.ok(taken?.lease_owner && taken.lease_owner !== job.lease_owner, `taken over: ${JSON.stringify(taken)}`);
    assert.ok(takeoverMs < 10_000, `taken up ${takeoverMs} ms after the SIGKILL`);
    process.stdout.write(`# takeover after SIGKILL: ${takeoverMs} ms\n`);
    const frames = await s.until(['ready', 'failed'], 240_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    assert.equal(frames[frames.length - 1].event, 'ready', JSON.stringify(frames[frames.length - 1].json));
    const final = await db.db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.equal(final.attempts, 2);
    assert.deepEqual(
      (await ledgerOf(db.db, id)).map((l) => l.kind),
      ['reserve', 'settle'],
    );
    const row = await db.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const objects = (await s3.list('')).filter((k) => k.includes(id));
    assert.deepEqual(objects.sort(), [row.video_key, row.alpha_key].filter(Boolean).sort(), 'only the outputs the row names');
    await victim.restart();
  });

  it('Redis restarted mid-render and mid-stream: the job finishes, streams resume from Last-Event-ID, billed once', async () => {
    const acct = await createAccount(db.db, { name: 'redis', credits: 100 });
    const id = await draftRender(A, acct.apiKey);
    const s = await stream(B, acct.apiKey, id);
    const seen = await s.until(['progress'], 240_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    await redis.kill!();
    await new Promise((r) => setTimeout(r, 1500));
    await redis.start!();
    // A second stream resumes after the last event the first one saw.
    const lastId = seen[seen.length - 1].id!;
    const resumed = await stream(A, acct.apiKey, id, { 'last-event-id': lastId });
    const f1 = await s.until(['ready', 'failed'], 240_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    const f2 = await resumed.until(['ready', 'failed'], 60_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    assert.equal(f1[f1.length - 1].event, 'ready');
    assert.equal(f2[f2.length - 1].event, 'ready');
    assert.ok(
      f2.every((f) => f.event === 'snapshot' || (f.json?.sequence ?? 0) > (seen[seen.length - 1].json?.sequence ?? 0)),
      'only events after Last-Event-ID',
    );
    assert.deepEqual(
      (await ledgerOf(db.db, id)).map((l) => l.kind),
      ['reserve', 'settle'],
    );
    // Queueing works again on the restarted (empty) Redis: a new render is taken by a worker.
    const next = await draftRender(B, acct.apiKey);
    const s2 = await stream(A, acct.apiKey, next);
    // Taken by a worker: its processing event, or (when the stream connected after the worker began, a
    // short draft rendering in seconds) its progress or ready; a render already ready is not cancelled.
    await s2.until(['processing', 'progress', 'ready'], 60_000).catch((e) => assert.fail(`${e.message}\n${logs()}`));
    await cancelDirect(next).catch((e: { code?: string }) => {
      if (e.code !== 'RENDER_NOT_CANCELLABLE') throw e;
    });
  });

  it('PostgreSQL connections dropped: requests fail with 503 SERVICE_BUSY, then recover', async () => {
    const acct = await createAccount(db.db, { name: 'pg', credits: 10 });
    assert.equal((await call(A, acct.apiKey, '/v1/credits')).status, 200);
    await proxy.cut();
    try {
      for (const p of [A, B]) {
        const r = await call(p, acct.apiKey, '/v1/credits');
        assert.equal(r.status, 503, await r.clone().text());
        const body = (await r.json()) as { error: { code: string } };
        assert.equal(body.error.code, 'SERVICE_BUSY');
        assert.ok(r.headers.get('retry-after'));
        assert.equal((await fetch(`${p.baseUrl}/readyz`)).status, 503);
      }
    } finally {
      await proxy.restore();
    }
    for (const p of [A, B]) {
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await call(p, acct.apiKey, '/v1/credits')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, `${p.name} recovered`);
    }
  });
});
