/**
 * Binary-mask helpers on a small working grid (the rig is built at a few hundred pixels; the
 * renderer samples the full texture, so rig precision beyond that buys nothing).
 */
import { dilate as dilateMask, keepLargestComponents } from '../vision/mask-ops.js';

export interface Mask {
  w: number;
  h: number;
  /** 1 = inside. */
  data: Uint8Array;
}

/** Nearest-sample the texture alpha at `scale` (working px per texture px), threshold at 50 %. */
export function maskFromAlpha(rgba: Uint8Array, tw: number, th: number, scale: number): Mask {
  const w = Math.max(1, Math.round(tw * scale));
  const h = Math.max(1, Math.round(th * scale));
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const ty = Math.min(th - 1, Math.floor((y + 0.5) / scale));
    for (let x = 0; x < w; x++) {
      const tx = Math.min(tw - 1, Math.floor((x + 0.5) / scale));
      data[y * w + x] = rgba[(ty * tw + tx) * 4 + 3] >= 128 ? 1 : 0;
    }
  }
  return { w, h, data };
}

/** Keeps connected components (8-connected) whose area is at least `minFraction` of the largest. */
export function keepLargeComponents(m: Mask, minFraction: number): { mask: Mask; area: number } {
  const { mask, area } = keepLargestComponents(m.data, m.w, m.h, minFraction);
  return { mask: { w: m.w, h: m.h, data: mask }, area };
}

/** Square-structuring-element dilation by `r` pixels. */
export function dilate(m: Mask, r: number): Mask {
  return { w: m.w, h: m.h, data: dilateMask(m.data, m.w, m.h, r) };
}

/** Chamfer (1, √2) distance from every inside pixel to the nearest outside pixel. */
export function distanceToOutside(m: Mask): Float32Array {
  const { w, h, data } = m;
  const d = new Float32Array(w * h);
  const big = 1e9;
  for (let i = 0; i < w * h; i++) d[i] = data[i] ? big : 0;
  const D = Math.SQRT2;
  const at = (x: number, y: number): number => (x < 0 || y < 0 || x >= w || y >= h ? 0 : d[y * w + x]);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!d[i]) continue;
      d[i] = Math.min(d[i], at(x - 1, y) + 1, at(x, y - 1) + 1, at(x - 1, y - 1) + D, at(x + 1, y - 1) + D);
    }
  }
  for (let y = h - 1; y >= 0; y--) {
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x;
      if (!d[i]) continue;
      d[i] = Math.min(d[i], at(x + 1, y) + 1, at(x, y + 1) + 1, at(x + 1, y + 1) + D, at(x - 1, y + 1) + D);
    }
  }
  return d;
}

export function inside(m: Mask, x: number, y: number): boolean {
  const ix = Math.floor(x);
  const iy = Math.floor(y);
  return ix >= 0 && iy >= 0 && ix < m.w && iy < m.h && m.data[iy * m.w + ix] === 1;
}
