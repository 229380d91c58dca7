import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_MOTION, DEFAULT_SPAN, KeyframePoser, keyMotion, lerpPose } from '../../src/engine/motion/keyframes.js';
import type { Keypoint } from '../../src/engine/types.js';
import type { PoseResult } from '../../src/engine/vision/pose-detector.js';

/** A standing body (17 COCO joints, torso 100 px) shifted right by `dx`, every joint seen. */
function body(dx: number, score = 0.9): PoseResult {
  const at = (x: number, y: number): Keypoint => ({ x: x + dx, y, score });
  const b = [
    at(100, 40), // nose
    at(95, 35),
    at(105, 35),
    at(90, 40),
    at(110, 40),
    at(80, 80), // shoulders
    at(120, 80),
    at(70, 130), // elbows
    at(130, 130),
    at(65, 175), // wrists
    at(135, 175),
    at(88, 180), // hips
    at(112, 180),
    at(86, 250), // knees
    at(114, 250),
    at(85, 320), // ankles
    at(115, 320),
  ];
  return { body: b, score };
}

interface Call {
  frame: number;
  hint: Keypoint[] | null | undefined;
}

/**
 * Runs a poser over `n` frames whose content is the frame index; the fake detector answers `pose(i)`
 * after a random delay. Returns the results by index and the detector calls in call order.
 */
async function run(
  n: number,
  pose: (i: number) => PoseResult | null,
  opts: { capacity?: number; maxMotion?: number; span?: number; jitterMs?: number } = {},
) {
  const calls: Call[] = [];
  const out: Array<{ index: number; result: PoseResult | null }> = [];
  const poser = new KeyframePoser(
    async (frame, hint) => {
      const i = frame.readUInt32LE(0);
      calls.push({ frame: i, hint });
      await new Promise((r) => setTimeout(r, Math.random() * (opts.jitterMs ?? 0)));
      return pose(i);
    },
    (index, result) => out.push({ index, result }),
    // The algorithm's tests below use keys every 4th frame and 0.3 torso (the production defaults have their own test).
    { capacity: opts.capacity ?? 4, maxMotion: opts.maxMotion ?? 0.3, span: opts.span ?? 4 },
  );
  for (let i = 0; i < n; i++) {
    const f = Buffer.alloc(4);
    f.writeUInt32LE(i);
    await poser.offer(i, f);
  }
  await poser.finish();
  return { calls, out, stats: poser.stats };
}

describe('key-frame pose', () => {
  it('measures the largest joint movement in torso lengths, and refuses to compare what is not a body', () => {
    assert.equal(keyMotion(body(0), body(0)), 0);
    assert.ok(Math.abs(keyMotion(body(0), body(10)) - 0.1) < 1e-9);
    assert.equal(keyMotion(body(0), null), Infinity);
    // A wrist seen in one and not the other counts where the unsure one put it...
    const lost = body(0);
    lost.body[9] = { x: 300, y: 20, score: 0.05 };
    assert.ok(keyMotion(body(0), lost) > 2, 'a vanishing wrist guessed elsewhere is motion');
    const unsure = body(0);
    unsure.body[9] = { ...unsure.body[9], score: 0.05 };
    assert.equal(keyMotion(body(0), unsure), 0, 'an unsure wrist where it was is not');
    // ...and a joint seen in neither is left out.
    const both = [body(0), body(0)].map((b) => ({ ...b, body: b.body.map((k, j) => (j === 9 ? { x: j * 50, y: 0, score: 0.1 } : k)) }));
    both[1].body[9].x += 500;
    assert.equal(keyMotion(both[0], both[1]), 0);
    assert.equal(keyMotion(body(0, 0.1), body(0, 0.1)), Infinity, 'low scores are no body');
  });

  it('interpolates every frame between keys on a still body and detects only the keys (every 4th and the last frame)', async () => {
    const { calls, out, stats } = await run(11, () => body(0));
    assert.deepEqual(
      calls.map((c) => c.frame),
      [0, 4, 8, 10],
    );
    assert.deepEqual(stats, { frames: 11, detected: 4, interpolated: 7 });
    assert.deepEqual(
      out.map((o) => o.index),
      [...Array(11).keys()],
    );
    assert.ok(out.every((o) => o.result && keyMotion(o.result, body(0)) === 0));
  });

  it('detects every frame of a fast movement by halving the intervals, each with the interpolated body as its crop hint', async () => {
    // 20 px (0.2 torso) a frame: 0.4 torso between neighbours two apart, above the threshold.
    const { calls, out, stats } = await run(9, (i) => body(20 * i));
    assert.equal(stats.interpolated, 0);
    assert.equal(stats.detected, 9);
    assert.deepEqual(
      [...calls.map((c) => c.frame)].sort((a, b) => a - b),
      [...Array(9).keys()],
    );
    for (const c of calls) {
      if (c.frame % 4 === 0) assert.equal(c.hint, undefined, `key frame ${c.frame} tracks on its own`);
      else assert.ok(Math.abs(c.hint![0].x - (100 + 20 * c.frame)) < 1e-9, `frame ${c.frame} hinted between its known neighbours`);
    }
    assert.ok(out.every((o) => o.result!.body[0].x === 100 + 20 * o.index));
  });

  it('interpolates slow stretches only, with linear positions and the lower score', async () => {
    // Still for frames 0..6, then fast: keys 0, 4, 8, 10; 1-3 interpolated, 6 detected, 5 interpolated, 7 and 9 detected.
    const pose = (i: number) => body(i <= 6 ? 0 : 30 * (i - 6), i === 4 ? 0.8 : 0.9);
    const { calls, out, stats } = await run(11, pose);
    assert.deepEqual(
      calls.map((c) => c.frame),
      [0, 4, 8, 10, 6, 9, 7],
    );
    assert.equal(stats.interpolated, 4);
    assert.deepEqual(out[2].result, lerpPose(pose(0), pose(4), 0.5));
    assert.equal(out[2].result!.body[0].score, 0.8);
    assert.deepEqual(out[7].result, pose(7));
    assert.deepEqual(
      out.map((o) => o.index),
      [...Array(11).keys()],
    );
  });

  it('detects the frames next to a key without a person, on the whole frame when neither key has one', async () => {
    const { calls, stats } = await run(7, (i) => (i === 2 || i === 4 ? null : body(0)));
    assert.equal(stats.interpolated, 0);
    assert.equal(calls.find((c) => c.frame === 3)!.hint, null);
    assert.ok(calls.find((c) => c.frame === 1)!.hint, 'frame 1 hinted by frame 0');
  });

  it('calls the detector in the same order whatever the detector timing', async () => {
    const pose = (i: number) => body(i % 5 === 0 ? 25 * i : 0);
    const a = await run(40, pose, { jitterMs: 3 });
    const b = await run(40, pose, { jitterMs: 3 });
    assert.deepEqual(
      a.calls.map((c) => c.frame),
      b.calls.map((c) => c.frame),
    );
    assert.ok(a.stats.interpolated > 0 && a.stats.detected < 40, JSON.stringify(a.stats));
  });

  it('by default keys every 2nd frame and detects the frame between only where a joint moved 0.5 torso or more', async () => {
    assert.equal(DEFAULT_SPAN, 2);
    assert.equal(DEFAULT_MAX_MOTION, 0.5);
    const still = await run(9, () => body(0), { span: DEFAULT_SPAN, maxMotion: DEFAULT_MAX_MOTION });
    assert.deepEqual(
      still.calls.map((c) => c.frame),
      [0, 2, 4, 6, 8],
    );
    // 0.2 torso a frame is 0.4 between keys: interpolated; 0.3 a frame (0.6 between keys) is detected.
    const moderate = await run(9, (i) => body(20 * i), { span: DEFAULT_SPAN, maxMotion: DEFAULT_MAX_MOTION });
    assert.deepEqual(moderate.stats, { frames: 9, detected: 5, interpolated: 4 });
    const fast = await run(9, (i) => body(30 * i), { span: DEFAULT_SPAN, maxMotion: DEFAULT_MAX_MOTION });
    assert.deepEqual(fast.stats, { frames: 9, detected: 9, interpolated: 0 });
  });

  it('with maxMotion 0 treats every frame as a key', async () => {
    const { calls, stats } = await run(6, () => body(0), { maxMotion: 0 });
    assert.deepEqual(stats, { frames: 6, detected: 6, interpolated: 0 });
    assert.ok(calls.every((c) => c.hint === undefined));
  });
});
