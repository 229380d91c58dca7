import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dbTargets, startService, type TestService } from '../helpers/harness.js';
import { queueFactory } from '../helpers/queue-fixture.js';
import { TemporaryJobError, type JobContext, type JobHandler } from '../../src/domain/ports/job-queue.js';
import { AppError } from '../../src/contracts/errors.js';
import { EngineError } from '../../src/engine/types.js';
import { newId } from '../../src/contracts/ids.js';

/** The queue alone, with handlers that record what they were asked to do (no engine involved). */
for (const t of await dbTargets()) {
  describe(`embedded queue (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    const queues = queueFactory(() => svc, { maxRetryDelayMs: 200 });
    const queue = queues.make;
    before(async () => {
      svc = await startService({ db: t.kind });
    });
    after(async () => {
      await queues.stopAll();
      await svc?.close();
    });

    const enqueue = queues.enqueue;
    const job = (resourceId: string) =>
      svc.wired.deps.db.selectFrom('jobs').selectAll().where('resource_id', '=', resourceId).executeTakeFirstOrThrow();

    async function waitFor<T>(
      fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
      timeoutMs = 8000,
    ): Promise<T> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > end) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    function recorder(run: (job: JobContext) => Promise<void>) {
      const runs: JobContext[] = [];
      const fails: { job: JobContext; error: AppError }[] = [];
      const handler: JobHandler = {
        run: async (j) => {
          runs.push(j);
          await run(j);
        },
        fail: async (j, error) => {
          fails.push({ job: j, error });
        },
      };
      return { handler, runs, fails };
    }

    it('two workers racing over 30 jobs run each exactly once', async () => {
      const prefix = `race_${newId('job')}_`;
      const ids = Array.from({ length: 30 }, (_, i) => `${prefix}${i}`);
      for (const id of ids) await enqueue(id);
      const seen: string[] = [];
      const r = recorder(async (j) => {
        seen.push(j.resourceId);
        await new Promise((res) => setTimeout(res, 5));
      });
      const only = (h: JobHandler): JobHandler => ({
        run: (j) => (j.resourceId.startsWith(prefix) ? h.run(j) : Promise.resolve()),
        fail: h.fail,
      });
      const a = queue('a');
      const b = queue('b');
      await a.start({ 'render.run': only(r.handler) }, { concurrency: 3 });
      await b.start({ 'render.run': only(r.handler) }, { concurrency: 3 });
      await waitFor(async () => (await Promise.all(ids.map(job))).every((j) => j.status === 'completed'));
      await a.stop();
      await b.stop();
      assert.equal(seen.length, 30);
      assert.equal(new Set(seen).size, 30);
      for (const id of ids) {
        const j = await job(id);
        assert.equal(j.attempts, 1);
        assert.equal(j.lease_owner, null);
      }
    });

    it('a temporary failure is retried with backoff; success on a later attempt', async () => {
      const id = `temp_${newId('job')}`;
      await enqueue(id, 3);
      const r = recorder(async (j) => {
        if (j.resourceId === id && j.attempt < 3) throw new TemporaryJobError('worker pool busy', 'ALL_WORKERS_BUSY');
      });
      const q = queue('t');
      await q.start({ 'render.run': r.handler }, { concurrency: 1 });
      const done = await waitFor(async () => ((await job(id)).status === 'completed' ? job(id) : null));
      await q.stop();
      const mine = r.runs.filter((j) => j.resourceId === id);
      assert.deepEqual(
        mine.map((j) => j.attempt),
        [1, 2, 3],
      );
      assert.equal(r.fails.length, 0);
      assert.equal(done.attempts, 3);
      // Backoff: the retries did not follow each other immediately (base 50 ms, doubling, +-20 %).
      assert.equal(done.last_error, 'worker pool busy');
    });

    it('attempts exhausted: the resource fails with a retryable INTERNAL_ERROR or SERVICE_BUSY, never an internal code', async () => {
      const crash = `crash_${newId('job')}`;
      const busy = `busy_${newId('job')}`;
      await enqueue(crash, 2);
      await enqueue(busy, 2);
      const r = recorder(async (j) => {
        if (j.resourceId === crash) throw new Error('segfault in a codec');
        if (j.resourceId === busy) throw new TemporaryJobError('no worker', 'ALL_WORKERS_BUSY');
      });
      const q = queue('x');
      await q.start({ 'render.run': r.handler }, { concurrency: 2 });
      await waitFor(async () => (await job(crash)).status === 'failed' && (await job(busy)).status === 'failed');
      await q.stop();
      const fc = r.fails.find((f) => f.job.resourceId === crash)!;
      assert.equal(fc.error.code, 'INTERNAL_ERROR');
      assert.equal(fc.error.retryable, true);
      assert.doesNotMatch(fc.error.message, /segfault/, 'internal causes stay internal');
      const fb = r.fails.find((f) => f.job.resourceId === busy)!;
      assert.equal(fb.error.code, 'SERVICE_BUSY');
      assert.equal(fb.error.retryable, true);
      assert.equal(r.runs.filter((j) => j.resourceId === crash).length, 2);
      assert.match((await job(crash)).last_error ?? '', /segfault/);
    });

    it('permanent failures (engine refusal, AppError) fail at once with their public code', async () => {
      const eng = `eng_${newId('job')}`;
      const app = `app_${newId('job')}`;
      await enqueue(eng, 3);
      await enqueue(app, 3);
      const r = recorder(async (j) => {
        if (j.resourceId === eng) throw new EngineError('INVALID_CHARACTER', 'No riggable figure in the picture.', { reason: 'no_pose' });
        if (j.resourceId === app) throw new AppError('UNSUPPORTED_MEDIA', 'The URL did not return a video.');
      });
      const q = queue('p');
      await q.start({ 'render.run': r.handler }, { concurrency: 2 });
      await waitFor(async () => (await job(eng)).status === 'failed' && (await job(app)).status === 'failed');
      await q.stop();
      assert.equal(r.runs.filter((j) => j.resourceId === eng).length, 1);
      const fe = r.fails.find((f) => f.job.resourceId === eng)!.error;
      assert.deepEqual([fe.code, fe.retryable, fe.details], ['INVALID_CHARACTER', false, { reason: 'no_pose' }]);
      assert.equal(r.fails.find((f) => f.job.resourceId === app)!.error.code, 'UNSUPPORTED_MEDIA');
    });

    it('a stalled job (lease lapsed) is reclaimed as the next attempt; with no attempts left it fails without running', async () => {
      const stalled = `stall_${newId('job')}`;
      const last = `last_${newId('job')}`;
      await enqueue(stalled, 3);
      await enqueue(last, 2);
      const past = new Date(Date.now() - 60_000).toISOString();
      await svc.wired.deps.db
        .updateTable('jobs')
        .set({ status: 'active', attempts: 1, lease_owner: 'dead-worker', lease_expires_at: past })
        .where('resource_id', '=', stalled)
        .execute();
      await svc.wired.deps.db
        .updateTable('jobs')
        .set({ status: 'active', attempts: 2, lease_owner: 'dead-worker', lease_expires_at: past })
        .where('resource_id', '=', last)
        .execute();
      const r = recorder(async () => {});
      const q = queue('s');
      await q.start({ 'render.run': r.handler }, { concurrency: 2 });
      await waitFor(async () => (await job(stalled)).status === 'completed' && (await job(last)).status === 'failed');
      await q.stop();
      assert.deepEqual(
        r.runs.filter((j) => j.resourceId === stalled).map((j) => j.attempt),
        [2],
      );
      assert.equal(r.runs.filter((j) => j.resourceId === last).length, 0);
      const f = r.fails.find((x) => x.job.resourceId === last)!;
      assert.equal(f.error.code, 'INTERNAL_ERROR');
      assert.equal(f.error.retryable, true);
    });

    it('a live lease is not stolen: a second worker waits while heartbeats keep extending it', async () => {
      const id = `live_${newId('job')}`;
      await enqueue(id, 3);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const r = recorder(async (j) => {
        if (j.resourceId === id) await gate;
      });
      // Lease 10 heartbeats long: a loaded machine can delay a heartbeat, not ten in a row.
      const a = queue('la', { leaseMs: 1000 });
      const b = queue('lb', { leaseMs: 1000 });
      await a.start({ 'render.run': r.handler }, { concurrency: 1 });
      await waitFor(() => r.runs.some((j) => j.resourceId === id));
      await b.start({ 'render.run': r.handler }, { concurrency: 1 });
      await new Promise((res) => setTimeout(res, 2500)); // > 2 lease lengths
      release();
      await waitFor(async () => (await job(id)).status === 'completed');
      await a.stop();
      await b.stop();
      assert.equal(r.runs.filter((j) => j.resourceId === id).length, 1);
    });

    it('cancel() aborts a running job in this process; a cancelled row aborts a worker elsewhere at its next heartbeat', async () => {
      const here = `cx_${newId('job')}`;
      const there = `cy_${newId('job')}`;
      await enqueue(here);
      await enqueue(there);
      const aborted: string[] = [];
      const r = recorder(
        (j) =>
          new Promise<void>((_, reject) => {
            j.signal.addEventListener('abort', () => {
              aborted.push(j.resourceId);
              const e = new Error('aborted');
              e.name = 'AbortError';
              reject(e);
            });
          }),
      );
      const q = queue('c');
      await q.start({ 'render.run': r.handler }, { concurrency: 2 });
      await waitFor(() => r.runs.length >= 2);
      const t0 = Date.now();
      await q.cancel(here);
      await waitFor(() => aborted.includes(here));
      assert.ok(Date.now() - t0 < 100, 'same-process cancellation is immediate');
      // Another process (the admin CLI) can only write the row: the heartbeat (100 ms) notices.
      await svc.wired.deps.db.updateTable('jobs').set({ status: 'cancelled' }).where('resource_id', '=', there).execute();
      await waitFor(() => aborted.includes(there), 2000);
      await q.stop();
      assert.equal((await job(here)).status, 'cancelled');
      assert.equal((await job(there)).status, 'cancelled');
      assert.equal(r.fails.length, 0, 'a cancelled job is not failed');
    });

    it('stop() aborts running jobs and hands their attempt back for the next worker', async () => {
      const id = `stop_${newId('job')}`;
      await enqueue(id, 1);
      const r = recorder(
        (j) =>
          new Promise<void>((_, reject) => {
            j.signal.addEventListener('abort', () => reject(Object.assign(new Error('stopped'), { name: 'AbortError' })));
          }),
      );
      const q = queue('st');
      await q.start({ 'render.run': r.handler }, { concurrency: 1 });
      await waitFor(() => r.runs.some((j) => j.resourceId === id));
      await q.stop();
      const j = await job(id);
      assert.equal(j.status, 'queued');
      assert.equal(j.attempts, 0, 'a shutdown does not use up the only attempt');
      const ok = recorder(async () => {});
      const q2 = queue('st2');
      await q2.start({ 'render.run': ok.handler }, { concurrency: 1 });
      await waitFor(async () => (await job(id)).status === 'completed');
      await q2.stop();
    });
  });
}
