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

function inset(rgba: Buffer, method: 'drawing' | 'classical' | 'segmentation' = 'drawing'): ReturnType<typeof insetPicture> {
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

/** A textured "photo" colour at (u, v) of its own frame (0-1): a dark-red wall above a brown floor, with grain. */
function photoAt(u: number, v: number, rnd: () => number): [number, number, number] {
  const g = Math.round((rnd() * 2 - 1) * 20);
  const [r, gg, b] = v < 0.6 ? [120, 30, 40] : [90, 60, 30];
  return [r + g, gg + g, b + g].map((c) => Math.max(0, Math.min(255, c))) as [number, number, number];
}

/** The 140 x 220 photo turned by `degrees` about (130, 190); its corners, clockwise from the top-left. */
function turnedPhoto(degrees: number): {
  paint: (x: number, y: number) => [number, number, number] | null;
  corners: Array<[number, number]>;
} {
  const t = (degrees * Math.PI) / 180;
  const [cx, cy, pw, ph] = [130, 190, 140, 220];
  const rnd = random(5);
  const paint = (x: number, y: number): [number, number, number] | null => {
    // Back into the photo's own frame.
    const [dx, dy] = [x - cx, y - cy];
    const u = (Math.cos(t) * dx + Math.sin(t) * dy) / pw + 0.5;
    const v = (-Math.sin(t) * dx + Math.cos(t) * dy) / ph + 0.5;
    return u < 0 || u >= 1 || v < 0 || v >= 1 ? null : photoAt(u, v, rnd);
  };
  const corners = (
    [
      [-pw / 2, -ph / 2],
      [pw / 2, -ph / 2],
      [pw / 2, ph / 2],
      [-pw / 2, ph / 2],
    ] as const
  ).map(([dx, dy]): [number, number] => [cx + Math.cos(t) * dx - Math.sin(t) * dy, cy + Math.sin(t) * dx + Math.cos(t) * dy]);
  return { paint, corners };
}

/** A canvas of 3 x 3 flat coloured blocks, with `paint` setting the rest. */
function blocks(paint: (x: number, y: number) => [number, number, number] | null): Buffer {
  const colours: Array<[number, number, number]> = [
    [200, 60, 50],
    [60, 120, 200],
    [230, 200, 70],
    [70, 160, 90],
    [150, 80, 170],
    [240, 150, 60],
    [90, 200, 210],
    [120, 90, 60],
    [220, 120, 160],
  ];
  return canvas(0, (x, y) => paint(x, y) ?? colours[Math.min(2, Math.floor((y / H) * 3)) * 3 + Math.min(2, Math.floor((x / W) * 3.4))]);
}

describe('a picture set turned on a plain canvas, or on flat coloured blocks', () => {
  it('is found turned on grey noise and on grey, its corners where they are', () => {
    for (const degrees of [15, -15]) {
      const { paint, corners } = turnedPhoto(degrees);
      for (const flat of [null, 128]) {
        // Before: its box's corners are canvas, so it was not taken for a picture (null).
        const region = inset(canvas(flat, paint));
        const name = `turned ${degrees} on ${flat ?? 'noise'}`;
        assert.ok(region?.turned, `${name}: found turned`);
        // Each corner found inside the true one, within the blur's reach and the read-inside margin.
        const found = region.turned.quad;
        for (const [x, y] of corners) {
          const d = Math.min(...found.map((p) => Math.hypot(p.x - x, p.y - y)));
          assert.ok(d <= 14, `${name}: corner ${x.toFixed(0)},${y.toFixed(0)} found ${d.toFixed(1)} px off`);
        }
        const xs = corners.map(([x]) => x),
          ys = corners.map(([, y]) => y);
        assert.ok(region.x >= Math.min(...xs) && region.x + region.width <= Math.max(...xs) + 1, JSON.stringify(region));
        assert.ok(region.y >= Math.min(...ys) && region.y + region.height <= Math.max(...ys) + 1, JSON.stringify(region));
      }
    }
  });

  it('is found on a canvas of flat coloured blocks, read inside its edge', () => {
    const rnd = random(9);
    const paint = (x: number, y: number): [number, number, number] | null =>
      x < 60 || x >= 200 || y < 80 || y >= 300 ? null : photoAt((x - 60) / 140, (y - 80) / 220, rnd);
    // Before: the blocks' border is not plain and nothing was looked for (null).
    const region = inset(blocks(paint), 'segmentation');
    assert.ok(region, 'found');
    assert.equal(region.turned, undefined);
    assert.ok(region.x >= 60 && region.x <= 72 && region.y >= 80 && region.y <= 92, JSON.stringify(region));
    assert.ok(region.x + region.width <= 200 && region.x + region.width >= 188, JSON.stringify(region));
    assert.ok(region.y + region.height <= 300 && region.y + region.height >= 288, JSON.stringify(region));
  });

  it('is not a textured figure on the blocks, nor a turned cross or a disc on grey', () => {
    const rnd = random(4);
    const figure = (x: number, y: number): [number, number, number] | null => {
      const body = x >= 110 && x < 190 && y >= 100 && y < 260;
      const arms = y >= 170 && y < 182 && x >= 50 && x < 250;
      const legs = y >= 260 && y < 340 && ((x >= 125 && x < 140) || (x >= 160 && x < 175));
      return body || arms || legs ? photoAt(0.5, 0.2, rnd) : null;
    };
    assert.equal(inset(blocks(figure), 'segmentation'), null, 'figure on blocks');
    // A cross turned 15 degrees touches its box at four points, as a turned picture does.
    const t = (15 * Math.PI) / 180;
    const cross = (x: number, y: number): [number, number, number] | null => {
      const [dx, dy] = [x - 150, y - 200];
      const [u, v] = [Math.cos(t) * dx + Math.sin(t) * dy, -Math.sin(t) * dx + Math.cos(t) * dy];
      return (Math.abs(u) < 15 && Math.abs(v) < 110) || (Math.abs(v) < 15 && Math.abs(u) < 90) ? [240, 110, 20] : null;
    };
    const disc = (x: number, y: number): [number, number, number] | null => (Math.hypot(x - 150, y - 200) < 100 ? [40, 40, 200] : null);
    assert.equal(inset(canvas(128, cross)), null, 'turned cross on grey');
    assert.equal(inset(canvas(128, disc)), null, 'disc on grey');
  });
});
