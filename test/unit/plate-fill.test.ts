import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillUnseen, pushPullFill } from '../../src/engine/motion/background-plate.js';

const W = 120,
  H = 90;
const SKY = [90, 160, 230],
  SEA = [20, 60, 110],
  SAND = [200, 180, 140];
const BAR = 12;

/**
 * A letterboxed scene of horizontal bands (sky, sea, sand) with a ripple in the sea, and a tall hole
 * in the middle where a performer always stood.
 */
function scene(): { rgb: Uint8Array; truth: Uint8Array; known: Uint8Array } {
  const truth = new Uint8Array(W * H * 3);
  const known = new Uint8Array(W * H).fill(1);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const band = y < 30 ? SKY : y < 60 ? SEA : SAND;
      const ripple = y >= 30 && y < 60 ? Math.round(8 * Math.sin(x / 3)) : 0;
      const p = (y * W + x) * 3;
      const bar = x < BAR || x >= W - BAR;
      for (let c = 0; c < 3; c++) truth[p + c] = bar ? 0 : band[c] + ripple;
      if (x >= 35 && x < 85 && y >= 5) known[y * W + x] = 0;
    }
  }
  const rgb = new Uint8Array(truth);
  for (let p = 0; p < W * H; p++) if (!known[p]) rgb.fill(0, p * 3, p * 3 + 3);
  return { rgb, truth, known };
}

/** Mean absolute error per channel over the hole, and the darkest filled pixel's brightness. */
function score(rgb: Uint8Array, truth: Uint8Array, known: Uint8Array): { error: number; darkest: number } {
  let sum = 0,
    n = 0,
    darkest = 255;
  for (let p = 0; p < W * H; p++) {
    if (known[p]) continue;
    for (let c = 0; c < 3; c++) sum += Math.abs(rgb[p * 3 + c] - truth[p * 3 + c]);
    n += 3;
    darkest = Math.min(darkest, Math.max(rgb[p * 3], rgb[p * 3 + 1], rgb[p * 3 + 2]));
  }
  return { error: sum / n, darkest };
}

describe('plate inpainting', () => {
  it('continues horizontal bands through a tall hole, without copying the letterbox in', () => {
    const { rgb, truth, known } = scene();
    const before = new Uint8Array(rgb);
    fillUnseen(rgb, known, W, H);
    const row = score(rgb, truth, known);
    // Known pixels are never touched.
    for (let p = 0; p < W * H; p++)
      if (known[p]) assert.deepEqual([...rgb.subarray(p * 3, p * 3 + 3)], [...before.subarray(p * 3, p * 3 + 3)]);
    // The isotropic fill, for comparison: it mixes sky, sea and sand across the band borders.
    const iso = scene();
    pushPullFill(iso.rgb, iso.known, W, H);
    const diffusion = score(iso.rgb, iso.truth, iso.known);
    assert.ok(row.error < 8, `row fill error ${row.error.toFixed(1)}`);
    assert.ok(row.error < diffusion.error / 2, `row fill ${row.error.toFixed(1)} vs diffusion ${diffusion.error.toFixed(1)}`);
    assert.ok(row.darkest > 60, `a letterbox-dark pixel was copied into the hole (${row.darkest})`);
  });

  it('fills rows with no known pixel from the rows around them', () => {
    const known = new Uint8Array(W * H).fill(1);
    const rgb = new Uint8Array(W * H * 3).fill(100);
    for (let x = 0; x < W; x++)
      for (let y = 40; y < 44; y++) {
        known[y * W + x] = 0;
        rgb.fill(0, (y * W + x) * 3, (y * W + x) * 3 + 3);
      }
    fillUnseen(rgb, known, W, H);
    for (let y = 40; y < 44; y++) for (let x = 0; x < W; x++) assert.equal(rgb[(y * W + x) * 3], 100);
  });
});
