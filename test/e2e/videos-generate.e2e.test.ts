import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { ledgerOf } from '../helpers/render-fixture.js';
import { lumaOf, ssim } from '../helpers/image-metrics.js';
import { prepareMedia, tools } from '../helpers/media-prep.js';
import { startWorkers } from '../../src/main/workers.js';

/**
 * POST /v1/videos end to end with the real engine and workers: the facts DECISIONS and the videos
 * issue name, read back with ffprobe and by decoding (sizes, durations, audio that is not silent,
 * speech only when the prompt quotes dialogue, first and last frames, seeds), plus billing.
 */
const run = promisify(execFile);

interface Probe {
  width: number;
  height: number;
  fps: number;
  durationS: number;
  audio: boolean;
}

async function probe(file: string): Promise<Probe> {
  const { stdout } = await run(tools.ffprobe, [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_type,width,height,avg_frame_rate:format=duration',
    '-of',
    'json',
    file,
  ]);
  const j = JSON.parse(stdout) as {
    streams: Array<{ codec_type: string; width?: number; height?: number; avg_frame_rate?: string }>;
    format: { duration: string };
  };
  const v = j.streams.find((s) => s.codec_type === 'video')!;
  const [n, d] = (v.avg_frame_rate ?? '0/1').split('/').map(Number);
  return {
    width: v.width!,
    height: v.height!,
    fps: n / d,
    durationS: Number(j.format.duration),
    audio: j.streams.some((s) => s.codec_type === 'audio'),
  };
}

/** Mono 16 kHz samples of the audio track. */
async function audioOf(file: string, filter?: string): Promise<Float32Array> {
  const { stdout } = await run(
    tools.ffmpeg,
    ['-v', 'error', '-i', file, '-vn', ...(filter ? ['-af', filter] : []), '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'],
    {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const buf = stdout as unknown as Buffer;
  const out = new Float32Array(buf.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = buf.readInt16LE(i * 2) / 32768;
  return out;
}

const rms = (x: Float32Array, from = 0, to = x.length): number => {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i] * x[i];
  return Math.sqrt(s / Math.max(1, to - from));
};

/** Decoded frame `index` as RGB. */
async function frameAt(file: string, index: number, w: number, h: number): Promise<Uint8Array> {
  const { stdout } = await run(
    tools.ffmpeg,
    ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
    {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const buf = stdout as unknown as Buffer;
  assert.equal(buf.length, w * h * 3, `frame ${index} decoded`);
  return new Uint8Array(buf);
}

/** MD5 of every decoded video frame (ffmpeg's framemd5 lines, timestamps included). */
async function frameHashes(file: string): Promise<string[]> {
  const { stdout } = await run(tools.ffmpeg, ['-v', 'error', '-i', file, '-map', '0:v:0', '-f', 'framemd5', 'pipe:1']);
  return stdout.split('\n').filter((l) => l && !l.startsWith('#'));
}

describe('POST /v1/videos end to end (sqlite)', { skip: !hasSharedMedia() && NO_MEDIA_REASON }, () => {
  let svc: TestService;
  let media: { dir: string; video: string; image: string };
  before(async () => {
    media = await prepareMedia({ seconds: 2 });
    svc = await startService({ db: 'sqlite', workers: true, credits: 500, env: { MARIONETTE_JOB_HEARTBEAT_MS: '1000' } });
  });
  after(async () => {
    await svc?.close();
    if (media) await rm(media.dir, { recursive: true, force: true });
  });

  async function create(body: Record<string, unknown> | FormData): Promise<string> {
    const res =
      body instanceof FormData
        ? await svc.request('/v1/videos', { method: 'POST', body })
        : await svc.request('/v1/videos', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { id: string }).id;
  }

  async function settle(id: string, timeoutMs = 240_000): Promise<any> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = (await (await svc.request(`/v1/videos/${id}`)).json()) as any;
      if (v.status === 'ready' || v.status === 'failed' || v.status === 'cancelled') return v;
      if (Date.now() > until) throw new Error(`${id} still ${v.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function download(v: any): Promise<string> {
    assert.equal(v.status, 'ready', JSON.stringify(v.error));
    const res = await fetch(v.video_url);
    assert.equal(res.status, 200);
    const file = join(media.dir, `${v.id}.mp4`);
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  const prompt = 'A puppet walks along the beach and waves, the camera zooms in';
  let spoken = '';
  let silentTwin = '';

  test('H3: exact size and duration, native audio that is not silent, the price settled exactly', async () => {
    const id = await create({
      prompt: `${prompt}, saying "Hello everyone, welcome to the seaside!"`,
      resolution: '480p',
      duration_s: 3,
      seed: 11,
    });
    const v = await settle(id);
    spoken = await download(v);
    assert.equal(v.seed, 11);
    const p = await probe(spoken);
    assert.deepEqual([p.width, p.height], [854, 480]);
    assert.ok(Math.abs(p.durationS - 3) <= 1 / 24 + 0.03, `duration ${p.durationS}`);
    assert.ok(Math.abs(p.fps - 24) < 0.01);
    assert.ok(p.audio, 'an audio stream');
    const pcm = await audioOf(spoken);
    assert.ok(rms(pcm) > 0.01, `audio rms ${rms(pcm)}`);
    const ledger = await ledgerOf(svc.wired.deps.db, id);
    assert.deepEqual(
      ledger.map((l) => [l.kind, Number(l.amount_milli), Number(l.reserved_delta_milli)]),
      [
        ['reserve', -3000, 3000],
        ['settle', 0, -3000],
      ],
    );
  });

  test('speech is present when the prompt quotes dialogue and absent when it does not', async () => {
    const id = await create({ prompt: `${prompt}, saying nothing at all`, resolution: '480p', duration_s: 3, seed: 11 });
    silentTwin = await download(await settle(id));
    // Speech sits in 300-3400 Hz; the music's bass and kick below 200 Hz. The voice raises the first
    // relative to the second over the dialogue's time (0.4-2 s) whatever the music does.
    const ratio = async (file: string) => {
      const band = await audioOf(file, 'highpass=f=300,highpass=f=300,lowpass=f=3400,lowpass=f=3400');
      const low = await audioOf(file, 'lowpass=f=200,lowpass=f=200');
      return rms(band, 0.4 * 16000, 2 * 16000) / Math.max(1e-6, rms(low, 0.4 * 16000, 2 * 16000));
    };
    const withSpeech = await ratio(spoken);
    const without = await ratio(silentTwin);
    assert.ok(withSpeech > 1.6 * without, `speech-band ratio ${withSpeech.toFixed(3)} with dialogue vs ${without.toFixed(3)} without`);
  });

  test('the same inputs and seed give identical frames; another seed a different video', async () => {
    const again = await download(
      await settle(await create({ prompt: `${prompt}, saying nothing at all`, resolution: '480p', duration_s: 3, seed: 11 })),
    );
    assert.deepEqual(await frameHashes(again), await frameHashes(silentTwin));
    const other = await download(
      await settle(await create({ prompt: `${prompt}, saying nothing at all`, resolution: '480p', duration_s: 3, seed: 12 })),
    );
    const a = await frameHashes(other),
      b = await frameHashes(silentTwin);
    assert.equal(a.length, b.length);
    assert.ok(a.filter((h, i) => h !== b[i]).length > a.length / 2, 'another seed changes most frames');
  });

  test('first and last frame images: frame 0 and the last frame match them (SSIM >= 0.9 after the same resize)', async () => {
    const lastImage = join(media.dir, 'last.png');
    await sharp(mediaFile('images/musepose--ref.png')).resize(400).png().toFile(lastImage);
    const fd = new FormData();
    fd.append('prompt', 'she dances, then bows');
    fd.append('resolution', '480p');
    fd.append('aspect_ratio', '9:16');
    fd.append('duration_s', '3');
    fd.append('seed', '4');
    fd.append('first_frame_image', new Blob([await readFile(media.image)], { type: 'image/jpeg' }), 'first.jpg');
    fd.append('last_frame_image', new Blob([await readFile(lastImage)], { type: 'image/png' }), 'last.png');
    const file = await download(await settle(await create(fd)));
    const p = await probe(file);
    assert.deepEqual([p.width, p.height], [480, 854]);
    const cover = async (img: string) =>
      new Uint8Array(await sharp(img).rotate().removeAlpha().resize(480, 854, { fit: 'cover' }).raw().toBuffer());
    const n = Math.round(p.durationS * 24);
    const s0 = ssim(lumaOf(await frameAt(file, 0, 480, 854), 480, 854, 3), lumaOf(await cover(media.image), 480, 854, 3), 480, 854);
    const sN = ssim(lumaOf(await frameAt(file, n - 1, 480, 854), 480, 854, 3), lumaOf(await cover(lastImage), 480, 854, 3), 480, 854);
    assert.ok(s0 >= 0.9, `first frame SSIM ${s0.toFixed(3)}`);
    assert.ok(sN >= 0.9, `last frame SSIM ${sN.toFixed(3)}`);
    // In between, the video is not the first frame held still.
    const mid = ssim(
      lumaOf(await frameAt(file, Math.floor(n / 2), 480, 854), 480, 854, 3),
      lumaOf(await cover(media.image), 480, 854, 3),
      480,
      854,
    );
    assert.ok(mid < s0, `the middle differs from the first frame (${mid.toFixed(3)})`);
  });

  test('animate: the character in the driving scene at 24 fps, sizes of 32, the clip length, audio; charged ceil(seconds)', async () => {
    const fd = new FormData();
    fd.append('character_image', new Blob([await readFile(media.image)], { type: 'image/jpeg' }), 'character.jpg');
    fd.append('driving_video', new Blob([await readFile(media.video)], { type: 'video/mp4' }), 'driving.mp4');
    fd.append('seed', '2');
    const id = await create(fd);
    assert.match(id, /^anim_/);
    const v = await settle(id);
    const file = await download(v);
    const p = await probe(file);
    const src = await probe(media.video);
    assert.ok(Math.abs(p.fps - 24) < 0.01, `fps ${p.fps}`);
    assert.equal(p.width % 32, 0);
    assert.equal(p.height % 32, 0);
    assert.equal(p.width, Math.floor(src.width / 32) * 32);
    assert.ok(Math.abs(p.durationS - src.durationS) <= 0.1, `duration ${p.durationS} vs driving ${src.durationS}`);
    assert.ok(p.audio);
    assert.ok(rms(await audioOf(file)) > 0.001, 'the driving audio is kept');
    const ledger = await ledgerOf(svc.wired.deps.db, id);
    const charged = ledger.reduce((s, l) => s + Number(l.amount_milli), 0);
    assert.equal(charged, -Math.ceil(src.durationS) * 1000);
  });

  test('a generation that fails releases its reservation', async () => {
    const other = await startService({ db: 'sqlite', workers: false, credits: 50 });
    try {
      const fd = new FormData();
      fd.append('prompt', 'she waves');
      fd.append('duration_s', '3');
      fd.append('resolution', '480p');
      fd.append('first_frame_image', new Blob([await readFile(media.image)], { type: 'image/jpeg' }), 'first.jpg');
      const res = await other.request('/v1/videos', { method: 'POST', body: fd });
      const id = ((await res.json()) as any).id;
      // The stored frame goes bad before a worker picks the job up.
      const row = await other.wired.deps.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const key = JSON.parse(row.params_json!).first_frame.key;
      const junk = join(media.dir, 'junk.bin');
      await writeFile(junk, Buffer.from('not an image at all'));
      await other.wired.deps.storage.putFile(key, junk);
      await startWorkers(other.wired.deps);
      const until = Date.now() + 60_000;
      let v: any;
      do {
        await new Promise((r) => setTimeout(r, 200));
        v = await (await other.request(`/v1/videos/${id}`)).json();
      } while (v.status !== 'failed' && Date.now() < until);
      assert.equal(v.status, 'failed');
      assert.equal(v.error.code, 'UNSUPPORTED_MEDIA');
      const ledger = await ledgerOf(other.wired.deps.db, id);
      assert.deepEqual(
        ledger.map((l) => l.kind),
        ['reserve', 'release'],
      );
      assert.equal(
        ledger.reduce((s, l) => s + Number(l.amount_milli), 0),
        0,
      );
    } finally {
      await other.close();
    }
  });
});
