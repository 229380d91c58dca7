import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paintScene } from '../../src/engine/generate/scene.js';
import { planScene, SETTINGS } from '../../src/engine/generate/plan.js';

/**
 * The embedded generator's painted settings cover the whole frame: every setting, at the aspect
 * ratios H3 offers and several seeds and colour words, leaves no pixel unpainted (the canvas starts
 * black, so an unpainted band shows as pure black; the forest once had one between sky and grass).
 */
const SIZES: Array<[number, number]> = [
  [854, 480],
  [480, 854],
  [480, 480],
  [1120, 480],
  [640, 480],
];

for (const setting of SETTINGS) {
  test(`the ${setting} setting paints every pixel at every aspect ratio`, () => {
    for (const [w, h] of SIZES) {
      for (const seed of [1, 77, 123456]) {
        const prompt =
          setting === 'studio'
            ? 'a figure claps, red and blue'
            : `a figure claps in the ${setting === 'sky' ? 'sky' : setting}, red and blue`;
        const plan = planScene({ prompt, tags: [], durationS: 3, seed });
        assert.equal(plan.setting, setting, prompt);
        const scene = paintScene(plan, w, h);
        let black = 0;
        let firstBlackRow = -1;
        for (let i = 0; i < w * h; i++) {
          const o = i * 4;
          if (scene.pixels[o] === 0 && scene.pixels[o + 1] === 0 && scene.pixels[o + 2] === 0) {
            black++;
            if (firstBlackRow < 0) firstBlackRow = Math.floor(i / w);
          }
        }
        assert.equal(black, 0, `${setting} ${w}x${h} seed ${seed}: ${black} unpainted pixels from row ${firstBlackRow}`);
        assert.ok(scene.floorY > h * 0.7 && scene.floorY < h, 'the ground line is in the lower part of the frame');
      }
    }
  });
}
