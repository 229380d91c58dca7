import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';
import { balanceMilli, ledgerOf } from '../helpers/render-fixture.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { h3Size } from '../../src/domain/videos/video-request.js';

/**
 * POST /v1/videos field rules, errors and prices (DECISIONS "Videos"), through real HTTP without
 * workers: what is created and reserved at the door. Generation itself is in the e2e suite.
 */
const run = promisify(execFile);
const tools = resolveTools(process.env);

let media: { dir: string; image: string; video: string };

before(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'marionette-videos-'));
  const image = join(dir, 'frame.png');
  await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toFile(image);
  // A 2.4 s synthetic driving clip: its reservation is ceil(2.4) = 3 credits.
  const video = join(dir, 'driving.mp4');
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x240:rate=25',
    '-t',
    '2.4',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    video,
  ]);
  media = { dir, image, video };
});
after(async () => {
  if (media) await rm(media.dir, { recursive: true, force: true });
});

test('H3 sizes: the short side is the resolution, the long side follows the ratio, both even', () => {
  const short = { '480p': 480, '768p': 768, '1080p': 1080, '2k': 1440, '4k': 2160 } as const;
  for (const [res, s] of Object.entries(short)) {
    for (const ar of ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] as const) {
      const { width, height } = h3Size(res as keyof typeof short, ar);
      const [a, b] = ar.split(':').map(Number);
      assert.equal(Math.min(width, height), s, `${res} ${ar}`);
      assert.equal(width % 2, 0);
      assert.equal(height % 2, 0);
      assert.ok(Math.abs(width / height - a / b) < 0.01, `${res} ${ar}: ${width}x${height}`);
      assert.equal(width >= height, a >= b);
    }
  }
  assert.deepEqual(h3Size('768p', '16:9'), { width: 1366, height: 768 });
  assert.deepEqual(h3Size('4k', '16:9'), { width: 3840, height: 2160 });
});

for (const t of await dbTargets()) {
  describe(`POST /v1/videos (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 1000 });
    });
    after(async () => svc?.close());

    const json = (body: unknown, key?: string) =>
      svc.request('/v1/videos', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(key ? { key } : {}),
      });
    async function multipart(fields: Record<string, string | string[] | { file: string; type: string }>): Promise<Response> {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) {
        if (typeof v === 'string') fd.append(k, v);
        else if (Array.isArray(v)) for (const x of v) fd.append(k, x);
        else fd.append(k, new Blob([await readFile(v.file)], { type: v.type }), v.file.split('/').pop());
      }
      return svc.request('/v1/videos', { method: 'POST', body: fd });
    }
    const videoCount = async () =>
      Number(
        (
          await svc.wired.deps.db
            .selectFrom('videos')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('H3 from JSON: a queued vid_ Video with the seed; reserved ceil(duration) credits, 5x at 4k, whatever the quality', async () => {
      const cases = [
        { duration_s: 3, resolution: '768p', quality: 'low', credits: 3 },
        { duration_s: 15, resolution: '768p', quality: 'high', credits: 15 },
        { duration_s: 3, resolution: '4k', quality: 'high', credits: 15 },
        { duration_s: 15, resolution: '4k', quality: 'low', credits: 75 },
        { duration_s: 4.2, resolution: '1080p', quality: 'low', credits: 5 },
      ];
      for (const c of cases) {
        const res = await json({
          model: 'h3',
          prompt: 'a puppet waves on the beach',
          duration_s: c.duration_s,
          resolution: c.resolution,
          quality: c.quality,
          seed: 99,
        });
        assert.equal(res.status, 200, await res.clone().text());
        const body = (await res.json()) as any;
        assert.match(body.id, /^vid_/);
        assert.equal(body.status, 'queued');
        assert.equal(body.seed, 99);
        assert.equal(body.alpha_url, null);
        assert.equal(body.links, undefined);
        const ledger = await ledgerOf(svc.wired.deps.db, body.id);
        assert.deepEqual(
          ledger.map((l) => [l.kind, Number(l.amount_milli)]),
          [['reserve', -c.credits * 1000]],
          JSON.stringify(c),
        );
      }
    });

    test('a seed is drawn when absent; seed bounds are enforced', async () => {
      const a = (await (await json({ prompt: 'a dancer' })).json()) as any;
      assert.ok(Number.isInteger(a.seed) && a.seed >= 0 && a.seed <= 2147483647);
      for (const seed of [-1, 2147483648, 1.5, 'x']) {
        const e = await errorOf(await json({ prompt: 'a dancer', seed }));
        assert.equal(e.status, 400, String(seed));
        assert.equal(e.body.error.details.field, 'seed');
      }
    });

    test('every H3 field rule answers 400 naming the field, before anything is stored or charged', async () => {
      const before = await videoCount();
      const bal = await balanceMilli(svc.wired.deps.db, svc.accountId);
      const bad: Array<[Record<string, unknown>, string]> = [
        [{}, 'prompt'],
        [{ prompt: '   ' }, 'prompt'],
        [{ prompt: 'x'.repeat(2001) }, 'prompt'],
        [{ prompt: 'a', duration_s: 2 }, 'duration_s'],
        [{ prompt: 'a', duration_s: 16 }, 'duration_s'],
        [{ prompt: 'a', resolution: '720p' }, 'resolution'],
        [{ prompt: 'a', aspect_ratio: '2:1' }, 'aspect_ratio'],
        [{ prompt: 'a', quality: 'ultra' }, 'quality'],
        [{ prompt: 'a', enhance_mode: 'on' }, 'enhance_mode'],
        [{ prompt: 'a', target_tags: Array.from({ length: 9 }, (_, i) => `t${i}`) }, 'target_tags'],
        [{ prompt: 'a', target_tags: ['x'.repeat(65)] }, 'target_tags'],
        [{ prompt: 'a', watermark: 'maybe' }, 'watermark'],
        [{ prompt: 'a', model: 'sora' }, 'model'],
        [{ prompt: 'a', last_frame_image_url: 'https://example.com/a.png' }, 'last_frame_image'],
        [{ prompt: 'a', first_frame_image_url: 'http://127.0.0.1/a.png' }, 'first_frame_image_url'],
        [{ prompt: 'a', colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of bad) {
        const e = await errorOf(await json(body));
        assert.equal(e.status, 400, JSON.stringify(body));
        assert.equal(e.code, 'INVALID_REQUEST', JSON.stringify(body));
        assert.equal(e.body.error.details.field, field, JSON.stringify(body));
      }
      assert.equal(await videoCount(), before);
      assert.deepEqual(await balanceMilli(svc.wired.deps.db, svc.accountId), bal);
    });

    test('character fields without a driving video, or mode=animate without one: 400 DRIVING_VIDEO_REQUIRED, nothing stored', async () => {
      const before = await videoCount();
      const cases: Array<Record<string, unknown>> = [
        { mode: 'animate', prompt: 'dance' },
        { character_id: 'char_01JABCDEFGHJKMNPQRSTVWXYZ0' },
        { character_image_url: 'https://example.com/a.png', prompt: 'make it dance' },
        { mode: 'h3', prompt: 'a', character_id: 'char_01JABCDEFGHJKMNPQRSTVWXYZ0' },
      ];
      for (const body of cases) {
        const e = await errorOf(await json(body));
        assert.equal(e.status, 400, JSON.stringify(body));
        assert.equal(e.code, 'DRIVING_VIDEO_REQUIRED');
        assert.equal(e.body.error.retryable, false);
        assert.equal(e.body.error.remediation.action, 'correct_request');
        assert.match(e.body.error.message, /driving video/);
      }
      const e = await errorOf(await multipart({ character_image: { file: media.image, type: 'image/png' } }));
      assert.equal(e.code, 'DRIVING_VIDEO_REQUIRED');
      assert.equal(await videoCount(), before);
    });

    test('H3 multipart: first frame file, repeated target_tags, H3-only fields refused in animate mode', async () => {
      const res = await multipart({
        prompt: 'she walks then waves',
        first_frame_image: { file: media.image, type: 'image/png' },
        target_tags: ['walk', 'beach'],
        seed: '5',
        duration_s: '3',
      });
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as any;
      const row = await svc.wired.deps.db.selectFrom('videos').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      const params = JSON.parse(row.params_json!);
      assert.deepEqual(params.target_tags, ['walk', 'beach']);
      assert.equal(params.first_frame.kind, 'stored');
      assert.ok(await svc.wired.deps.storage.stat(params.first_frame.key), 'the first frame is kept for the worker');
      assert.equal(row.kind, 'h3');
      assert.equal(Number(row.seed), 5);

      const e = await errorOf(
        await multipart({
          driving_video: { file: media.video, type: 'video/mp4' },
          character_image: { file: media.image, type: 'image/png' },
          duration_s: '5',
        }),
      );
      assert.equal(e.status, 400);
      assert.deepEqual(e.body.error.details.fields, ['duration_s']);
      const notImage = await errorOf(await multipart({ prompt: 'x', first_frame_image: { file: media.video, type: 'image/png' } }));
      assert.equal(notImage.code, 'UNSUPPORTED_MEDIA');
    });

    test('animate: an anim_ Video reserving ceil(driving seconds); mode inferred from the driving video', async () => {
      const res = await multipart({
        character_image: { file: media.image, type: 'image/png' },
        driving_video: { file: media.video, type: 'video/mp4' },
        prompt: 'in the scene',
        seed: '3',
      });
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as any;
      assert.match(body.id, /^anim_/);
      assert.equal(body.status, 'queued');
      assert.equal(body.seed, undefined, 'seed is reported on vid_ videos only');
      const ledger = await ledgerOf(svc.wired.deps.db, body.id);
      assert.deepEqual(
        ledger.map((l) => [l.kind, Number(l.amount_milli)]),
        [['reserve', -3000]],
      );
      const row = await svc.wired.deps.db.selectFrom('videos').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      assert.equal(row.kind, 'animation');
      const job = await svc.wired.deps.db.selectFrom('jobs').selectAll().where('resource_id', '=', body.id).executeTakeFirstOrThrow();
      assert.equal(job.type, 'render.run');
      // Both families of the animate sources are exclusive.
      const two = await errorOf(
        await multipart({
          character_image: { file: media.image, type: 'image/png' },
          character_id: 'char_x',
          driving_video: { file: media.video, type: 'video/mp4' },
        }),
      );
      assert.equal(two.status, 400);
      assert.deepEqual(two.body.error.details.fields, ['character_image', 'character_id']);
      const h3WithDriving = await errorOf(
        await multipart({ mode: 'h3', prompt: 'x', driving_video: { file: media.video, type: 'video/mp4' } }),
      );
      assert.equal(h3WithDriving.status, 400);
    });

    test('GET /v1/videos lists vid_ and anim_ items with the Video shape; other accounts get 404', async () => {
      const page = (await (await svc.request('/v1/videos?limit=100')).json()) as any;
      const kinds = new Set(page.items.map((v: any) => v.id.split('_')[0]));
      assert.ok(kinds.has('vid') && kinds.has('anim'), [...kinds].join(','));
      for (const v of page.items) {
        const keys = Object.keys(v)
          .filter((k) => k !== 'seed' && k !== 'enhanced_prompt')
          .sort();
        assert.deepEqual(keys, ['alpha_url', 'completed_at', 'created_at', 'error', 'id', 'progress', 'stage', 'status', 'video_url']);
      }
      const other = await svc.newAccount(10);
      const someVid = page.items.find((v: any) => v.id.startsWith('vid_'));
      const res = await svc.request(`/v1/videos/${someVid.id}`, { key: other.apiKey });
      assert.equal(res.status, 404);
      const mine = (await (await svc.request(`/v1/videos/${someVid.id}`)).json()) as any;
      assert.equal(mine.id, someVid.id);
      assert.ok(Number.isInteger(mine.seed));
    });

    test('a short balance refuses with 402 and leaves nothing behind', async () => {
      const poor = await svc.newAccount(2);
      const before = await videoCount();
      const e = await errorOf(await json({ prompt: 'a long dance', duration_s: 5 }, poor.apiKey));
      assert.equal(e.status, 402);
      assert.equal(e.code, 'INSUFFICIENT_CREDITS');
      assert.equal(await videoCount(), before);
    });

    test('an unsupported content type is refused', async () => {
      const res = await svc.request('/v1/videos', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'prompt=hi' });
      assert.equal(res.status, 400);
    });
  });
}
