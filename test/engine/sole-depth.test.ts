import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { templateTrack } from '../../src/engine/builtins/templates.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { extractMotion } from '../../src/engine/motion/extract-motion.js';
import { ANKLE_HEIGHT, TORSO_LEGS, clipBodyScale, combineSoles, soleBelow } from '../../src/engine/motion/sole-depth.js';
import { AFFINE, createRetargeter } from '../../src/engine/render/retarget.js';
import type { MotionTrack } from '../../src/engine/types.js';
import { defaultCharacterRig, mediaPath, missingMedia } from '../helpers/engine-fixtures.js';

/** A matte of one leg: a shin column down to the ankle region, then a foot (sole at row `sole`). */
function legMatte(w: number, h: number, sole: number): Uint8Array {
  const a = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const shin = x >= 44 && x < 56 && y < sole - 10;
      const foot = x >= 38 && x < 70 && y >= sole - 10 && y <= sole;
      if (shin || foot) a[y * w + x] = 200;
    }
  }
  return a;
}

describe('sole under an ankle', () => {
  it('is the last matted row under the ankle, bridging a row or two of missed matte', () => {
    const a = legMatte(100, 120, 90);
    assert.deepEqual(soleBelow(a, 100, 120, 50, 60, 6), { drop: 30, censored: false });
    for (let x = 0; x < 100; x++) a[75 * 100 + x] = 0; // one missed row on the shin
    assert.equal(soleBelow(a, 100, 120, 50, 60, 6)?.drop, 30);
  });

  it('gives nothing when the matte missed the ankle, and flags a foot cut by the frame', () => {
    assert.equal(soleBelow(new Uint8Array(100 * 120), 100, 120, 50, 60, 6), null);
    const a = legMatte(100, 120, 110);
    // The frame ends at row 100 inside a padded crop: the sole is at least there.
    assert.deepEqual(soleBelow(a, 100, 120, 50, 60, 6, 100), { drop: 39, censored: true });
  });

  it('keeps the median of agreeing measures from two frames or more, and nothing otherwise', () => {
    const at = (frame: number, ...shares: number[]) => shares.map((share) => ({ share, frame }));
    assert.deepEqual(combineSoles([...at(1, 0.068, 0.071), ...at(2, 0.07, 0.5, 0.001)]), { share: 0.07, feet: 3 });
    assert.equal(combineSoles(at(1, 0.07, 0.07, 0.07)), null, 'one frame only');
    assert.equal(combineSoles([...at(1, 0.07)]), null, 'too few');
    assert.equal(combineSoles([...at(1, 0.03, 0.04), ...at(2, 0.1, 0.11)]), null, 'measures disagree');
  });
});

describe('the retargeter stands the character on the measured sole', () => {
  it('uses track.sole when present and sane, the barefoot allowance otherwise (old tracks)', async () => {
    const rig = await defaultCharacterRig();
    const track = templateTrack('tpl_idle');
    const stature = clipBodyScale(track.frames) / TORSO_LEGS;
    const old = createRetargeter(rig, track, track.width);
    assert.ok(Math.abs(old.soleDrop - ANKLE_HEIGHT * stature) < 1e-6);
    const heeled: MotionTrack = { ...track, sole: { share: 0.08, feet: 6 } };
    const r = createRetargeter(rig, heeled, track.width);
    assert.ok(Math.abs(r.soleDrop - 0.08 * stature) < 1e-6, `${r.soleDrop} vs ${0.08 * stature}`);
    // The whole character stands lower by the difference on a foot-down frame (scale unchanged here).
    assert.equal(r.scale, old.scale);
    const rootY = (rt: typeof r): number => {
      const j: Array<{ x: number; y: number }> = [];
      rt.pose(5, new Float64Array(10 * AFFINE), j);
      return j[0].y;
    };
    assert.ok(Math.abs(rootY(r) - rootY(old) - (0.08 - ANKLE_HEIGHT) * stature) < 0.5);
    const absurd = createRetargeter(rig, { ...track, sole: { share: 0.5, feet: 3 } }, track.width);
    assert.ok(Math.abs(absurd.soleDrop - old.soleDrop) < 1e-6, 'out of bounds: barefoot allowance');
  });
});

describe('sole measured on a real clip', { skip: missingMedia('videos/animate-x--dance_3.mp4') }, () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'marionette-sole-'));
  });
  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('dance_3 (heeled sandals): the sole is 6-8% of her stature below the ankle, not 3.9%', async () => {
    // Truth read by eye on decoded frames (512x758): ankles at 690-701, shoe soles at 733-755, i.e.
    // 0.066-0.085 of her stature (633 px), median about 0.069.
    const { track } = await extractMotion({
      tools: resolveTools({}),
      videoFile: mediaPath('videos/animate-x--dance_3.mp4'),
      outDir: tmp,
      smoothing: true,
    });
    assert.ok(track.sole, 'a confident sole');
    assert.ok(track.sole.share >= 0.06 && track.sole.share <= 0.08, `sole ${track.sole.share}`);
    assert.ok(track.sole.feet >= 6, `from ${track.sole.feet} feet`);
  });
});
