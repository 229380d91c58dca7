import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorkers } from '../../src/main/workers.js';
import { dbTargets, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { ledgerOf, balanceMilli } from '../helpers/render-fixture.js';
import { scriptedEngine } from '../helpers/scripted-engine.js';
import { form, legacyError } from '../helpers/legacy.js';
import { createEngine } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';

/**
 * The Legacy interface and V1 on one set of data, with the real queue and job handlers (the engine's
 * analysis and drawing are scripted; probing and encoding are real): a character made through /api
 * renders through /v1 and the result reads through /api, a render made through /api reads through
 * /v1, soft-deleted scenes and characters keep their renders working, and a Legacy cancel racing the
 * worker's completion settles exactly once.
 */

const IMAGE = mediaFile('images/mimicmotion--demo1.jpg');

for (const t of await dbTargets()) {
  describe(`legacy /api and /v1 on the same data (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    const script: { render?: (call: number, signal: AbortSignal) => Promise<void> } = {};
    const engine = scriptedEngine({ render: (call, signal) => script.render?.(call, signal) });

    before(async () => {
      svc = await startService({ db: t.kind, credits: 100, env: { MARIONETTE_JOB_HEARTBEAT_MS: '100' } });
      svc.wired.deps.engine = engine;
      await startWorkers(svc.wired.deps);
    });
    after(async () => {
      script.render = undefined;
      await svc?.close();
    });

    async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
      const end = Date.now() + ms;
      for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const json = async (path: string, init?: RequestInit & { key?: string | null }) =>
      (await svc.request(path, init)).json() as Promise<any>;
    const legacyStatus = (path: string, want: string) =>
      until(`${path} ${want}`, async () => ((await json(path)).status === want ? json(path) : null));
    async function readyCharacterAndScene(): Promise<{ character: string; scene: string }> {
      const c = await json('/api/characters/preprocess', {
        method: 'POST',
        body: await form({ ref_image: { file: IMAGE, name: 'hero.jpg' }, name: 'Hero' }),
      });
      const s = await json('/api/scenes/import', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template_uuid: 'wave' }),
      });
      await legacyStatus(`/api/characters/${c.id}`, 'ready');
      await legacyStatus(`/api/scenes/${s.scene_id}`, 'ready');
      return { character: c.id, scene: s.scene_id };
    }

    test('a character and scene made through /api render through /v1; the render reads through /api, and one made through /api reads through /v1', async () => {
      const { character, scene } = await readyCharacterAndScene();
      // V1 sees the Legacy-made assets as its own.
      assert.equal((await json(`/v1/characters/${character}`)).status, 'ready');
      assert.equal((await json(`/v1/motions/${scene}`)).status, 'ready');

      const v1 = await json('/v1/renders', { method: 'POST', body: await form({ character_id: character, motion_id: scene }) });
      assert.match(v1.id, /^render_/);
      const done = await legacyStatus(`/api/render/${v1.id}`, 'complete');
      assert.deepEqual([done.job_id, done.mode, done.progress, done.error], [v1.id, 'asset', 100, null]);
      const video = await fetch(done.cdn_url);
      assert.equal(video.status, 200);
      const bytes = Buffer.from(await video.arrayBuffer());
      assert.equal(bytes.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4 file');
      const v1Read = await json(`/v1/videos/${v1.id}`);
      assert.deepEqual([v1Read.status, v1Read.completed_at], ['ready', done.completed_at]);

      const legacy = await json('/api/render', {
        method: 'POST',
        body: await form({ character_id: character, scene_id: scene, background_mode: 'solid', bg_color: '10,20,30' }),
      });
      const ready = await until('V1 ready', async () =>
        (await json(`/v1/videos/${legacy.job_id}`)).status === 'ready' ? json(`/v1/videos/${legacy.job_id}`) : null,
      );
      assert.equal(ready.id, legacy.job_id);
      assert.ok(ready.video_url);
      const events = await svc.wired.deps.db
        .selectFrom('render_events')
        .select('type')
        .where('render_id', '=', legacy.job_id)
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        events.map((e) => e.type).filter((x) => x !== 'progress'),
        ['queued', 'processing', 'ready'],
        'the same event history as a V1 render',
      );
      // Settled at the measured 1.2 s of the template: 1.2 credits.
      assert.deepEqual(
        (await ledgerOf(svc.wired.deps.db, legacy.job_id)).map((l) => l.kind),
        ['reserve', 'settle'],
      );
    });

    test('soft-deleting the scene and the character while a render that uses them runs: success, the render still completes and reads', async () => {
      const { character, scene } = await readyCharacterAndScene();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let reached = false;
      script.render = async () => {
        reached = true;
        await gate;
      };
      try {
        const job = await json('/api/render', { method: 'POST', body: await form({ character_id: character, scene_id: scene }) });
        await until('the worker to reach the engine', async () => reached);
        assert.deepEqual(await json(`/api/scenes/${scene}`, { method: 'DELETE' }), { success: true });
        assert.deepEqual(await json(`/api/characters/${character}`, { method: 'DELETE' }), { success: true });
        release();
        const done = await legacyStatus(`/api/render/${job.job_id}`, 'complete');
        assert.equal((await fetch(done.cdn_url)).status, 200);
        // Deleted: no longer listed, readable or usable for new renders.
        assert.equal(
          (await json('/api/scenes')).scenes.some((s: any) => s.scene_id === scene),
          false,
        );
        const again = await legacyError(
          await svc.request('/api/render', { method: 'POST', body: await form({ character_id: character, scene_id: scene }) }),
        );
        assert.deepEqual([again.status, again.code], [404, 'CS-UORC01-003']);
        // A finished render that used them keeps reading, with a fresh URL each time.
        const later = await json(`/api/render/${job.job_id}`);
        assert.equal((await fetch(later.cdn_url)).status, 200);
      } finally {
        script.render = undefined;
        release();
      }
    });

    test('dynamic-fbx: a scene made with a driving video gets its 3D animation; the Legacy export answers the FBX files V1 exports', async () => {
      // Pose extraction is scripted to the real engine's template track (the pose model is not under
      // test); the 3D lift, retargeting and FBX writing are the real engine's.
      const real = createEngine({ tools: resolveTools(process.env) });
      const scripted = { extractMotion: engine.extractMotion, extractMotion3d: (engine as any).extractMotion3d };
      engine.extractMotion = async ({ outDir }) => real.writeTemplateMotion(real.listTemplates()[0].id, outDir);
      (engine as any).extractMotion3d = (input: any) => real.extractMotion3d(input);
      try {
        const started = await json('/api/extract/dynamic-fbx', {
          method: 'POST',
          body: await form({ driving_video: { file: mediaFile('videos/liveportrait--d18.mp4'), name: 'd.mp4' }, name: 'Moves' }),
        });
        assert.match(started.scene_id, /^mot_/);
        assert.equal(started.poll_url, `/api/scenes/${started.scene_id}`);
        await legacyStatus(`/api/scenes/${started.scene_id}`, 'ready');
        const exp = await json('/api/extract/dynamic-fbx', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ scene_id: started.scene_id }),
        });
        assert.equal(exp.status, 'ready', JSON.stringify(exp));
        assert.equal(exp.fbx_url, exp.metahuman_url);
        const v1 = await json(`/v1/motions/${started.scene_id}/export?download_type=fbx`);
        for (const [legacyUrl, v1Url] of [
          [exp.metahuman_url, v1.metahuman_url],
          [exp.mixamo_url, v1.mixamo_url],
        ]) {
          assert.equal(new URL(legacyUrl).pathname, new URL(v1Url).pathname);
          const bytes = Buffer.from(await (await fetch(legacyUrl)).arrayBuffer());
          assert.equal(bytes.subarray(0, 18).toString('latin1'), 'Kaydara FBX Binary', 'a binary FBX file');
        }
      } finally {
        engine.extractMotion = scripted.extractMotion;
        (engine as any).extractMotion3d = scripted.extractMotion3d;
      }
    });

    test('static-bin: a character made from an image gets its splat; the Legacy export answers bin_url, the PLY V1 exports', async () => {
      // Character analysis and the splat are the real engine's here (the splat is built from the analysis).
      const real = createEngine({ tools: resolveTools(process.env) });
      const scripted = {
        analyzeCharacter: engine.analyzeCharacter,
        loadCharacter: engine.loadCharacter,
        extractVsplat: (engine as any).extractVsplat,
      };
      engine.analyzeCharacter = (input) => real.analyzeCharacter(input);
      engine.loadCharacter = (dir) => real.loadCharacter(dir);
      (engine as any).extractVsplat = (input: any) => real.extractVsplat(input);
      try {
        const started = await json('/api/extract/static-bin', {
          method: 'POST',
          body: await form({ ref_image: { file: IMAGE, name: 'hero.jpg' }, fp: 'fp16', model: 'splat-v1' }),
        });
        assert.match(started.character_id, /^char_/, JSON.stringify(started));
        await until(
          'the character to be ready',
          async () => {
            const c = await json(`/api/characters/${started.character_id}`);
            if (c.status === 'failed')
              throw new Error(`character failed: ${JSON.stringify(await json(`/v1/characters/${started.character_id}`))}`);
            return c.status === 'ready';
          },
          240_000,
        );
        const exp = await json('/api/extract/static-bin', { method: 'POST', body: await form({ character_id: started.character_id }) });
        assert.equal(exp.status, 'ready', JSON.stringify(exp));
        assert.equal(exp.bin_url, exp.vsplat_url);
        const v1 = await json(`/v1/characters/${started.character_id}/export?download_type=vsplat`);
        assert.equal(new URL(exp.bin_url).pathname, new URL(v1.vsplat_url).pathname);
        const bytes = Buffer.from(await (await fetch(exp.bin_url)).arrayBuffer());
        assert.equal(bytes.subarray(0, 4).toString('latin1'), 'ply\n', 'a PLY file');
        assert.match(bytes.subarray(0, 400).toString('latin1'), /format binary_little_endian/);
      } finally {
        engine.analyzeCharacter = scripted.analyzeCharacter;
        engine.loadCharacter = scripted.loadCharacter;
        (engine as any).extractVsplat = scripted.extractVsplat;
      }
    });

    test('a Legacy cancel racing the worker finishing the render settles exactly once (8 races)', async () => {
      const { character, scene } = await readyCharacterAndScene();
      const acct = { key: svc.apiKey };
      const outcomes: string[] = [];
      for (let i = 0; i < 8; i++) {
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let reached = false;
        script.render = async () => {
          reached = true;
          await gate;
        };
        const before = await balanceMilli(svc.wired.deps.db, svc.accountId);
        const job = await json('/api/render', { method: 'POST', body: await form({ character_id: character, scene_id: scene }), ...acct });
        await until('the worker to reach the engine', async () => reached);
        // The worker finishes (encode, upload, ready) while the DELETE is on its way.
        const lag = i * 15;
        const [answer] = await Promise.all([
          new Promise((r) => setTimeout(r, lag)).then(() => json(`/api/render/${job.job_id}`, { method: 'DELETE' })),
          Promise.resolve().then(release),
        ]);
        const final = await until('a terminal state', async () => {
          const v = await json(`/v1/videos/${job.job_id}`);
          return ['ready', 'cancelled'].includes(v.status) ? v : null;
        });
        const jobRow = await until('the job to end', async () => {
          const j = await svc.wired.deps.db
            .selectFrom('jobs')
            .select('status')
            .where('resource_id', '=', job.job_id)
            .executeTakeFirstOrThrow();
          return j.status !== 'active' && j.status !== 'queued' ? j : null;
        });
        const kinds = (await ledgerOf(svc.wired.deps.db, job.job_id)).map((l) => l.kind);
        const events = (
          await svc.wired.deps.db.selectFrom('render_events').select('type').where('render_id', '=', job.job_id).execute()
        ).map((e) => e.type);
        assert.equal(events.filter((e) => ['ready', 'failed', 'cancelled'].includes(e)).length, 1, `one terminal event: ${events}`);
        assert.equal(answer.status, final.status === 'ready' ? 'complete' : 'cancelled', 'the DELETE answers the outcome that stuck');
        assert.equal(answer.cancelled, final.status === 'cancelled');
        assert.deepEqual(kinds, ['reserve', final.status === 'ready' ? 'settle' : 'release']);
        const after = await balanceMilli(svc.wired.deps.db, svc.accountId);
        assert.equal(after.reserved, before.reserved);
        assert.equal(
          before.available - after.available,
          final.status === 'ready' ? 1200 : 0,
          'charged 1.2 credits when complete, nothing when cancelled',
        );
        if (final.status === 'cancelled') {
          assert.equal(jobRow.status, 'cancelled');
          // The job is marked cancelled at once; the worker may still be uploading, then discards what it wrote.
          await until(
            'no orphan output',
            async () => (await svc.wired.deps.storage.stat(`renders/${job.job_id}/output/video.mp4`)) === null,
            5000,
          );
        }
        outcomes.push(final.status);
      }
      script.render = undefined;
      process.stdout.write(`# legacy cancel vs worker (${t.kind}): ${outcomes.join(', ')}\n`);
    });
  });
}
