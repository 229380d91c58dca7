import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import validator from 'gltf-validator';
import { dbTargets, hasSharedMedia, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { prepareMedia } from '../helpers/media-prep.js';

/**
 * A Motion with type=all through HTTP and the real engine: the 2D part and the 3D part both finish,
 * the export answers signed URLs for glb and fbx on both skeletons, and the downloaded bytes are a
 * valid glTF (Khronos validator) and a binary FBX.
 */
for (const t of await dbTargets()) {
  const skip = t.skip || (!hasSharedMedia() && NO_MEDIA_REASON);
  describe(`motion 3D end to end (${t.kind})`, { skip }, () => {
    let svc: TestService;
    let media: { dir: string; video: string; image: string };
    before(async () => {
      media = await prepareMedia({ seconds: 2 });
      svc = await startService({ db: t.kind, workers: true, credits: 10 });
    });
    after(async () => {
      await svc?.close();
      if (media) await rm(media.dir, { recursive: true, force: true });
    });

    it('type=all, joint_set=expression: ready with its glb part, exports download as valid glb and fbx, and cost nothing', async () => {
      const fd = new FormData();
      fd.append('type', 'all');
      fd.append('joint_set', 'expression');
      fd.append('target_fps', '12');
      fd.append('video', new Blob([await readFile(media.video)], { type: 'video/mp4' }), 'clip.mp4');
      const created = await svc.request('/v1/motions', { method: 'POST', body: fd });
      assert.equal(created.status, 200);
      const { id } = (await created.json()) as { id: string };
      let got: any;
      for (let i = 0; i < 600; i++) {
        got = await (await svc.request(`/v1/motions/${id}`)).json();
        if (['ready', 'failed', 'cancelled'].includes(got.status)) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.deepEqual([got.status, got.glb, got.capabilities], ['ready', { status: 'ready' }, ['video_render']]);
      const jobs = await svc.wired.deps.db
        .selectFrom('jobs')
        .select(['type', 'status'])
        .where('resource_id', '=', id)
        .orderBy('type')
        .execute();
      assert.deepEqual(
        jobs.map((j) => j.type),
        ['motion.extract', 'motion.glb'],
        'the 3D part is a job of its own',
      );
      for (const kind of ['glb', 'fbx'] as const) {
        const res = await svc.request(`/v1/motions/${id}/export?download_type=${kind}`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as { metahuman_url: string; mixamo_url: string };
        for (const url of [body.metahuman_url, body.mixamo_url]) {
          assert.match(url, /expires=\d+&sig=/);
          const tampered = url.replace(/sig=(.)/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
          assert.notEqual(tampered, url);
          assert.notEqual((await fetch(tampered)).status, 200, 'a URL with a wrong signature is refused');
          const file = await fetch(url);
          assert.equal(file.status, 200);
          const bytes = new Uint8Array(await file.arrayBuffer());
          if (kind === 'glb') {
            const report = await validator.validateBytes(bytes);
            assert.equal(report.issues.numErrors, 0);
          } else {
            assert.equal(Buffer.from(bytes.subarray(0, 20)).toString('latin1'), 'Kaydara FBX Binary  ');
            assert.equal(Buffer.from(bytes).readUInt32LE(23), 7400);
          }
        }
      }
      const bad = await svc.request(`/v1/motions/${id}/export?download_type=obj`);
      assert.equal(bad.status, 400);
      const credits = (await (await svc.request('/v1/credits')).json()) as { balance: number };
      assert.equal(credits.balance, 10, 'Motions cost nothing');
    });
  });
}
