import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fusePoses } from '../../src/engine/character/analyze.js';
import type { Keypoint } from '../../src/engine/types.js';

/** A front-facing figure: its left side on the image's right. */
function figure(score: number): Keypoint[] {
  const k = (x: number, y: number): Keypoint => ({ x, y, score });
  return [
    k(100, 20),
    k(105, 15),
    k(95, 15),
    k(110, 18),
    k(90, 18),
    k(130, 50),
    k(70, 50),
    k(140, 90),
    k(60, 90),
    k(145, 130),
    k(55, 130),
    k(120, 140),
    k(80, 140),
    k(122, 200),
    k(78, 200),
    k(124, 260),
    k(76, 260),
  ];
}

describe('fusePoses', () => {
  it('keeps the joints MoveNet is sure of and takes the rest from BlazePose', () => {
    const movenet = figure(0.8);
    movenet[15] = { x: 124, y: 210, score: 0.2 }; // an ankle at mid-shin, unsure
    const blaze = figure(0.9).map((k) => ({ ...k, x: k.x + 3 }));
    const fused = fusePoses(movenet, blaze)!;
    assert.deepEqual(fused[15], blaze[15]);
    for (const i of [0, 5, 11, 13, 16]) assert.deepEqual(fused[i], movenet[i]);
  });

  it("matches BlazePose's left and right to MoveNet's before borrowing a joint", () => {
    const movenet = figure(0.8);
    movenet[16] = { x: 76, y: 215, score: 0.1 };
    // BlazePose read the figure as seen from behind: same places, left and right labels swapped.
    const blaze = figure(0.9).map((k, i, all) => {
      const pair: Record<number, number> = {
        1: 2,
        2: 1,
        3: 4,
        4: 3,
        5: 6,
        6: 5,
        7: 8,
        8: 7,
        9: 10,
        10: 9,
        11: 12,
        12: 11,
        13: 14,
        14: 13,
        15: 16,
        16: 15,
      };
      return pair[i] === undefined ? k : all[pair[i]];
    });
    const fused = fusePoses(movenet, blaze)!;
    assert.equal(fused[16].x, 76);
    assert.equal(fused[16].y, 260);
  });

  it('uses whichever model found a body when only one did', () => {
    const only = figure(0.7);
    assert.equal(fusePoses(null, only), only);
    assert.equal(fusePoses(only, null), only);
    assert.equal(fusePoses(null, null), null);
  });
});
