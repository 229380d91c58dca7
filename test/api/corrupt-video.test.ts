import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { probeVideo } from '../../src/engine/media/probe.js';
import { checkVideoFrames } from '../../src/engine/media/video-integrity.js';

/**
 * Videos are checked at the door by decoding (issue #14): a file whose container probes fine but
 * whose frames are damaged is 422 UNSUPPORTED_MEDIA (reason corrupt_frames) through every way a
 * video comes in — POST /v1/motions, a multipart render, a draft upload — and leaves no row, no
 * ledger movement and no file behind. Valid videos in MP4, MOV and WebM still pass.
 */
const tools = resolveTools({});
let work: string;
const clip: Record<string, string> = {};

function ffmpeg(args: string[]): void {
  execFileSync(tools.ffmpeg, ['-v', 'error', '-y', ...args], { stdio: 'ignore' });
}

/** The payload of the top-level `mdat` box (offset of its first byte, end). */
function mdatRange(buf: Buffer): [number, number] {
  let off = 0;
  while (off + 8 <= buf.length) {
    let size = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(off + 8));
      header = 16;
    } else if (size === 0) size = buf.length - off;
    if (type === 'mdat') return [off + header, off + size];
    off += size;
  }
  throw new Error('no mdat box');
}

/**
 * Overwrites `len` bytes inside the frame data at each fraction of it (pseudo-random bytes from a
 * fixed seed, or zeros): the container index (moov) is untouched, so ffprobe still accepts it.
 */
async function damage(src: string, dst: string, fractions: number[], len: number, fill: 'noise' | 'zero'): Promise<void> {
  const buf = Buffer.from(await readFile(src));
  const [start, end] = mdatRange(buf);
  let seed = 12345;
  for (const f of fractions) {
    const p = start + Math.floor((end - start) * f);
    for (let i = p; i < Math.min(p + len, end); i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      buf[i] = fill === 'zero' ? 0 : seed >>> 24;
    }
  }
  await writeFile(dst, buf);
}

async function makeFixtures(): Promise<void> {
  work = await mkdtemp(join(tmpdir(), 'marionette-corrupt-'));
  // A real person moving, re-encoded small with a short GOP so damage lands in many frames.
  clip.good = join(work, 'good.mp4');
  ffmpeg([
    '-i',
    mediaFile('videos/animate-x--dance_3.mp4'),
    '-t',
    '4',
    '-vf',
    'scale=256:-2',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-g',
    '12',
    '-pix_fmt',
    'yuv420p',
    '-an',
    clip.good,
  ]);
  clip.goodMov = join(work, 'good.mov');
  ffmpeg([
    '-i',
    mediaFile('videos/liveportrait--d19.mp4'),
    '-t',
    '3',
    '-vf',
    'scale=200:-2',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-an',
    '-f',
    'mov',
    clip.goodMov,
  ]);
  clip.goodWebm = join(work, 'good.webm');
  ffmpeg([
    '-i',
    mediaFile('videos/liveportrait--d18.mp4'),
    '-t',
    '3',
    '-vf',
    'scale=160:-2',
    '-c:v',
    'libvpx-vp9',
    '-b:v',
    '200k',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-an',
    clip.goodWebm,
  ]);
  clip.noisy = join(work, 'noisy.mp4');
  await damage(clip.good, clip.noisy, [0.05, 0.5, 0.95], 2000, 'noise');
  clip.zeroMiddle = join(work, 'zero-middle.mp4');
  await damage(clip.good, clip.zeroMiddle, [0.45, 0.5, 0.55], 1500, 'zero');
  // A synthetic scene (not a person), at another size, damaged only near its end.
  clip.synthetic = join(work, 'synthetic.mp4');
  ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x180:rate=24',
    '-t',
    '3',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-g',
    '12',
    '-pix_fmt',
    'yuv420p',
    clip.synthetic,
  ]);
  clip.endOnly = join(work, 'end-only.mp4');
  await damage(clip.synthetic, clip.endOnly, [0.93, 0.97], 1500, 'noise');
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
  return out.filter((f) => !/\.sqlite(-wal|-shm)?$/.test(f)).sort();
}

async function footprint(svc: TestService) {
  const db = svc.wired.deps.db;
  const count = async (t: 'motions' | 'videos' | 'ledger' | 'jobs') => (await db.selectFrom(t).select('id').execute()).length;
  return {
    files: await filesUnder(svc.config.dataDir),
    motions: await count('motions'),
    videos: await count('videos'),
    ledger: await count('ledger'),
    jobs: await count('jobs'),
  };
}

function assertCorrupt(e: { status: number; code: string; body: any }): void {
  assert.equal(e.status, 422, JSON.stringify(e.body));
  assert.equal(e.code, 'UNSUPPORTED_MEDIA');
  assert.equal(e.body.error.details.reason, 'corrupt_frames');
  assert.equal(typeof e.body.error.details.decoder_error, 'string');
  assert.ok(!JSON.stringify(e.body).includes(work), 'no file path leaks');
}

before(async () => {
  if (hasSharedMedia()) await makeFixtures();
});
after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('decode check of a video (engine)', { skip: !hasSharedMedia() && NO_MEDIA_REASON }, () => {
  it('the damaged clips still probe as valid containers', async () => {
    for (const f of [clip.noisy, clip.zeroMiddle, clip.endOnly]) {
      const info = await probeVideo(tools, f);
      assert.ok(info.durationMs > 2000 && info.width > 0, f);
    }
  });

  it('finds the damage at the start, in the middle and near the end', async () => {
    for (const f of [clip.noisy, clip.zeroMiddle, clip.endOnly]) {
      const info = await probeVideo(tools, f);
      const r = await checkVideoFrames(tools, f, info.durationMs, { timeoutMs: 30_000 });
      assert.equal(r.timedOut, false);
      assert.notEqual(r.failure, null, `${f} should fail the decode check`);
    }
  });

  it('passes every shared driving video and valid MP4, MOV and WebM re-encodes', async () => {
    const files = [
      'animate-x--dance_1.mp4',
      'animate-x--dance_3.mp4',
      'liveportrait--d18.mp4',
      'liveportrait--d19.mp4',
      'liveportrait--s13.mp4',
    ].map((f) => mediaFile(`videos/${f}`));
    for (const f of [...files, clip.good, clip.goodMov, clip.goodWebm, clip.synthetic]) {
      const info = await probeVideo(tools, f);
      const r = await checkVideoFrames(tools, f, info.durationMs, { timeoutMs: 30_000 });
      assert.equal(r.failure, null, `${f}: ${r.failure}`);
      assert.ok(r.frames >= 3, `${f} decoded ${r.frames} frames`);
    }
  });

  it('passes low frame rates, whose last half second may hold no frame (2 fps and 1 fps clips)', async () => {
    for (const rate of [2, 1]) {
      const f = join(work, `low-${rate}fps.mp4`);
      ffmpeg(['-f', 'lavfi', '-i', `testsrc2=size=320x240:rate=${rate}`, '-t', '5.3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', f]);
      const info = await probeVideo(tools, f);
      const r = await checkVideoFrames(tools, f, info.durationMs, { timeoutMs: 30_000 });
      assert.equal(r.failure, null, `${rate} fps: ${r.failure}`);
    }
  });

  it('a check cut by its time budget says so instead of guessing', async () => {
    const info = await probeVideo(tools, clip.good);
    const r = await checkVideoFrames(tools, clip.good, info.durationMs, { timeoutMs: 1 });
    assert.equal(r.timedOut, true);
    assert.equal(r.failure, null);
  });
});

for (const t of await dbTargets()) {
  describe(`corrupt videos are refused at the door (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 1000 });
    });
    after(() => svc?.close());

    it('POST /v1/motions: 422 corrupt_frames, nothing stored, nothing charged', async () => {
      for (const f of [clip.noisy, clip.zeroMiddle, clip.endOnly]) {
        const before = await footprint(svc);
        const body = new FormData();
        body.append('video', await openAsBlob(f), 'clip.mp4');
        assertCorrupt(await errorOf(await svc.request('/v1/motions', { method: 'POST', body })));
        assert.deepEqual(await footprint(svc), before);
      }
    });

    it('multipart POST /v1/renders: 422 before the render exists, no reservation', async () => {
      const before = await footprint(svc);
      const body = new FormData();
      body.append('image', await openAsBlob(mediaFile('images/mimicmotion--demo1.jpg')), 'c.jpg');
      body.append('motion_video', await openAsBlob(clip.noisy), 'm.mp4');
      assertCorrupt(await errorOf(await svc.request('/v1/renders', { method: 'POST', body })));
      assert.deepEqual(await footprint(svc), before);
      const credits = (await (await svc.request('/v1/credits')).json()) as { balance: number };
      assert.equal(credits.balance, 1000);
    });

    it('a draft upload of a corrupt video is refused at its PUT, and the draft cannot render it', async () => {
      const video = await readFile(clip.zeroMiddle);
      const image = await readFile(mediaFile('images/mimicmotion--demo1.jpg'));
      const prep = await svc.request('/v1/renders/prepare', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          image: { content_type: 'image/jpeg', size_bytes: image.length },
          motion_video: { content_type: 'video/mp4', size_bytes: video.length },
        }),
      });
      assert.equal(prep.status, 200, await prep.clone().text());
      const plan = (await prep.json()) as { draft_id: string; uploads: { field: string; url: string; headers: Record<string, string> }[] };
      const u = (field: string) => plan.uploads.find((x) => x.field === field)!;
      assert.equal((await fetch(u('image').url, { method: 'PUT', body: image, headers: u('image').headers })).status < 300, true);
      assertCorrupt(await errorOf(await fetch(u('motion_video').url, { method: 'PUT', body: video, headers: u('motion_video').headers })));
      const ledger = (await footprint(svc)).ledger;
      const res = await svc.request('/v1/renders', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `corrupt-${t.kind}` },
        body: JSON.stringify({ draft_id: plan.draft_id }),
      });
      assert.ok(res.status >= 400 && res.status < 500, `a draft whose video was refused is not rendered (got ${res.status})`);
      assert.equal((await footprint(svc)).ledger, ledger);
      assert.deepEqual(await filesUnder(join(svc.config.dataDir, 'tmp')), []);
    });

    it('valid MP4, MOV and WebM clips still make motions', async () => {
      for (const [f, name] of [
        [clip.good, 'a.mp4'],
        [clip.goodMov, 'b.mov'],
        [clip.goodWebm, 'c.webm'],
      ] as const) {
        const body = new FormData();
        body.append('video', await openAsBlob(f), name);
        const res = await svc.request('/v1/motions', { method: 'POST', body });
        assert.ok(res.status >= 200 && res.status < 300, `${name}: ${res.status} ${await res.clone().text()}`);
      }
    });
  });
}
