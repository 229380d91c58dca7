import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { dbTargets, startService, type TestService } from '../helpers/harness.js';
import { EmbeddedQueue } from '../../src/infra/queue/embedded-queue.js';
import { enqueueInTx } from '../../src/infra/queue/outbox.js';
import { transitionRender } from '../../src/domain/renders/renders.state.js';
import { newId } from '../../src/contracts/ids.js';
import { balanceMilli, insertQueuedRender, ledgerOf } from '../helpers/render-fixture.js';
import { openSse } from '../helpers/sse-reader.js';

const run = promisify(execFile);

/**
 * `npm run admin -- render cancel ID` as a separate process (as an operator runs it): the render
 * is cancelled and its credits released, the open event stream of the server process gets the
 * `cancelled` event and closes, and the worker running the job (here a handler that waits on its
 * signal, standing in for the engine) is aborted at its next heartbeat.
 */
for (const t of await dbTargets()) {
  describe(`admin render cancel (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    let env: Record<string, string>;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 50 });
      let url = `sqlite:${svc.config.dataDir}/marionette.sqlite`;
      if (t.kind === 'postgres') {
        const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(svc.wired.deps.db)).rows[0].s;
        url = `${process.env.MARIONETTE_TEST_PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      }
      env = {
        ...process.env,
        MARIONETTE_DATA_DIR: svc.config.dataDir,
        MARIONETTE_DATABASE_URL: url,
        MARIONETTE_LOG_LEVEL: 'silent',
      } as Record<string, string>;
    });
    after(async () => svc?.close());

    const admin = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'src/main/admin.ts', ...args], { env, cwd: process.cwd() });

    it('cancels a processing render: credits released, event streamed, the running job aborted', async () => {
      const deps = svc.wired.deps;
      const row = await insertQueuedRender(deps, svc.accountId, { reserveCredits: 7 });
      await deps.db.transaction().execute((tx) => enqueueInTx(tx, { type: 'render.run', resourceId: row.id, maxAttempts: 3 }));
      let abortedAt = 0;
      const queue = new EmbeddedQueue(deps.db, deps.pubsub, {
        workerId: `w-${newId('job')}`,
        leaseMs: 5000,
        heartbeatMs: 100,
        pollMs: 20,
        dialect: deps.dialect,
        onError: () => {},
      });
      await queue.start(
        {
          'render.run': {
            run: async (job) => {
              await transitionRender(deps, job.resourceId, { to: 'processing' });
              await new Promise<void>((_, reject) =>
                job.signal.addEventListener('abort', () => {
                  abortedAt = Date.now();
                  reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
                }),
              );
            },
            fail: async () => assert.fail('a cancelled job is not failed'),
          },
        },
        { concurrency: 1 },
      );
      try {
        const s = await openSse(`${svc.baseUrl}/v1/renders/${row.id}/events`, { authorization: `Bearer ${svc.apiKey}` });
        await s.until(['snapshot']);
        for (
          let i = 0;
          i < 200 &&
          (await deps.db.selectFrom('videos').select('status').where('id', '=', row.id).executeTakeFirstOrThrow()).status !== 'processing';
          i++
        ) {
          await new Promise((r) => setTimeout(r, 20));
        }
        const before = await balanceMilli(deps.db, svc.accountId);
        assert.equal(before.reserved, 7000);

        const { stdout } = await admin('render', 'cancel', row.id);
        const out = JSON.parse(stdout);
        assert.deepEqual(out, { id: row.id, status: 'cancelled', previous_status: 'processing' });

        const frames = await s.until(['cancelled'], 5000);
        assert.equal(frames[frames.length - 1].json.status, 'cancelled');
        assert.ok(frames[frames.length - 1].json.completed_at);
        assert.equal(await s.next(2000), null, 'stream closed');
        const deadline = Date.now() + 3000;
        while (!abortedAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.ok(abortedAt > 0, 'the worker running the job was aborted');

        assert.deepEqual(
          (await ledgerOf(deps.db, row.id)).map((l) => l.kind),
          ['reserve', 'release'],
        );
        assert.deepEqual(await balanceMilli(deps.db, svc.accountId), { available: before.available + 7000, reserved: 0 });
        const job = await deps.db.selectFrom('jobs').selectAll().where('resource_id', '=', row.id).executeTakeFirstOrThrow();
        assert.equal(job.status, 'cancelled');
        const video = await (await svc.request(`/v1/videos/${row.id}`)).json();
        assert.equal((video as any).status, 'cancelled');
      } finally {
        await queue.stop();
      }
    });

    it('refuses a terminal render (RENDER_NOT_CANCELLABLE) and an unknown one (RENDER_NOT_FOUND), changing nothing', async () => {
      const row = await insertQueuedRender(svc.wired.deps, svc.accountId, { reserveCredits: 1 });
      await transitionRender(svc.wired.deps, row.id, { to: 'ready', videoKey: 'k', alphaKey: null, durationMs: 800 });
      await assert.rejects(admin('render', 'cancel', row.id), (e: any) => e.code === 1 && /RENDER_NOT_CANCELLABLE/.test(e.stderr));
      await assert.rejects(admin('render', 'cancel', newId('render')), (e: any) => e.code === 1 && /RENDER_NOT_FOUND/.test(e.stderr));
      assert.deepEqual(
        (await ledgerOf(svc.wired.deps.db, row.id)).map((l) => l.kind),
        ['reserve', 'settle'],
      );
    });
  });
}
