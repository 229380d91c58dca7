import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dbTargets, startService, type TestService } from '../helpers/harness.js';
import { queueFactory } from '../helpers/queue-fixture.js';
import type { JobContext, JobHandler } from '../../src/domain/ports/job-queue.js';
import type { AppError } from '../../src/contracts/errors.js';
import { newId } from '../../src/contracts/ids.js';

/**
 * Who decides a job's fate: only the worker holding its lease. A run that lost its lease must not
 * fail the resource; a stopping worker hands back even a handler that ignores its abort signal, so
 * another worker takes the job over at once rather than after the lease lapses.
 */
for (const t of await dbTargets()) {
  describe(`embedded queue ownership (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    const queues = queueFactory(() => svc, { leaseMs: 10_000 });
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
    async function waitFor(fn: () => Promise<boolean> | boolean, timeoutMs = 8000): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (!(await fn())) {
        if (Date.now() > end) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    it('a run on its last attempt that lost its lease fails without failing the resource', async () => {
      const id = `own_${newId('job')}`;
      await enqueue(id, 1);
      let crash!: (e: Error) => void;
      const fails: AppError[] = [];
      const handler: JobHandler = {
        run: () => new Promise<void>((_, reject) => (crash = reject)),
        fail: async (_j, e) => void fails.push(e),
      };
      // Heartbeats far apart: the run does not notice the takeover before it crashes.
      const q = queue('stale', { heartbeatMs: 60_000 });
      await q.start({ 'render.run': handler }, { concurrency: 1 });
      await waitFor(() => typeof crash === 'function');
      await svc.wired.deps.db.updateTable('jobs').set({ lease_owner: 'new-owner' }).where('resource_id', '=', id).execute();
      crash(new Error('disk full'));
      await new Promise((r) => setTimeout(r, 300));
      await q.stop();
      assert.deepEqual(fails, [], 'the stale run did not fail the resource');
      const j = await job(id);
      assert.equal(j.status, 'active');
      assert.equal(j.lease_owner, 'new-owner', 'the job row still belongs to the new owner');
    });

    it('stop() hands back a job whose handler ignores the abort, and another worker takes it at once', async () => {
      const id = `deaf_${newId('job')}`;
      await enqueue(id, 2);
      let started = false;
      let finish!: () => void;
      const deaf: JobHandler = {
        run: () => {
          started = true;
          return new Promise<void>((r) => (finish = r));
        },
        fail: async () => {},
      };
      const a = queue('deaf', { shutdownGraceMs: 200 });
      await a.start({ 'render.run': deaf }, { concurrency: 1 });
      await waitFor(() => started);
      const t0 = Date.now();
      await a.stop();
      const j = await job(id);
      assert.equal(j.status, 'queued', 'handed back, not left to its 10 s lease');
      assert.equal(j.attempts, 0, 'the interrupted attempt is not counted');
      const runs: JobContext[] = [];
      const b = queue('taker');
      await b.start({ 'render.run': { run: async (jc) => void runs.push(jc), fail: async () => {} } }, { concurrency: 1 });
      await waitFor(async () => (await job(id)).status === 'completed');
      assert.ok(Date.now() - t0 < 3000, `taken over after ${Date.now() - t0} ms`);
      assert.deepEqual(
        runs.map((r) => r.attempt),
        [1],
      );
      finish();
      await b.stop();
      assert.equal((await job(id)).status, 'completed', 'the stray run finishing late changes nothing');
    });
  });
}
