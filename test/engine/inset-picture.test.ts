/**
 * A picture set on a plain canvas is found as its rectangle, and a figure on a plain background is not
 * taken for one (reading.ts, insetPicture; docs/figures.md, "A picture set on a plain canvas").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { borderStats } from '../../src/engine/character/mask-classical.js';
import { insetPicture, type FigureReading } from '../../src/engine/character/reading.js';

const [W, H] = [300, 400];

/** Deterministic numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** An RGBA canvas of grey noise (128 +- 30: within the plain-border test) or of one grey, with `paint` setting the rest. */
function canvas(flat: number | null, paint: (x: number, y: number) => [number, number, number] | null): Buffer {
  const rnd = random(3);
  const rgba = Buffer.alloc(W * H * 4, 255);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const v = flat ?? Math.round(128 + (rnd() * 2 - 1) * 30);
      const c = paint(x, y) ?? [v, v, v];
      rgba.set(c, (y * W + x) * 4);
    }
  }
  return rgba;
}

function inset(rgba: Buffer, method: 'drawing' | 'classical' = 'drawing'): ReturnType<typeof insetPicture> {
  const reading: FigureReading = {
    view: { work: rgba, w: W, h: H, ws: 1, origin: { x: 0, y: 0 } },
    fg: { mask: new Uint8Array(W * H), method, confident: true, evidence: { borderPlainShare: borderStats(rgba, W, H).plainShare } },
    bounds: null,
  };
  return insetPicture(reading, { width: W, height: H });
}

/** A "photo" at x 60-199, y 80-299: a dark-red wall above a brown floor, a lighter band of canvas grey across. */
const photo = (x: number, y: number): [number, number, number] | null =>
  x < 60 || x >= 200 || y < 80 || y >= 300 ? null : y >= 150 && y < 160 ? [128, 128, 128] : y < 220 ? [120, 30, 40] : [90, 60, 30];

describe('a picture set on a plain canvas', () => {
  it('is found as its rectangle on grey noise and on grey, read inside its edge', () => {
    for (const flat of [null, 128]) {
      const region = inset(canvas(flat, photo));
      assert.ok(region, `on ${flat ?? 'noise'}: found`);
      // Inside the pasted picture, within the blur's reach of its edge.
      assert.ok(region.x >= 60 && region.x <= 66 && region.y >= 80 && region.y <= 86, JSON.stringify(region));
      assert.ok(region.x + region.width <= 200 && region.x + region.width >= 194, JSON.stringify(region));
      assert.ok(region.y + region.height <= 300 && region.y + region.height >= 294, JSON.stringify(region));
    }
  });

  it('is not a figure with a body, arms and legs on a flat colour, nor a filled disc', () => {
    // A cup-like body (a box) with arms and legs reaching to its box's sides at a few points.
    const figure = (x: number, y: number): [number, number, number] | null => {
      const body = x >= 110 && x < 190 && y >= 100 && y < 260;
      const arms = y >= 170 && y < 182 && x >= 50 && x < 250;
      const legs = y >= 260 && y < 340 && ((x >= 125 && x < 140) || (x >= 160 && x < 175));
      return body || arms || legs ? [240, 110, 20] : null;
    };
    const disc = (x: number, y: number): [number, number, number] | null => (Math.hypot(x - 150, y - 200) < 100 ? [40, 40, 200] : null);
    for (const [name, paint, flat] of [
      ['figure on white', figure, 255],
      ['figure on black', figure, 0],
      ['disc on white', disc, 255],
    ] as const) {
      assert.equal(inset(canvas(flat, paint)), null, name);
      assert.equal(inset(canvas(flat, paint), 'classical'), null, name);
    }
  });

  it('is not looked for on a picture whose border is not plain', () => {
    // A scene: its border half red, half blue.
    const rgba = canvas(0, (x, y) => photo(x, y) ?? (x < W / 2 ? [200, 30, 30] : [30, 30, 200]));
    assert.equal(inset(rgba), null);
  });
});
