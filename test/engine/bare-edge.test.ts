/**
 * The outline-kept measure (render/figure-metrics.ts, bareEdge): a drawn figure's edge shows its ink
 * all round; where a plate of fill swings out or a seam opens, the edge there is bare fill.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bareEdge } from '../../src/engine/render/figure-metrics.js';

/** A disc of light fill (radius 60) with a dark ring 6 px wide, on black, premultiplied; the share `bareShare` of its edge (by angle) without ink. */
function disc(bareShare: number): Uint8Array {
  const w = 160,
    h = 160;
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const d = Math.hypot(x + 0.5 - 80, y + 0.5 - 80);
      if (d > 60) continue;
      const turn = (Math.atan2(y + 0.5 - 80, x + 0.5 - 80) + Math.PI) / (2 * Math.PI);
      const ink = d > 54 && turn >= bareShare;
      const p = (y * w + x) * 4;
      out.set(ink ? [40, 30, 120, 255] : [200, 200, 196, 255], p);
    }
  }
  return out;
}

test('bareEdge: an outlined disc has no bare edge; a quarter without its outline is a quarter bare', () => {
  const whole = bareEdge(disc(0), 160, 160, { inkBelow: 110, radius: 3 });
  assert.ok(whole.edge > 300, `${whole.edge} edge pixels`);
  assert.equal(whole.bare, 0);
  const quarter = bareEdge(disc(0.25), 160, 160, { inkBelow: 110, radius: 3 });
  assert.ok(Math.abs(quarter.bare - 0.25) < 0.03, `bare share ${quarter.bare.toFixed(3)}`);
});

test('bareEdge: a half-covered rim pixel is judged by its own colour, not by its darkening over black', () => {
  const img = disc(1);
  // Premultiplied: the fill at half coverage reads 100 over black, which is not ink.
  for (let p = 0; p < img.length; p += 4) if (img[p + 3]) img.set([100, 100, 98, 128], p);
  assert.equal(bareEdge(img, 160, 160, { inkBelow: 110, radius: 3 }).bare, 1);
});
