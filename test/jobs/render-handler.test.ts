import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dbTargets,
  hasSharedMedia,
  mediaFile,
  NO_MEDIA_REASON,
  serveHttp,
  startService,
  type HttpOrigin,
  type TestService,
} from '../helpers/harness.js';
import { startWorkers } from '../../src/main/workers.js';
import { removeOrphanWorkDirs } from '../../src/jobs/asset-transfer.js';
import { newId } from '../../src/contracts/ids.js';
import { enqueueInTx } from '../../src/infra/queue/outbox.js';
import { cancelRender } from '../../src/domain/renders/render-cancel.service.js';
import { EngineError } from '../../src/engine/types.js';
import { resolveTools, runProcess } from '../../src/engine/media/ffmpeg.js';
import { balanceMilli, insertQueuedRender, ledgerOf } from '../helpers/render-fixture.js';
import { scriptedEngine } from '../helpers/scripted-engine.js';

/**
 * The render.run handler and the queue together, with a scripted engine (the animation is not under
 * test here; the real engine is exercised by test/e2e): failures map to public codes, temporary
 * failures are retried, URL motions reserve after measuring, cancellation stops the engine.
 */
for (const t of await dbTargets()) {
  describe(`render.run handler (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    let server: HttpOrigin;
    let mediaDir: string;
    let videoUrl: string;
    const engine = scriptedEngine({
      analyze: (call) => {
        if (engineScript.analyzeFails?.(call)) throw engineScript.analyzeFails(call);
      },
      render: async (call, signal) => {
        await engineScript.render?.(call, signal);
      },
    });
    const engineScript: {
      analyzeFails?: (call: number) => Error | undefined;
      render?: (call: number, signal: AbortSignal) => Promise<void>;
    } = {};

    before(async () => {
      mediaDir = await mkdtemp(join(tmpdir(), 'marionette-handler-'));
      const video = join(mediaDir, 'clip.mp4');
      await runProcess(resolveTools(process.env).ffmpeg, [
        '-v',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=128x128:rate=10:duration=3.2',
        '-pix_fmt',
        'yuv420p',
        video,
      ]);
      server = await serveHttp((_req, res) => {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        createReadStream(video).pipe(res);
      });
      videoUrl = `${server.url}/clip.mp4`;
      svc = await startService({
        db: t.kind,
        credits: 100,
        env: {
          MARIONETTE_URL_ALLOW_LIST: '127.0.0.1',
          MARIONETTE_JOB_HEARTBEAT_MS: '100',
          MARIONETTE_JOB_LEASE_MS: '3000',
          MARIONETTE_JOB_MAX_ATTEMPTS: '3',
        },
      });
      svc.wired.deps.engine = engine;
      await startWorkers(svc.wired.deps);
    });
    after(async () => {
      await svc?.close();
      await server?.close();
      await rm(mediaDir, { recursive: true, force: true });
    });

    const deps = () => svc.wired.deps;
    async function submit(accountId: string, opts: Parameters<typeof insertQueuedRender>[2]) {
      const row = await insertQueuedRender(deps(), accountId, opts);
      await deps()
        .db.transaction()
        .execute((tx) => enqueueInTx(tx, { type: 'render.run', resourceId: row.id, maxAttempts: 3 }));
      deps().queue.notify();
      return row;
    }
    async function settled(id: string, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const v = await deps().db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        if (['ready', 'failed', 'cancelled'].includes(v.status)) return v;
        if (Date.now() > end) throw new Error(`render ${id} still ${v.status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    /** The job row once the worker finished its bookkeeping (it follows the render's terminal state). */
    async function job(id: string) {
      for (let i = 0; ; i++) {
        const j = await deps().db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
        if (j.status !== 'active' || i > 100) return j;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    /** Work dirs go in the handler's `finally`, after the render's terminal transition: wait for the job first. */
    const noWorkDirs = async (renderId: string) => {
      await job(renderId);
      const dir = join(deps().tmpDir, 'jobs');
      assert.deepEqual(existsSync(dir) ? await readdir(dir) : [], []);
    };

    it('a URL motion is measured, reserved as ceil(seconds), rendered and settled at the output duration', async () => {
      const { accountId } = await svc.newAccount(10);
      const row = await submit(accountId, { reserveCredits: 0, motionSource: { kind: 'url', url: videoUrl } });
      const v = await settled(row.id);
      assert.equal(v.status, 'ready', v.error_json ?? '');
      assert.equal(Number(v.reserved_milli), 4000, 'ceil(3.2 s) = 4 credits');
      assert.ok(Math.abs(Number(v.duration_ms) - 3200) <= 100);
      assert.deepEqual(
        (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
        ['reserve', 'settle'],
      );
      const bal = await balanceMilli(deps().db, accountId);
      assert.equal(bal.reserved, 0);
      assert.equal(bal.available, 10_000 - Number(v.duration_ms));
      assert.ok(await deps().storage.stat(`renders/${row.id}/output/video.mp4`));
      assert.ok(await deps().storage.stat('builtin/character/assets/character.json'), 'the built-in character is cached');
      await noWorkDirs(row.id);
    });

    it('a URL motion longer than the balance fails with INSUFFICIENT_CREDITS before rendering', async () => {
      const { accountId } = await svc.newAccount(2);
      const before = engine.calls.render;
      const row = await submit(accountId, { reserveCredits: 0, motionSource: { kind: 'url', url: videoUrl } });
      const v = await settled(row.id);
      assert.equal(v.status, 'failed');
      const err = JSON.parse(v.error_json!);
      assert.equal(err.code, 'INSUFFICIENT_CREDITS');
      assert.equal(err.request_id, row.request_id);
      assert.equal(engine.calls.render, before, 'nothing was rendered');
      assert.deepEqual(await ledgerOf(deps().db, row.id), []);
      assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 2000, reserved: 0 });
      assert.equal((await job(row.id)).attempts, 1, 'not retried');
    });

    it('an engine refusal fails the render at once with its code and releases the reservation', async () => {
      const { accountId } = await svc.newAccount(10);
      engineScript.analyzeFails = () =>
        new EngineError('INVALID_CHARACTER', 'No riggable figure was found in the picture.', { reason: 'no_figure' });
      try {
        const key = `renders/test-${accountId}/inputs/image`;
        await deps().storage.putFile(key, mediaFile('images/animate-x--4.png'));
        const row = await submit(accountId, {
          reserveCredits: 3,
          characterSource: { kind: 'stored', key },
          motionSource: { kind: 'template', id: 'wave' },
        });
        const v = await settled(row.id);
        assert.equal(v.status, 'failed');
        const err = JSON.parse(v.error_json!);
        assert.deepEqual(
          [err.code, err.retryable, err.details, err.remediation.action],
          ['INVALID_CHARACTER', false, { reason: 'no_figure' }, 'fix_input'],
        );
        assert.deepEqual(
          (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
          ['reserve', 'release'],
        );
        assert.equal((await job(row.id)).attempts, 1);
      } finally {
        engineScript.analyzeFails = undefined;
      }
    });

    it('unexpected engine crashes are retried with backoff and the third attempt succeeds, settled once', async () => {
      const { accountId } = await svc.newAccount(10);
      const start = engine.calls.render;
      engineScript.render = async (call) => {
        if (call - start <= 2) throw new Error('out of memory in the rasteriser');
      };
      try {
        const row = await submit(accountId, { reserveCredits: 2 });
        const v = await settled(row.id, 30_000);
        assert.equal(v.status, 'ready', v.error_json ?? '');
        const j = await job(row.id);
        assert.equal(j.attempts, 3);
        assert.equal(j.status, 'completed');
        assert.deepEqual(
          (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
          ['reserve', 'settle'],
        );
        const events = await deps()
          .db.selectFrom('render_events')
          .select(['type', 'data_json'])
          .where('render_id', '=', row.id)
          .orderBy('sequence')
          .execute();
        assert.equal(events.filter((e) => e.type === 'processing').length, 1, 'a retry does not announce processing again');
        const progress = events.filter((e) => e.type === 'progress').map((e) => JSON.parse(e.data_json).progress as number);
        assert.deepEqual(
          progress,
          [...progress].sort((a, b) => a - b),
          'progress never goes backwards across attempts',
        );
      } finally {
        engineScript.render = undefined;
      }
    });

    it('cancellation stops the engine mid-render: cancelled, released, no output, no temp files', async () => {
      const { accountId } = await svc.newAccount(10);
      let rendering!: () => void;
      const started = new Promise<void>((r) => (rendering = r));
      let stoppedAfterMs = -1;
      engineScript.render = (_call, signal) =>
        new Promise<void>((_, reject) => {
          rendering();
          const t0 = Date.now();
          signal.addEventListener('abort', () => {
            stoppedAfterMs = Date.now() - t0;
            reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
          });
        });
      try {
        const row = await submit(accountId, { reserveCredits: 5 });
        await started;
        const out = await cancelRender(deps(), row.id);
        assert.equal(out.status, 'cancelled');
        const v = await settled(row.id);
        assert.equal(v.status, 'cancelled');
        for (let i = 0; i < 100 && stoppedAfterMs < 0; i++) await new Promise((r) => setTimeout(r, 20));
        assert.ok(stoppedAfterMs >= 0, 'the engine saw the abort');
        await new Promise((r) => setTimeout(r, 200));
        assert.equal((await job(row.id)).status, 'cancelled');
        assert.equal(await deps().storage.stat(`renders/${row.id}/output/video.mp4`), null);
        assert.deepEqual(
          (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
          ['reserve', 'release'],
        );
        await noWorkDirs(row.id);
      } finally {
        engineScript.render = undefined;
      }
    });

    it('worker start removes work dirs of dead jobs and keeps those of jobs another worker still holds', async () => {
      const live = newId('job');
      const dead = newId('job');
      const now = new Date().toISOString();
      await deps()
        .db.insertInto('jobs')
        .values({
          id: live,
          type: 'render.run',
          resource_id: `other-${live}`,
          payload_json: '{}',
          status: 'active',
          attempts: 1,
          max_attempts: 3,
          run_at: now,
          lease_owner: 'another-worker',
          lease_expires_at: new Date(Date.now() + 60_000).toISOString(),
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (const id of [live, dead]) {
        await mkdir(join(deps().tmpDir, 'jobs', id, 'out'), { recursive: true });
        await writeFile(join(deps().tmpDir, 'jobs', id, 'out', 'frame.png'), 'x');
      }
      const removed = await removeOrphanWorkDirs(deps());
      assert.deepEqual(removed, [dead]);
      assert.deepEqual(await readdir(join(deps().tmpDir, 'jobs')), [live]);
      await deps().db.deleteFrom('jobs').where('id', '=', live).execute();
      await rm(join(deps().tmpDir, 'jobs', live), { recursive: true, force: true });
    });
  });
}
