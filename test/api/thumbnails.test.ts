import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';
import { insertCharacterRow } from '../helpers/asset-rows.js';
import { motionThumbnailSvg } from '../../src/domain/assets/motion-thumbnail.js';

/**
 * Gallery pictures (additions to the interface, docs/api-decisions.md "Thumbnails"): a Character's
 * cut-out once ready and its uploaded picture before; a Motion's pose track drawn as SVG.
 */
for (const t of await dbTargets()) {
  describe(`thumbnails (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    let dir: string;
    before(async () => {
      svc = await startService({ db: t.kind, workers: true });
      dir = await mkdtemp(join(tmpdir(), 'marionette-thumbs-'));
    });
    after(async () => {
      await svc?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const png = async (name: string, rgba: [number, number, number, number]) => {
      const file = join(dir, name);
      await sharp({
        create: { width: 8, height: 12, channels: 4, background: { r: rgba[0], g: rgba[1], b: rgba[2], alpha: rgba[3] / 255 } },
      })
        .png()
        .toFile(file);
      return file;
    };
    const follow = async (path: string, key?: string) => {
      const res = await svc.request(path, { key });
      if (res.status !== 302) return { res, image: null };
      const image = await fetch(res.headers.get('location')!);
      return { res, image: Buffer.from(await image.arrayBuffer()) };
    };

    it("a Character shows its uploaded picture until ready, then its cut-out; nothing stored yet: 409; another account's: 404", async () => {
      const db = svc.wired.deps.db;
      const storage = svc.wired.deps.storage;
      const id = await insertCharacterRow(db, svc.accountId, 'processing');
      const none = await svc.request(`/v1/characters/${id}/thumbnail`);
      const err = await errorOf(none);
      assert.deepEqual([err.status, err.code, err.body.error.details.status], [409, 'INVALID_REQUEST', 'processing']);

      await storage.putFile(`characters/${id}/source`, await png('source.png', [255, 0, 0, 255]));
      await db
        .updateTable('characters')
        .set({ source_key: `characters/${id}/source` })
        .where('id', '=', id)
        .execute();
      const before = await follow(`/v1/characters/${id}/thumbnail`);
      assert.equal(before.res.status, 302);
      assert.equal(before.res.headers.get('cache-control'), 'no-store');
      const b = await sharp(before.image!).raw().toBuffer();
      assert.deepEqual([...b.subarray(0, 4)], [255, 0, 0, 255]);

      await storage.putFile(`characters/${id}/assets/texture.png`, await png('texture.png', [0, 0, 255, 0]));
      await db
        .updateTable('characters')
        .set({ status: 'ready', assets_key: `characters/${id}/assets` })
        .where('id', '=', id)
        .execute();
      const after = await follow(`/v1/characters/${id}/thumbnail`);
      assert.equal(after.res.status, 302);
      const a = await sharp(after.image!).raw().toBuffer();
      assert.equal(a[3], 0, 'the cut-out keeps its transparency');

      const other = await svc.newAccount();
      assert.equal((await errorOf(await svc.request(`/v1/characters/${id}/thumbnail`, { key: other.apiKey }))).code, 'CHARACTER_NOT_FOUND');
      assert.equal((await errorOf(await svc.request(`/v1/characters/mot_x/thumbnail`))).code, 'CHARACTER_NOT_FOUND');
      assert.equal((await errorOf(await svc.request(`/v1/characters/${id}/thumbnail`, { key: null }))).code, 'UNAUTHENTICATED');
    });

    it("a Motion's thumbnail is its pose track as SVG once ready; 409 before; another account's: 404", async () => {
      const res = await svc.request('/v1/motions/import', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template_id: 'tpl_jacks' }),
      });
      assert.equal(res.status, 200);
      const { id } = (await res.json()) as { id: string };
      const early = await svc.request(`/v1/motions/${id}/thumbnail`);
      if (early.status !== 200) assert.equal((await errorOf(early)).status, 409);
      else await early.body?.cancel();
      let status = '';
      for (let i = 0; i < 600 && status !== 'ready'; i++) {
        status = ((await (await svc.request(`/v1/motions/${id}`)).json()) as { status: string }).status;
        if (status !== 'ready') await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 'ready');
      const thumb = await svc.request(`/v1/motions/${id}/thumbnail`);
      assert.equal(thumb.status, 200);
      assert.match(thumb.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      const svg = await thumb.text();
      // Five moments of the jumping jacks, each a figure of limbs.
      assert.equal(svg.match(/<g opacity=/g)?.length, 5);
      assert.ok((svg.match(/<line /g)?.length ?? 0) >= 5 * 12);
      const raster = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
      assert.ok(raster.info.width > 0);
      const other = await svc.newAccount();
      assert.equal((await errorOf(await svc.request(`/v1/motions/${id}/thumbnail`, { key: other.apiKey }))).code, 'MOTION_NOT_FOUND');
    });
  });
}

describe('motionThumbnailSvg', () => {
  it('draws detected keypoints, skips unsure ones, and keeps gap-filled frames', () => {
    const kp = (x: number, y: number, score = 0.9) => ({ x, y, score });
    const body = Array.from({ length: 17 }, (_, i) => kp(10 + i, 20 + i));
    const frame = (timeMs: number, detected = true, b = body) => ({ timeMs, body: b, score: detected ? 0.9 : 0, detected });
    const track = {
      version: 1 as const,
      fps: 10,
      frameCount: 5,
      durationMs: 500,
      width: 64,
      height: 96,
      smoothing: false,
      frames: [] as any[],
    };
    track.frames = [0, 100, 200, 300, 400].map((t) => frame(t));
    const all = motionThumbnailSvg(track);
    assert.equal(all.match(/<line /g)?.length, 5 * 14);
    assert.match(all, /viewBox="0 0 64 96"/);
    // Left arm unsure in a detected frame: its 2 limbs (shoulder-elbow, elbow-wrist) are not drawn.
    const unsure = body.map((k, i) => (i === 7 ? { ...k, score: 0.05 } : k));
    track.frames = [0, 100, 200, 300, 400].map((t) => frame(t, true, unsure));
    assert.equal(motionThumbnailSvg(track).match(/<line /g)?.length, 5 * 12);
    // The same pose gap-filled (score 0, not detected) is drawn whole.
    track.frames = [0, 100, 200, 300, 400].map((t) =>
      frame(
        t,
        false,
        unsure.map((k) => ({ ...k, score: 0 })),
      ),
    );
    assert.equal(motionThumbnailSvg(track).match(/<line /g)?.length, 5 * 14);
  });
});
