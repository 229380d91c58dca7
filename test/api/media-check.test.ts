import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { checkImageFile, checkVideoFile } from '../../src/domain/media/media-check.js';
import { isAppError } from '../../src/contracts/errors.js';

/**
 * Media checked at the door (DECISIONS "Media limits"): types by content, byte and pixel limits,
 * video container and duration, through POST /v1/characters and POST /v1/motions on both
 * databases. A refused file is 422 UNSUPPORTED_MEDIA and leaves nothing behind: no temp file, no
 * stored object, no row, no ledger movement.
 */
let work: string;
const clip: Record<string, string> = {};

function ffmpeg(args: string[]): void {
  execFileSync(resolveTools({}).ffmpeg, ['-v', 'error', '-y', ...args], { stdio: 'ignore' });
}

async function makeFixtures(): Promise<void> {
  work = await mkdtemp(join(tmpdir(), 'marionette-media-'));
  const src = (size: string, seconds: number) => [
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${size}:rate=10`,
    '-t',
    String(seconds),
    '-pix_fmt',
    'yuv420p',
  ];
  clip.short = join(work, 'short.mp4');
  ffmpeg([...src('128x128', 0.3), '-c:v', 'libx264', clip.short]);
  clip.tiny = join(work, 'tiny.mp4');
  ffmpeg([...src('32x32', 1), '-c:v', 'libx264', clip.tiny]);
  clip.mov = join(work, 'clip.mov');
  ffmpeg([...src('128x96', 1), '-c:v', 'libx264', '-f', 'mov', clip.mov]);
  clip.webm = join(work, 'clip.webm');
  ffmpeg([...src('96x96', 1), '-c:v', 'libvpx-vp9', '-b:v', '100k', clip.webm]);
  clip.mkv = join(work, 'clip.mkv');
  ffmpeg([...src('96x96', 1), '-c:v', 'mpeg4', '-f', 'matroska', clip.mkv]);
  clip.text = join(work, 'notes.png');
  await writeFile(clip.text, 'this is plain text pretending to be a PNG\n'.repeat(20));
  // 600x600 of one colour: far over 512 px per side, far under 4096 bytes.
  clip.wide = join(work, 'wide.png');
  await sharp({ create: { width: 600, height: 600, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png({ palette: true })
    .toFile(clip.wide);
  clip.webp = join(work, 'figure.webp');
  await sharp(mediaFile('images/animateddrawings--char1-mask.png')).webp().toFile(clip.webp);
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  await walk(dir);
  return out.sort();
}

/** Everything a request could have left: files in the data dir (tmp and storage), rows, ledger. */
async function footprint(svc: TestService) {
  const db = svc.wired.deps.db;
  return {
    files: (await filesUnder(svc.config.dataDir)).filter((f) => !/\.sqlite(-wal|-shm)?$/.test(f)),
    characters: (await db.selectFrom('characters').select('id').execute()).length,
    motions: (await db.selectFrom('motions').select('id').execute()).length,
    ledger: (await db.selectFrom('ledger').select('id').execute()).length,
    jobs: (await db.selectFrom('jobs').select('id').execute()).length,
  };
}

async function post(svc: TestService, path: '/v1/characters' | '/v1/motions', file: string, name = 'upload.bin'): Promise<Response> {
  const body = new FormData();
  body.append(path === '/v1/characters' ? 'image' : 'video', await openAsBlob(file), name);
  return svc.request(path, { method: 'POST', body });
}

async function expectRefused(
  svc: TestService,
  path: '/v1/characters' | '/v1/motions',
  file: string,
  detail?: (d: Record<string, unknown>) => void,
) {
  const before = await footprint(svc);
  const err = await errorOf(await post(svc, path, file));
  assert.equal(err.status, 422, `${path} ${file}: ${JSON.stringify(err.body)}`);
  assert.equal(err.code, 'UNSUPPORTED_MEDIA');
  assert.equal(err.body.error.retryable, false);
  assert.equal(err.body.error.remediation.action, 'fix_input');
  assert.ok(!JSON.stringify(err.body).includes(svc.config.dataDir), 'no server path leaks');
  detail?.(err.body.error.details);
  assert.deepEqual(await footprint(svc), before, 'nothing is left behind');
}

before(async () => {
  if (hasSharedMedia()) await makeFixtures();
});
after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

// One service per suite: each test service owns a fresh PostgreSQL schema.
for (const t of await dbTargets()) {
  describe(`media checked at the door, default limits (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 100 });
    });
    after(async () => svc?.close());

    it('accepts PNG, JPEG and WebP by content, whatever the name says', async () => {
      for (const file of [
        mediaFile('images/animate-x--4.png'),
        mediaFile('images/mimicmotion--demo1.jpg'),
        mediaFile('images/musepose--ref.png'),
        clip.webp,
      ]) {
        const res = await post(svc, '/v1/characters', file, 'whatever.gif');
        assert.equal(res.status, 200, file);
        const { id } = (await res.json()) as { id: string };
        assert.ok(await svc.wired.deps.storage.stat(`characters/${id}/source`));
      }
    });

    it('refuses a text file named .png and a video sent as an image', async () => {
      await expectRefused(svc, '/v1/characters', clip.text, (d) => assert.equal(d.media, 'image'));
      await expectRefused(svc, '/v1/characters', mediaFile('videos/liveportrait--d18.mp4'));
    });

    it('refuses an image over 4096 px per side by default, naming its size', async () => {
      await expectRefused(svc, '/v1/characters', mediaFile('images/4d-humans--pexels-anete-lusina-4793258.jpg'), (d) => {
        assert.deepEqual([d.width, d.height, d.max_side_px], [4016, 6016, 4096]);
      });
    });

    it('refuses a truncated PNG or JPEG whose header is intact (decoded in full at the door)', async () => {
      for (const [source, name] of [
        ['images/animate-x--4.png', 'cut.png'],
        ['images/mimicmotion--demo1.jpg', 'cut.jpg'],
      ]) {
        const bytes = await readFile(mediaFile(source));
        const cut = join(work, name);
        await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
        const header = await sharp(cut).metadata();
        assert.ok(header.width && header.height, 'the header alone still reads');
        await expectRefused(svc, '/v1/characters', cut, (d) => assert.equal(d.media, 'image'));
        const form = new FormData();
        form.append('image', await openAsBlob(cut), name);
        form.append('motion_video_url', 'https://example.com/v.mp4');
        const before = await footprint(svc);
        const err = await errorOf(await svc.request('/v1/renders', { method: 'POST', body: form }));
        assert.deepEqual([err.status, err.code], [422, 'UNSUPPORTED_MEDIA'], `${name} as a render input`);
        assert.deepEqual(await footprint(svc), before);
      }
    });

    it('accepts MP4, MOV and WebM driving videos by content', async () => {
      for (const file of [mediaFile('videos/liveportrait--d18.mp4'), clip.mov, clip.webm]) {
        const res = await post(svc, '/v1/motions', file, 'clip.avi');
        assert.equal(res.status, 200, file);
        const { id } = (await res.json()) as { id: string };
        const row = await svc.wired.deps.db.selectFrom('motions').select(['duration_ms']).where('id', '=', id).executeTakeFirstOrThrow();
        assert.ok(Number(row.duration_ms) >= 900, `${file}: ${row.duration_ms}`);
      }
    });

    it('refuses videos that are too short, too small, in another container, or not video at all', async () => {
      await expectRefused(svc, '/v1/motions', clip.short, (d) => {
        assert.ok(Number(d.duration_ms) < 500);
        assert.equal(d.min_duration_ms, 500);
      });
      await expectRefused(svc, '/v1/motions', clip.tiny, (d) => assert.equal(d.min_side_px, 64));
      await expectRefused(svc, '/v1/motions', clip.mkv);
      await expectRefused(svc, '/v1/motions', clip.text);
      await expectRefused(svc, '/v1/motions', mediaFile('images/animate-x--4.png'));
    });

    it('checkImageFile / checkVideoFile return what they measured and never leak the file path', async () => {
      const info = await checkImageFile(svc.wired.deps, mediaFile('images/musepose--ref.png'));
      assert.deepEqual([info.format, info.width, info.height], ['jpeg', 704, 1216]);
      await assert.rejects(checkVideoFile(svc.wired.deps, clip.text), (e: unknown) => {
        assert.ok(isAppError(e) && e.code === 'UNSUPPORTED_MEDIA');
        assert.ok(!e.message.includes(work) && !JSON.stringify(e.details).includes(work));
        return true;
      });
      const video = await checkVideoFile(svc.wired.deps, clip.webm);
      assert.deepEqual([video.container, video.width, video.height], ['webm', 96, 96]);
    });
  });

  describe(`media checked at the door, configured limits (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let tight: TestService;
    before(async () => {
      tight = await startService({
        db: t.kind,
        env: {
          MARIONETTE_MAX_IMAGE_BYTES: '4096',
          MARIONETTE_MAX_IMAGE_SIDE: '512',
          MARIONETTE_MIN_VIDEO_MS: '7500',
          MARIONETTE_MAX_VIDEO_BYTES: '1048576',
        },
      });
    });
    after(async () => tight?.close());

    it('applies configured image byte and side limits', async () => {
      await expectRefused(tight, '/v1/characters', mediaFile('images/animateddrawings--char1-mask.png'), (d) =>
        assert.equal(d.limit_bytes, 4096),
      );
      await expectRefused(tight, '/v1/characters', clip.wide, (d) => assert.deepEqual([d.width, d.height, d.max_side_px], [600, 600, 512]));
      const small = join(work, 'small.png');
      await sharp(mediaFile('images/animateddrawings--char1-mask.png')).resize(64).png({ palette: true }).toFile(small);
      assert.equal((await post(tight, '/v1/characters', small)).status, 200, 'a file within both limits passes');
    });

    it('refuses a form far over the image limit up front, from its Content-Length', async () => {
      const before = await footprint(tight);
      const body = new FormData();
      body.append('image', new Blob([Buffer.alloc(1_200_000, 7)]), 'huge.png');
      const err = await errorOf(await tight.request('/v1/characters', { method: 'POST', body }));
      assert.equal(err.status, 422);
      assert.equal(err.code, 'UNSUPPORTED_MEDIA');
      assert.equal(err.body.error.details.limit_bytes, 4096);
      assert.ok(Number(err.body.error.details.content_length) > 1_200_000);
      assert.deepEqual(await footprint(tight), before);
    });

    it('applies configured video duration and byte limits', async () => {
      await expectRefused(tight, '/v1/motions', mediaFile('videos/animate-x--dance_3.mp4'), (d) => assert.equal(d.limit_bytes, 1048576));
      await expectRefused(tight, '/v1/motions', mediaFile('videos/liveportrait--d18.mp4'), (d) => {
        assert.equal(d.min_duration_ms, 7500);
        assert.ok(Math.abs(Number(d.duration_ms) - 7200) < 200);
      });
      assert.equal((await post(tight, '/v1/motions', mediaFile('videos/liveportrait--d19.mp4'))).status, 200, '8.4 s within both limits');
    });

    it('checkImageFile refuses by size before decoding, with the measured size and the limit', async () => {
      await assert.rejects(checkImageFile(tight.wired.deps, mediaFile('images/animate-x--4.png')), (e: unknown) => {
        assert.ok(isAppError(e) && e.code === 'UNSUPPORTED_MEDIA' && e.status === 422);
        assert.equal(e.details.limit_bytes, 4096);
        assert.ok(Number(e.details.size_bytes) > 4096);
        return true;
      });
    });
  });
}
