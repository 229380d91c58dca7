import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { decodeFrames, extractAudio, resolveTools, runFfmpeg } from '../../src/engine/media/ffmpeg.js';
import { probeImage, probeVideo } from '../../src/engine/media/probe.js';
import { EngineError } from '../../src/engine/types.js';
import { mediaPath, missingMedia } from '../helpers/engine-fixtures.js';

const tools = resolveTools({});
let tmp: string;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-media-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const isCode = (code: string) => (err: unknown) => err instanceof EngineError && err.code === code;

describe('resolveTools', () => {
  it('finds the bundled binaries and honours overrides from the given env', () => {
    assert.ok(existsSync(tools.ffmpeg) && existsSync(tools.ffprobe));
    assert.deepEqual(resolveTools({ FFMPEG_PATH: '/x/ffmpeg', FFPROBE_PATH: '/x/ffprobe' }), {
      ffmpeg: '/x/ffmpeg',
      ffprobe: '/x/ffprobe',
    });
  });
});

describe('probeImage', () => {
  it('reads JPEG bytes behind a .png name as JPEG', { skip: missingMedia('images/musepose--ref.png') }, async () => {
    assert.deepEqual(await probeImage(mediaPath('images/musepose--ref.png')), {
      format: 'jpeg',
      width: 704,
      height: 1216,
      hasAlpha: false,
    });
  });

  it('reports PNG size and alpha', { skip: missingMedia('images/animateddrawings--char1-texture.png') }, async () => {
    const info = await probeImage(mediaPath('images/animateddrawings--char1-texture.png'));
    assert.deepEqual(info, { format: 'png', width: 508, height: 602, hasAlpha: true });
    const photo = await probeImage(mediaPath('images/mimicmotion--demo1.jpg'));
    assert.deepEqual([photo.format, photo.width, photo.height], ['jpeg', 1080, 1920]);
  });

  it('applies EXIF orientation to the reported size', async () => {
    const file = join(tmp, 'rotated.jpg');
    await sharp({ create: { width: 120, height: 40, channels: 3, background: '#808080' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toFile(file);
    const info = await probeImage(file);
    assert.deepEqual([info.width, info.height], [40, 120]);
  });

  it('reads WebP by content', async () => {
    const file = join(tmp, 'image.bin');
    await sharp({ create: { width: 30, height: 20, channels: 4, background: '#ff000080' } })
      .webp()
      .toFile(file);
    assert.deepEqual(await probeImage(file), { format: 'webp', width: 30, height: 20, hasAlpha: true });
  });

  it('refuses other types and corrupt files with UNSUPPORTED_MEDIA', async () => {
    const text = join(tmp, 'not-an-image.png');
    await writeFile(text, 'hello, I am text');
    await assert.rejects(probeImage(text), isCode('UNSUPPORTED_MEDIA'));
    const gif = join(tmp, 'anim.gif');
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .gif()
      .toFile(gif);
    await assert.rejects(probeImage(gif), isCode('UNSUPPORTED_MEDIA'));
    const corrupt = join(tmp, 'corrupt.png');
    await writeFile(corrupt, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 7)]));
    await assert.rejects(probeImage(corrupt), isCode('UNSUPPORTED_MEDIA'));
  });
});

describe('probeVideo', () => {
  it('measures the dance clips', { skip: missingMedia('videos/animate-x--dance_1.mp4') }, async () => {
    const d1 = await probeVideo(tools, mediaPath('videos/animate-x--dance_1.mp4'));
    // Named .mp4, but the file's major brand is 'qt  ': by content it is a QuickTime movie.
    assert.equal(d1.container, 'mov');
    assert.deepEqual([d1.width, d1.height, d1.fps, d1.hasAudio, d1.videoCodec], [512, 758, 24, true, 'h264']);
    assert.ok(Math.abs(d1.durationMs - 8100) < 150, `duration ${d1.durationMs}`);
    const s13 = await probeVideo(tools, mediaPath('videos/liveportrait--s13.mp4'));
    assert.deepEqual([s13.container, s13.width, s13.height, s13.fps, s13.hasAudio], ['mp4', 720, 1080, 25, true]);
    assert.ok(Math.abs(s13.durationMs - 4100) < 150, `duration ${s13.durationMs}`);
    const d18 = await probeVideo(tools, mediaPath('videos/liveportrait--d18.mp4'));
    assert.deepEqual([d18.width, d18.height, d18.fps], [480, 480, 30]);
  });

  it('reports the displayed size of a rotated phone video, and decodes it upright', async () => {
    const plain = join(tmp, 'landscape.mp4');
    const rotated = join(tmp, 'rotated.mp4');
    // Left half white, right half black, stored landscape; the rotate tag turns it a quarter.
    await runFfmpeg(tools, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'color=c=black:s=160x90:r=10:d=1',
      '-vf',
      'drawbox=x=0:y=0:w=80:h=90:color=white:t=fill',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      plain,
    ]);
    await runFfmpeg(tools, ['-v', 'error', '-i', plain, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', rotated]);
    const info = await probeVideo(tools, rotated);
    assert.deepEqual([info.width, info.height], [90, 160]);
    let first: Buffer | null = null;
    for await (const f of decodeFrames(tools, rotated, { fps: 10, width: 90, height: 160 })) first ??= f;
    // Upright, the white half is now the top (or bottom) half: rows differ, columns do not.
    const px = (x: number, y: number) => first![(y * 90 + x) * 4];
    assert.ok(Math.abs(px(45, 20) - px(45, 140)) > 200, 'top and bottom differ');
    assert.ok(Math.abs(px(10, 20) - px(80, 20)) < 40, 'a row is uniform');
  });

  it('accepts WebM and refuses Matroska/H.264, audio-only and non-media files', async () => {
    const webm = join(tmp, 'clip.webm');
    await runFfmpeg(tools, ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1', '-c:v', 'libvpx-vp9', '-b:v', '100k', webm]);
    const info = await probeVideo(tools, webm);
    assert.deepEqual([info.container, info.width, info.height, info.fps, info.hasAudio], ['webm', 64, 48, 10, false]);

    const mkv = join(tmp, 'clip.mkv');
    await runFfmpeg(tools, ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1', '-c:v', 'libx264', mkv]);
    await assert.rejects(probeVideo(tools, mkv), isCode('UNSUPPORTED_MEDIA'));

    const m4a = join(tmp, 'tone.m4a');
    await runFfmpeg(tools, ['-f', 'lavfi', '-i', 'sine=d=1', '-c:a', 'aac', m4a]);
    await assert.rejects(probeVideo(tools, m4a), (e: unknown) => isCode('UNSUPPORTED_MEDIA')(e) && /no video/i.test((e as Error).message));

    const text = join(tmp, 'fake.mp4');
    await writeFile(text, 'definitely not a video');
    await assert.rejects(probeVideo(tools, text), isCode('UNSUPPORTED_MEDIA'));
  });
});

describe('decodeFrames', () => {
  it('streams exact-size RGBA frames at the requested rate', { skip: missingMedia('videos/animate-x--dance_3.mp4') }, async () => {
    const file = mediaPath('videos/animate-x--dance_3.mp4');
    const info = await probeVideo(tools, file);
    let count = 0;
    for await (const frame of decodeFrames(tools, file, { fps: 12, width: 128, height: 190 })) {
      assert.equal(frame.length, 128 * 190 * 4);
      count++;
    }
    const expected = Math.round((info.durationMs / 1000) * 12);
    assert.ok(Math.abs(count - expected) <= 1, `${count} frames, expected about ${expected}`);
  });

  it(
    'stops ffmpeg when the consumer breaks early, and honours abort',
    { skip: missingMedia('videos/animate-x--dance_1.mp4') },
    async () => {
      const file = mediaPath('videos/animate-x--dance_1.mp4');
      let seen = 0;
      const t0 = Date.now();
      for await (const frame of decodeFrames(tools, file, { fps: 24, width: 512, height: 758 })) {
        assert.equal(frame.length, 512 * 758 * 4);
        if (++seen === 3) break;
      }
      assert.equal(seen, 3);
      assert.ok(Date.now() - t0 < 3000);

      const ac = new AbortController();
      const run = (async () => {
        let n = 0;
        for await (const _ of decodeFrames(tools, file, { fps: 24, width: 64, height: 96, signal: ac.signal })) {
          if (++n === 5) ac.abort();
        }
      })();
      await assert.rejects(run, (e: unknown) => (e as Error).name === 'AbortError');
    },
  );
});

describe('extractAudio and runFfmpeg', () => {
  it('copies the driving audio to AAC and reports absence', { skip: missingMedia('videos/animate-x--dance_1.mp4') }, async () => {
    const out = join(tmp, 'audio.m4a');
    assert.equal(await extractAudio(tools, mediaPath('videos/animate-x--dance_1.mp4'), out), true);
    const probe = await probeVideo(tools, mediaPath('videos/animate-x--dance_1.mp4'));
    assert.ok(probe.hasAudio);
    const silent = join(tmp, 'silent.mp4');
    await runFfmpeg(tools, ['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', silent]);
    const none = join(tmp, 'none.m4a');
    assert.equal(await extractAudio(tools, silent, none), false);
    assert.equal(existsSync(none), false);
  });

  it('kills ffmpeg and rejects with AbortError on abort', async () => {
    const ac = new AbortController();
    const p = runFfmpeg(tools, ['-f', 'lavfi', '-i', 'testsrc=s=320x240:r=30', '-f', 'null', '-'], { signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    await assert.rejects(p, (e: unknown) => (e as Error).name === 'AbortError');
  });
});
