/**
 * Gaps the ink threshold leaves in a drawing's outline (character/stroke-gaps.ts, through drawingMask at
 * the working size): a stretch of pencil drawn lighter than the ink level. Strokes cut where they cross
 * a ruled line are checked on the bench's photos (test/engine/drawings.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { drawingMask } from '../../src/engine/character/drawing.js';

const W = 768,
  H = 576;

/** A sheet lit unevenly with `body` drawn on it, as working-size RGBA with a little sensor noise. */
async function sheet(body: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <defs><linearGradient id="l"><stop offset="0" stop-color="#f2ede0"/><stop offset="1" stop-color="#dcd6c8"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#l)"/>${body}</svg>`;
  const { data } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let seed = 11;
  for (let p = 0; p < W * H; p++) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    const n = (seed / 4294967296 - 0.5) * 4;
    for (let c = 0; c < 3; c++) data[p * 4 + c] = Math.max(0, Math.min(255, data[p * 4 + c] + n));
  }
  return data;
}

/** Share of the ellipse (cx 380, cy 296, rx 150, ry 80) that the mask covers, and of the mask outside it grown by 12 px. */
function bodyCover(mask: Uint8Array): { inside: number; outside: number } {
  let inside = 0,
    area = 0,
    outside = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const e = ((x - 380) / 150) ** 2 + ((y - 296) / 80) ** 2;
      const grown = ((x - 380) / 162) ** 2 + ((y - 296) / 92) ** 2;
      if (e <= 1) {
        area++;
        inside += mask[y * W + x];
      } else if (grown > 1) outside += mask[y * W + x];
    }
  }
  return { inside: inside / area, outside };
}

test('a pencil outline with a stretch drawn lighter than the ink level is closed and filled', async () => {
  // A body outline in grey pencil, its lower left quarter drawn light: 9% darker than the paper (under the
  // ink level, over the paper's grain), the rest 35% darker; two legs hang under it. Before, the light
  // stretch left the outline open and the body's inside was lost (the pencil pig small on a 12 MP photo).
  const rgba = await sheet(`
    <g fill="none" stroke-width="2">
      <path d="M230 296 A150 80 0 0 1 530 296 A150 80 0 0 1 380 376" stroke="#000" stroke-opacity="0.35"/>
      <path d="M380 376 A150 80 0 0 1 230 296" stroke="#000" stroke-opacity="0.09"/>
      <path d="M300 366 L300 430 L330 430 L330 372 M430 372 L430 430 L460 430 L460 366" stroke="#000" stroke-opacity="0.35"/>
    </g>`);
  const d = drawingMask(rgba, W, H);
  const c = bodyCover(d.mask);
  assert.ok(c.inside >= 0.95, `body covered ${(100 * c.inside).toFixed(1)}%`);
  assert.ok(c.outside <= 6000, `${c.outside} px outside the body and its legs' reach`);
});
