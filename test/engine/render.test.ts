import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createEngine, type CharacterAssets } from '../../src/engine/index.js';
import { decodeFrames, resolveTools } from '../../src/engine/media/ffmpeg.js';
import { PckAccumulator } from '../../src/engine/render/pose-fidelity.js';
import { createPoseDetector } from '../../src/engine/vision/pose-detector.js';
import { mediaPath, missingMedia } from '../helpers/engine-fixtures.js';
import { char1Character, clipMotion, defaultCharacter, probeFacts } from '../helpers/engine-render.js';

const tools = resolveTools(process.env);
const engine = createEngine({ tools });
const CLIP = 'videos/animate-x--dance_1.mp4';
let work = '';
let puppet: CharacterAssets;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'marionette-render-'));
  puppet = await defaultCharacter(join(work, 'puppet'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

test('templates: at least five, stable ids, loop seamlessly', async () => {
  const list = engine.listTemplates();
  assert.ok(list.length >= 5);
  for (const id of ['tpl_idle', 'tpl_wave', 'tpl_walk', 'tpl_jump', 'tpl_dance'])
    assert.ok(
      list.some((t) => t.id === id),
      id,
    );
  for (const t of list) {
    const m = await engine.writeTemplateMotion(t.id, join(work, 'tpl', t.id));
    const f = m.track.frames;
    assert.equal(m.track.frameCount, f.length);
    assert.ok(Math.abs(m.track.durationMs - t.durationS * 1000) < 50);
    const step = (a: number, b: number): number =>
      Math.max(...f[a].body.map((k, i) => Math.hypot(k.x - f[b].body[i].x, k.y - f[b].body[i].y)));
    const steps = f
      .slice(1)
      .map((_, i) => step(i, i + 1))
      .sort((a, b) => a - b);
    // The wrap-around step (last → first) is no bigger than the largest ordinary step.
    assert.ok(step(f.length - 1, 0) <= steps[steps.length - 1] + 0.5, `${t.id} does not loop`);
    const range = Math.max(...f.map((_, i) => step(0, i)));
    assert.ok(range > 5, `${t.id} does not move`);
  }
});

test('solid render of a template: H.264 yuv420p, size, frames and duration of the motion', async () => {
  const motion = await engine.writeTemplateMotion('tpl_wave', join(work, 'm-wave'));
  const out = join(work, 'r-solid');
  const stages: string[] = [];
  let last = -1;
  const r = await engine.render({
    character: puppet,
    motion,
    background: { mode: 'solid', color: [20, 160, 90] },
    outDir: out,
    onProgress: (s, p) => {
      assert.ok(p >= last, 'progress is monotonic');
      last = p;
      stages.push(s);
    },
  });
  assert.equal(last, 100);
  assert.deepEqual([...new Set(stages)], ['analyzing', 'rendering', 'finishing']);
  const f = await probeFacts(tools, r.videoFile);
  assert.deepEqual([f.codec, f.pixFmt, f.width, f.height, f.frames, f.hasAudio], ['h264', 'yuv420p', 512, 768, 96, false]);
  assert.ok(Math.abs(f.durationS - 4) < 0.05, `duration ${f.durationS}`);
  assert.equal(r.alphaFile, null);
  // The frame is the background colour where the character is not, and something else where it is.
  for await (const frame of decodeFrames(tools, r.videoFile, { fps: 1, width: 128, height: 192 })) {
    const px = (x: number, y: number): number[] => [...frame.subarray((y * 128 + x) * 4, (y * 128 + x) * 4 + 3)];
    assert.ok(
      px(2, 2).every((v, i) => Math.abs(v - [20, 160, 90][i]) < 12),
      `corner ${px(2, 2)}`,
    );
    let differing = 0;
    for (let i = 0; i < 128 * 192; i++) if (Math.abs(frame[i * 4 + 1] - 160) > 40) differing++;
    assert.ok(differing > 128 * 192 * 0.05, 'character visible');
    break;
  }
});

test('transparent render: mask video is near-binary and white exactly where the colour video is not black', async () => {
  const motion = await engine.writeTemplateMotion('tpl_jump', join(work, 'm-jump'));
  const r = await engine.render({ character: puppet, motion, background: { mode: 'transparent' }, outDir: join(work, 'r-transparent') });
  assert.ok(r.alphaFile);
  const [fv, fa] = await Promise.all([probeFacts(tools, r.videoFile), probeFacts(tools, r.alphaFile)]);
  assert.deepEqual([fa.codec, fa.pixFmt, fa.width, fa.height, fa.frames], [fv.codec, fv.pixFmt, fv.width, fv.height, fv.frames]);
  const opts = { fps: 2, width: 512, height: 768 };
  const colour = decodeFrames(tools, r.videoFile, opts)[Symbol.asyncIterator]();
  let frames = 0;
  // The colour decoder is stepped by hand: a failed assertion must still end its ffmpeg, or the
  // suspended pipe keeps the test process alive.
  try {
    for await (const m of decodeFrames(tools, r.alphaFile, opts)) {
      const c = (await colour.next()).value as Buffer;
      let grey = 0,
        white = 0,
        both = 0,
        lit = 0;
      // Near-binary: grey only as the anti-aliased edge, i.e. within 2 px of both a white and a black pixel.
      const inEdge = (i: number): boolean => {
        const x = i % 512,
          y = (i / 512) | 0;
        let hi = false,
          lo = false;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            const xx = x + dx,
              yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= 512 || yy >= 768) continue;
            const v = m[(yy * 512 + xx) * 4];
            if (v >= 232) hi = true;
            if (v <= 24) lo = true;
          }
        }
        return hi && lo;
      };
      for (let i = 0; i < 512 * 768; i++) {
        const a = m[i * 4];
        if (a > 24 && a < 232 && !inEdge(i)) grey++;
        const isWhite = a >= 128;
        const isLit = Math.max(c[i * 4], c[i * 4 + 1], c[i * 4 + 2]) > 20;
        if (isWhite) white++;
        if (isLit) lit++;
        if (isWhite && isLit) both++;
      }
      assert.ok(white > 512 * 768 * 0.04, 'character present in the mask');
      assert.ok(grey / white < 0.005, `mask not binary: ${grey} grey pixels away from the edge vs ${white} white`);
      const iou = both / (white + lit - both);
      assert.ok(iou > 0.95, `mask/colour agreement IoU ${iou.toFixed(3)}`);
      frames++;
    }
  } finally {
    await colour.return?.();
  }
  assert.ok(frames >= 7);
});

test('original render over a real clip: driving size, audio kept, motion duration', { skip: missingMedia(CLIP) }, async () => {
  const motion = await clipMotion(tools, mediaPath(CLIP), join(work, 'm-clip'), 2, 12);
  const character = await char1Character(join(work, 'char1'));
  const r = await engine.render({ character, motion, background: { mode: 'original' }, outDir: join(work, 'r-original') });
  const f = await probeFacts(tools, r.videoFile);
  assert.deepEqual([f.codec, f.pixFmt, f.width, f.height, f.frames, f.hasAudio], ['h264', 'yuv420p', 512, 758, 24, true]);
  assert.ok(Math.abs(f.durationS - 2) < 0.1, `duration ${f.durationS}`);
  assert.equal(r.hasAudio, true);
});

test('abort stops within one frame and leaves no files', async () => {
  const motion = await engine.writeTemplateMotion('tpl_dance', join(work, 'm-dance'));
  const out = join(work, 'r-abort');
  const ac = new AbortController();
  let after = 0;
  const p = engine.render({
    character: puppet,
    motion,
    background: { mode: 'transparent' },
    outDir: out,
    signal: ac.signal,
    onProgress: (s, pct) => {
      if (ac.signal.aborted) after++;
      else if (s === 'rendering' && pct >= 30) ac.abort();
    },
  });
  await assert.rejects(p, (e: Error) => e.name === 'AbortError');
  assert.ok(after <= 1, `${after} frames reported after abort`);
  const left = await readdir(out).catch(() => []);
  assert.deepEqual(
    left.filter((n) => n.endsWith('.mp4')),
    [],
  );
});

test('the rendered puppet follows the driving pose (PCK@0.2 >= 0.6)', { skip: missingMedia(CLIP) }, async (t) => {
  let detector;
  try {
    detector = createPoseDetector();
    await detector.detect(Buffer.alloc(64 * 64 * 4), 64, 64);
  } catch (err) {
    t.skip(`pose detector unavailable: ${(err as Error).message}`);
    return;
  }
  const trimmed = join(work, 'dance-2s.mp4');
  await promisify(execFile)(tools.ffmpeg, ['-v', 'error', '-y', '-i', mediaPath(CLIP), '-t', '2', '-c', 'copy', trimmed]);
  const motion = await engine.extractMotion({ videoFile: trimmed, outDir: join(work, 'm-real'), targetFps: 8, smoothing: true });
  const r = await engine.render({
    character: puppet,
    motion,
    background: { mode: 'solid', color: [255, 255, 255] },
    outDir: join(work, 'r-pck'),
  });
  const k = r.width / motion.track.width;
  const acc = new PckAccumulator();
  let i = 0;
  for await (const frame of decodeFrames(tools, r.videoFile, { fps: motion.track.fps, width: r.width, height: r.height })) {
    const d = motion.track.frames[i++];
    if (!d) break;
    const det = await detector.detect(frame, r.width, r.height);
    acc.add(
      d.body.map((p) => ({ x: p.x * k, y: p.y * k, score: p.score })),
      det?.body ?? null,
    );
  }
  t.diagnostic(`PCK@0.2 ${acc.value.toFixed(3)} over ${acc.frames} frames`);
  assert.ok(acc.frames >= 10);
  assert.ok(acc.value >= 0.6, `PCK@0.2 ${acc.value.toFixed(3)} over ${acc.frames} frames`);
});

test('motion extraction is repeatable: the same clip gives the same track', { skip: missingMedia(CLIP) }, async () => {
  // Pose frames are spread over the worker pool, each worker tracking its own crop; the track must not
  // depend on which worker happened to be free.
  const clip = join(work, 'dance-1s.mp4');
  await promisify(execFile)(tools.ffmpeg, ['-v', 'error', '-y', '-i', mediaPath(CLIP), '-t', '1.5', '-c', 'copy', clip]);
  const a = await engine.extractMotion({ videoFile: clip, outDir: join(work, 'm-rep-a'), targetFps: 12, smoothing: false });
  const b = await engine.extractMotion({ videoFile: clip, outDir: join(work, 'm-rep-b'), targetFps: 12, smoothing: false });
  assert.ok(a.track.frames.length >= 12);
  assert.deepEqual(b.track.frames, a.track.frames);
});
