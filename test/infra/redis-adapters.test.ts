import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, migrate, type DbHandle } from '../../src/infra/db/database.js';
import { RedisPubSub } from '../../src/infra/pubsub/redis-pubsub.js';
import { RedisRateLimitStore } from '../../src/infra/ratelimit/redis-rate-limit-store.js';
import { BullMqQueue, type BullMqQueueOptions } from '../../src/infra/queue/bullmq-queue.js';
import { redisConnection } from '../../src/infra/redis/connection.js';
import { enqueueInTx } from '../../src/infra/queue/outbox.js';
import { TemporaryJobError, type JobContext, type JobHandler } from '../../src/domain/ports/job-queue.js';
import { sharedRedis, type TestRedis } from '../helpers/redis.js';

/**
 * The Redis adapters against the machine's Redis under a unique key prefix (deleted afterwards):
 * pub/sub between two buses, one token bucket for two stores, and the BullMQ queue's job semantics
 * (retries with backoff, cancellation reaching the running handler, graceful hand-back, a handler
 * that keeps the event loop busy keeps its job) on a SQLite job table.
 */
const redis: TestRedis = await sharedRedis();

describe('Redis adapters', { skip: redis.skip }, () => {
  let dir: string;
  let handle: DbHandle;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'marionette-redis-test-'));
    handle = await openDb({ url: `sqlite:${join(dir, 'db.sqlite')}` });
    await migrate(handle.db);
  });
  after(async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
    await handle?.close();
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bus = () => {
    const b = new RedisPubSub(redis.url, redis.prefix);
    closers.push(() => b.close());
    return b;
  };

  it('pub/sub reaches a subscriber on another connection, only on its own prefix', async () => {
    const a = bus();
    const b = bus();
    const other = new RedisPubSub(redis.url, `${redis.prefix}x`);
    closers.push(() => other.close());
    const got: string[] = [];
    const strays: string[] = [];
    await b.subscribe('ch', (m) => got.push(m));
    await other.subscribe('ch', (m) => strays.push(m));
    await new Promise((r) => setTimeout(r, 100));
    await a.publish('ch', 'hello');
    for (let i = 0; i < 50 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(got, ['hello']);
    assert.deepEqual(strays, []);
  });

  it('two stores share one token bucket', async () => {
    const c1 = redisConnection(redis.url, { name: 't1' });
    const c2 = redisConnection(redis.url, { name: 't2' });
    closers.push(
      async () => c1.disconnect(),
      async () => c2.disconnect(),
    );
    const s1 = new RedisRateLimitStore(c1, redis.prefix);
    const s2 = new RedisRateLimitStore(c2, redis.prefix);
    const rule = { ratePerSecond: 1, burst: 5 };
    const verdicts = [];
    for (let i = 0; i < 10; i++) verdicts.push(await (i % 2 ? s2 : s1).take('k', rule));
    assert.equal(verdicts.filter((v) => v.allowed).length, 5);
    const refused = verdicts.find((v) => !v.allowed)!;
    assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 1000, String(refused.retryAfterMs));
  });

  function queue(name: string, over: Partial<BullMqQueueOptions> = {}): BullMqQueue {
    const q = new BullMqQueue(handle.db, bus(), {
      redisUrl: redis.url,
      prefix: redis.prefix,
      workerId: `${name}:${process.pid}:x`,
      lockMs: 6000,
      stalledIntervalMs: 2000,
      relayMs: 200,
      leaseMs: 30_000,
      heartbeatMs: 200,
      retryBaseMs: 50,
      onError: () => {},
      ...over,
    });
    closers.push(() => q.stop());
    return q;
  }
  const enqueue = (resourceId: string, maxAttempts = 3) =>
    handle.db.transaction().execute((tx) => enqueueInTx(tx, { type: 'render.run', resourceId, maxAttempts }));
  const jobOf = (resourceId: string) =>
    handle.db.selectFrom('jobs').selectAll().where('resource_id', '=', resourceId).executeTakeFirstOrThrow();
  async function until(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`timed out: ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('retries temporary failures with backoff, then completes; attempts are counted on the row', async () => {
    const seen: number[] = [];
    const fails: string[] = [];
    const h: JobHandler = {
      async run(job: JobContext) {
        seen.push(job.attempt);
        if (job.attempt < 3) throw new TemporaryJobError('flaky');
      },
      async fail(_j, e) {
        fails.push(e.code);
      },
    };
    const q = queue('retry');
    await q.start({ 'render.run': h }, { concurrency: 1 });
    await enqueue('res_retry');
    q.notify();
    await until(async () => (await jobOf('res_retry')).status === 'completed', 20_000, 'completed');
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(fails, []);
    assert.equal((await jobOf('res_retry')).attempts, 3);
    await q.stop();
  });

  it('gives up after the last attempt with the handler`s fail, once', async () => {
    const fails: string[] = [];
    const q = queue('exhaust');
    await q.start(
      {
        'render.run': {
          run: async () => {
            throw new TemporaryJobError('always');
          },
          fail: async (_j, e) => {
            fails.push(e.code);
          },
        },
      },
      { concurrency: 1 },
    );
    await enqueue('res_exhaust', 2);
    q.notify();
    await until(async () => (await jobOf('res_exhaust')).status === 'failed', 20_000, 'failed');
    assert.equal(fails.length, 1);
    await q.stop();
  });

  it('cancellation from another process reaches the running handler within a second', async () => {
    let started = 0;
    let abortedAt = 0;
    const q = queue('cancel-worker');
    await q.start(
      {
        'render.run': {
          run: (job) =>
            new Promise((_res, rej) => {
              started = Date.now();
              job.signal.addEventListener('abort', () => {
                abortedAt = Date.now();
                rej(new Error('aborted'));
              });
            }),
          fail: async () => {},
        },
      },
      { concurrency: 1 },
    );
    await enqueue('res_cancel');
    q.notify();
    await until(async () => started > 0, 10_000, 'started');
    const canceller = queue('api');
    const t0 = Date.now();
    await canceller.cancel('res_cancel');
    await until(async () => abortedAt > 0, 2000, 'aborted');
    assert.ok(abortedAt - t0 < 1000, `aborted ${abortedAt - t0} ms after cancel`);
    await until(async () => (await jobOf('res_cancel')).status === 'cancelled', 2000, 'row cancelled');
    await q.stop();
  });

  it('graceful shutdown hands a running job back; another worker runs it at once without counting an attempt', async () => {
    const runs: { who: string; attempt: number }[] = [];
    const handler = (who: string): JobHandler => ({
      run: (job) =>
        new Promise((res, rej) => {
          runs.push({ who, attempt: job.attempt });
          if (who === 'b') return res();
          job.signal.addEventListener('abort', () => rej(new Error('stopped')));
        }),
      fail: async () => {},
    });
    const a = queue('a');
    await a.start({ 'render.run': handler('a') }, { concurrency: 1 });
    await enqueue('res_handback');
    a.notify();
    await until(async () => runs.length === 1, 10_000, 'a started');
    const b = queue('b');
    await b.start({ 'render.run': handler('b') }, { concurrency: 1 });
    const t0 = Date.now();
    await a.stop();
    await until(async () => (await jobOf('res_handback')).status === 'completed', 5000, 'b completed');
    assert.ok(Date.now() - t0 < 5000);
    assert.deepEqual(runs, [
      { who: 'a', attempt: 1 },
      { who: 'b', attempt: 1 },
    ]);
    await b.stop();
  });

  it('a handler that blocks the event loop longer than the lock (8 s > 6 s) keeps its job: no second worker runs it', async () => {
    const runs: string[] = [];
    const busy = (who: string): JobHandler => ({
      async run() {
        runs.push(who);
        // One synchronous stretch of CPU work past the lock: BullMQ's own renewal timer cannot run.
        const block = Date.now() + 8000;
        while (Date.now() < block) {
          /* CPU work */
        }
        await new Promise((r) => setTimeout(r, 3000));
      },
      fail: async () => {},
    });
    const a = queue('busy-a');
    const b = queue('busy-b');
    await a.start({ 'render.run': busy('a') }, { concurrency: 1 });
    await b.start({ 'render.run': busy('b') }, { concurrency: 1 });
    await enqueue('res_busy');
    a.notify();
    await until(async () => (await jobOf('res_busy')).status === 'completed', 30_000, 'completed');
    assert.equal(runs.length, 1, JSON.stringify(runs));
    assert.equal((await jobOf('res_busy')).attempts, 1);
  });
});
