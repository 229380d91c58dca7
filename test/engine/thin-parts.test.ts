/**
 * Thin parts the person model dropped (thin-parts.ts): a figure's stick arm with an open hand, missing
 * from its mask on a striped background, is grown back whole; a fruit of the body's colour that does
 * not touch the figure, and a table of the body's colour the legs stand on (a wide contact), stay outside.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeThinParts } from '../../src/engine/character/thin-parts.js';

const W = 400,
  H = 400;
type Rgb = [number, number, number];
const BODY: Rgb = [240, 150, 30];
/** Limbs shaded along their length (green 50 to 110, as on the cup's arm): a drawn limb is not one flat colour. */
const limb = (t: number): Rgb => [235, Math.round(50 + 60 * Math.min(1, Math.max(0, t))), 10];

const inRect = (x: number, y: number, x0: number, y0: number, x1: number, y1: number): boolean => x >= x0 && x <= x1 && y >= y0 && y <= y1;
const inDisc = (x: number, y: number, cx: number, cy: number, r: number): boolean => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

/** Which part of the picture a pixel shows. */
function part(x: number, y: number): 'body' | 'leg' | 'arm' | 'fruit' | 'table' | 'background' {
  if (inRect(x, y, 160, 60, 259, 299)) return 'body';
  if (inRect(x, y, 180, 300, 193, 359) || inRect(x, y, 226, 300, 239, 359)) return 'leg';
  // Upper arm and forearm in one bar, 6 px thick, ending in a hand twice as wide: 2% and 4% of the
  // figure's height, as on the cup (16 and 22 of its 620 working px).
  if (inRect(x, y, 115, 183, 159, 188) || inDisc(x, y, 110, 186, 6)) return 'arm';
  // A fruit of the body's colour, apart from the figure.
  if (inDisc(x, y, 103, 140, 18)) return 'fruit';
  if (y >= 360) return 'table';
  return 'background';
}

function scene(): { rgba: Buffer; mask: Uint8Array } {
  const rgba = Buffer.alloc(W * H * 4);
  const mask = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      const what = part(x, y);
      // Diagonal stripes, 8 px, green and dark blue.
      const stripe: Rgb = Math.floor((x + y) / 8) % 2 ? [40, 150, 60] : [30, 40, 120];
      const c =
        what === 'body' || what === 'table' || what === 'fruit'
          ? BODY
          : what === 'leg'
            ? limb((y - 300) / 60)
            : what === 'arm'
              ? limb((159 - x) / 55)
              : stripe;
      rgba.set([...c, 255], p * 4);
      // The person model's mask: the body and the legs, not the arm.
      if (what === 'body' || what === 'leg') mask[p] = 1;
    }
  }
  return { rgba, mask };
}

test('a stick arm with its hand comes back; a loose fruit and the table under the feet do not', () => {
  const { rgba, mask } = scene();
  const { mask: out, added } = completeThinParts(rgba, W, H, mask);
  const count: Record<string, { in: number; all: number }> = {};
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const k = part(x, y);
      count[k] ??= { in: 0, all: 0 };
      count[k].all++;
      count[k].in += out[y * W + x];
    }
  assert.ok(count.arm.in >= 0.97 * count.arm.all, `arm and hand: ${count.arm.in} of ${count.arm.all}`);
  assert.equal(count.fruit.in, 0, 'fruit');
  assert.equal(count.table.in, 0, 'table');
  assert.equal(count.background.in, 0, 'background');
  assert.equal(added, count.arm.in);
});

test('a mask with nothing missing is left as it is', () => {
  const { rgba, mask } = scene();
  // The arm drawn in the background's colours: nothing of the figure's palette outside the mask.
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) if (part(x, y) !== 'body' && part(x, y) !== 'leg') rgba.set([30, 40, 120, 255], (y * W + x) * 4);
  const { mask: out, added } = completeThinParts(rgba, W, H, mask);
  assert.equal(added, 0);
  assert.deepEqual(out, mask);
});
