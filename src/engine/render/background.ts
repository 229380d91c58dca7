/**
 * Backgrounds, as RGBA frames whose alpha channel starts at 0 (the rasterizer accumulates the
 * character's coverage there).
 *
 * - solid: the colour.
 * - transparent: black (the colour video shows the character on black).
 * - original: the motion's clean plate (performer removed), scaled to the frame. Templates have no
 *   plate, so they get a neutral studio backdrop: a soft warm-grey wall fading into a slightly darker
 *   floor that starts where the character's feet stand, so the figure reads as standing on it.
 */
import sharp from 'sharp';
import type { BackgroundSpec, MotionAssets } from '../types.js';
import { join } from 'node:path';

export async function backgroundFrame(bg: BackgroundSpec, motion: MotionAssets, W: number, H: number, floorY: number): Promise<Uint8Array> {
  const out = new Uint8Array(W * H * 4);
  if (bg.mode === 'solid') {
    const [r, g, b] = bg.color;
    for (let i = 0; i < W * H; i++) {
      out[i * 4] = r;
      out[i * 4 + 1] = g;
      out[i * 4 + 2] = b;
    }
    return out;
  }
  if (bg.mode === 'transparent') return out;
  if (motion.plateFile) {
    const rgb = await sharp(join(motion.dir, motion.plateFile)).removeAlpha().resize(W, H, { fit: 'fill' }).raw().toBuffer();
    for (let i = 0; i < W * H; i++) {
      out[i * 4] = rgb[i * 3];
      out[i * 4 + 1] = rgb[i * 3 + 1];
      out[i * 4 + 2] = rgb[i * 3 + 2];
    }
    return out;
  }
  neutralBackdrop(out, W, H, floorY);
  return out;
}

/** Wall-to-floor gradient with a soft horizon at `floorY` (a little above the feet). */
export function neutralBackdrop(out: Uint8Array, W: number, H: number, floorY: number): void {
  const horizon = Number.isFinite(floorY) ? Math.min(H * 0.95, Math.max(H * 0.5, floorY - H * 0.04)) : H * 0.8;
  const wallTop = [236, 233, 228],
    wallBottom = [214, 209, 201],
    floorNear = [186, 180, 171],
    floorFar = [200, 195, 187];
  for (let y = 0; y < H; y++) {
    let c: number[];
    if (y < horizon) {
      const t = y / horizon;
      c = wallTop.map((v, i) => v + (wallBottom[i] - v) * t);
    } else {
      const t = (y - horizon) / Math.max(1, H - horizon);
      c = floorFar.map((v, i) => v + (floorNear[i] - v) * t);
    }
    // A 6 px blend hides the horizon step.
    const e = Math.max(0, 1 - Math.abs(y - horizon) / 6) * 0.5;
    for (let x = 0; x < W; x++) {
      // Gentle vignette towards the sides.
      const dx = (x - W / 2) / W;
      const v = 1 - dx * dx * 0.25;
      const o = (y * W + x) * 4;
      out[o] = (c[0] * (1 - e) + wallBottom[0] * e) * v;
      out[o + 1] = (c[1] * (1 - e) + wallBottom[1] * e) * v;
      out[o + 2] = (c[2] * (1 - e) + wallBottom[2] * e) * v;
    }
  }
}
