import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { dbTargets, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { AppError } from '../../src/contracts/errors.js';
import { startWorkers } from '../../src/main/workers.js';
import { EmbeddedQueue } from '../../src/infra/queue/embedded-queue.js';
import { renderRunHandler } from '../../src/jobs/handlers/render-run.handler.js';
import { enqueueInTx } from '../../src/infra/queue/outbox.js';
import { transitionCharacter } from '../../src/domain/characters/characters.state.js';
import { cancelRender } from '../../src/domain/renders/render-cancel.service.js';
import { balanceMilli, insertQueuedRender, ledgerOf } from '../helpers/render-fixture.js';
import { scriptedEngine } from '../helpers/scripted-engine.js';

/**
 * Races around the end of a render, with the real queue and render.run handler (scripted engine):
 * a cancellation landing while outputs are uploaded, and a worker that lost its lease still running
 * next to the job's new owner. Each must end in one terminal state, one settlement or release, and
 * no orphan files in storage or in the job temp dirs.
 */
for (const t of await dbTargets()) {
  describe(`render.run races (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    const script: { render?: (call: number, signal: AbortSignal) => Promise<void>; analyze?: () => void } = {};
    const engine = scriptedEngine({ render: (call, signal) => script.render?.(call, signal), analyze: () => script.analyze?.() });

    before(async () => {
      svc = await startService({
        db: t.kind,
        credits: 100,
        env: { MARIONETTE_JOB_HEARTBEAT_MS: '100', MARIONETTE_JOB_LEASE_MS: '3000', MARIONETTE_JOB_MAX_ATTEMPTS: '2' },
      });
      svc.wired.deps.engine = engine;
      await startWorkers(svc.wired.deps);
    });
    after(async () => {
      await svc?.close();
    });

    const deps = () => svc.wired.deps;
    async function submit(accountId: string, reserveCredits: number) {
      const row = await insertQueuedRender(deps(), accountId, { reserveCredits });
      await deps()
        .db.transaction()
        .execute((tx) => enqueueInTx(tx, { type: 'render.run', resourceId: row.id, maxAttempts: 3 }));
      deps().queue.notify();
      return row;
    }
    async function waitFor<T>(fn: () => Promise<T | false | null | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    const video = (id: string) => deps().db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const jobOf = (id: string) => deps().db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
    const eventTypes = async (id: string) =>
      (await deps().db.selectFrom('render_events').select('type').where('render_id', '=', id).orderBy('sequence').execute()).map(
        (e) => e.type,
      );
    async function noWorkDirs() {
      const dir = join(deps().tmpDir, 'jobs');
      await waitFor(async () => !existsSync(dir) || (await readdir(dir)).length === 0, 'job temp dirs to be removed', 5000);
    }

    for (const when of ['before', 'after'] as const) {
      it(`a cancellation landing during the output upload (${when} the object is written): cancelled once, released, no orphan output`, async () => {
        const { accountId } = await svc.newAccount(10);
        const storage = deps().storage;
        const put = storage.putFile.bind(storage);
        let target = '';
        let cancelled = false;
        // Between the engine's end and the ready transition; the worker's signal is aborted at once.
        storage.putFile = async (key, file) => {
          const hit = key === `renders/${target}/output/video.mp4`;
          if (hit && when === 'before') await cancelRender(deps(), target);
          await put(key, file);
          if (hit && when === 'after') await cancelRender(deps(), target);
          if (hit) cancelled = true;
        };
        try {
          const row = await submit(accountId, 4);
          target = row.id;
          await waitFor(async () => cancelled && (await jobOf(row.id)).status !== 'active', 'the job to end');
          await noWorkDirs();
          const v = await video(row.id);
          assert.equal(v.status, 'cancelled');
          assert.equal(v.video_key, null);
          assert.equal(await storage.stat(`renders/${row.id}/output/video.mp4`), null, 'no orphan output for a cancelled render');
          assert.deepEqual(
            (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
            ['reserve', 'release'],
          );
          assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 10_000, reserved: 0 });
          const types = await eventTypes(row.id);
          assert.deepEqual(
            types.filter((x) => ['ready', 'failed', 'cancelled'].includes(x)),
            ['cancelled'],
            'exactly one terminal event',
          );
          assert.equal((await jobOf(row.id)).status, 'cancelled');
        } finally {
          storage.putFile = put;
        }
      });
    }

    it('a worker that lost its lease mid-upload runs next to the new owner: one ready, settled once, outputs kept', async () => {
      const { accountId } = await svc.newAccount(10);
      const storage = deps().storage;
      const put = storage.putFile.bind(storage);
      const first = engine.calls.render;
      let releaseB!: () => void;
      const bGate = new Promise<void>((r) => (releaseB = r));
      // The second run (the new owner) waits in the engine until the stale run has finished.
      script.render = async (call) => {
        if (call === first + 2) await bGate;
      };
      let target = '';
      let hooked = false;
      let resumeA!: () => void;
      const aGate = new Promise<void>((r) => (resumeA = r));
      const b = new EmbeddedQueue(deps().db, deps().pubsub, {
        workerId: 'worker-b',
        leaseMs: 3000,
        heartbeatMs: 100,
        pollMs: 20,
        dialect: deps().dialect,
        onError: () => {},
      });
      storage.putFile = async (key, file) => {
        if (!hooked && key === `renders/${target}/output/video.mp4`) {
          hooked = true;
          // Worker A froze past its lease here: the job is reclaimable, and worker B takes it.
          await deps()
            .db.updateTable('jobs')
            .set({ lease_owner: 'frozen-a', lease_expires_at: new Date(Date.now() - 1000).toISOString() })
            .where('resource_id', '=', target)
            .execute();
          await b.start({ 'render.run': renderRunHandler(deps()) }, { concurrency: 1 });
          await aGate;
        }
        await put(key, file);
      };
      try {
        const row = await submit(accountId, 4);
        target = row.id;
        await waitFor(async () => engine.calls.render >= first + 2, 'worker B to reach the engine');
        assert.equal((await jobOf(row.id)).lease_owner, 'worker-b');
        resumeA(); // the stale run uploads and tries to finish while B is still rendering
        await new Promise((r) => setTimeout(r, 400));
        assert.equal((await video(row.id)).status, 'processing', 'the stale run neither finished nor failed the render');
        releaseB();
        await waitFor(async () => (await jobOf(row.id)).status === 'completed', 'the job to complete');
        const v = await video(row.id);
        assert.equal(v.status, 'ready', v.error_json ?? '');
        const j = await jobOf(row.id);
        assert.equal(j.attempts, 2, 'the new owner finished on its first try (its work dir was not pulled from under it)');
        assert.deepEqual(
          (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
          ['reserve', 'settle'],
        );
        assert.deepEqual(
          (await eventTypes(row.id)).filter((x) => ['ready', 'failed', 'cancelled'].includes(x)),
          ['ready'],
        );
        assert.ok(await storage.stat(`renders/${row.id}/output/video.mp4`), 'the output of the ready render is kept');
        await noWorkDirs();
      } finally {
        script.render = undefined;
        storage.putFile = put;
        resumeA();
        releaseB();
        await b.stop();
      }
    });

    it('a permanent failure removes the job temp dir and any uploaded output', async () => {
      const { accountId } = await svc.newAccount(10);
      const storage = deps().storage;
      const put = storage.putFile.bind(storage);
      let target = '';
      // The video is written, then the upload step fails for good (as a refused input would).
      storage.putFile = async (key, file) => {
        await put(key, file);
        if (key === `renders/${target}/output/video.mp4`) throw new AppError('UNSUPPORTED_MEDIA', 'unreadable output');
      };
      try {
        const row = await submit(accountId, 4);
        target = row.id;
        await waitFor(async () => (await jobOf(row.id)).status === 'failed', 'the job to fail');
        const v = await video(row.id);
        assert.equal(v.status, 'failed');
        assert.equal(JSON.parse(v.error_json!).code, 'UNSUPPORTED_MEDIA');
        assert.equal(JSON.parse(v.error_json!).request_id, row.request_id);
        assert.equal(await storage.stat(`renders/${row.id}/output/video.mp4`), null);
        assert.deepEqual(
          (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
          ['reserve', 'release'],
        );
        await noWorkDirs();
      } finally {
        storage.putFile = put;
      }
    });
    it('a Character whose processing fails on every attempt is refunded exactly once, and its temp dir removed', async () => {
      const { accountId, apiKey } = await svc.newAccount(10);
      let attempts = 0;
      script.analyze = () => {
        attempts++;
        throw new Error('segfault in the matting model');
      };
      try {
        const fd = new FormData();
        fd.append('image', new Blob([await readFile(mediaFile('images/animate-x--4.png'))], { type: 'image/png' }), 'c.png');
        const res = await svc.request('/v1/characters', { method: 'POST', key: apiKey, body: fd });
        assert.ok(res.status < 300, await res.clone().text());
        const { id } = (await res.json()) as { id: string };
        await waitFor(async () => (await jobOf(id)).status === 'failed', 'the character job to give up');
        assert.equal(attempts, 2, 'retried up to max attempts');
        const c = await deps().db.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(c.status, 'failed');
        const kinds = (await ledgerOf(deps().db, id)).map((l) => l.kind);
        assert.deepEqual(kinds, ['charge', 'refund']);
        assert.equal(await transitionCharacter(deps().db, id, { to: 'failed', reason: 'again' }), null, 'a repeated failure is a no-op');
        assert.deepEqual(
          (await ledgerOf(deps().db, id)).map((l) => l.kind),
          ['charge', 'refund'],
          'still one refund',
        );
        assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 10_000, reserved: 0 });
        await noWorkDirs();
      } finally {
        script.analyze = undefined;
      }
    });
  });
}
