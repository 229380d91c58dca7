/**
 * Binary-mask helpers on a small working grid (the rig is built at a few hundred pixels; the
 * renderer samples the full texture, so rig precision beyond that buys nothing).
 */
import { dilate as dilateMask, keepLargestComponents } from '../vision/mask-ops.js';
import type { Point } from './skeleton.js';

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

/** A bone from `a` towards `e`: its length, unit direction, and which side of its line a point lies on. */
export interface BoneFrame {
  a: Point;
  len: number;
  ux: number;
  uy: number;
  /** Sign of the side of the bone's line (x, y) lies on. */
  side: (x: number, y: number) => number;
  /** The side `root` (the hips) lies on, never 0. */
  hipSide: number;
}

/** The bone's frame, or null when the bone has no length or `root` lies on its line. */
export function boneFrame(a: Point, e: Point, root: Point): BoneFrame | null {
  const len = Math.hypot(e.x - a.x, e.y - a.y);
  if (len < 1e-6) return null;
  const ux = (e.x - a.x) / len,
    uy = (e.y - a.y) / len;
  const side = (x: number, y: number): number => Math.sign(ux * (y - a.y) - uy * (x - a.x));
  const hipSide = side(root.x, root.y);
  return hipSide === 0 ? null : { a, len, ux, uy, side, hipSide };
}

/**
 * An armpit: of a region's edge pixels (in it, with a side neighbour out of it) beside the upper arm
 * (along the bone from `tMin` to 1.25 of its length, at most 3r off its line, on the hips' side), the one
 * whose disc of radius `R` scores highest (`discShare`: the share of the disc that is filled, or null
 * to pass the pixel over), above `floor`. Its index on the w x h grid, -1 when none.
 */
export function mostConcaveEdge(
  w: number,
  h: number,
  inRegion: (x: number, y: number) => boolean,
  f: BoneFrame,
  r: number,
  R: number,
  tMin: number,
  floor: number,
  discShare: (x: number, y: number, R: number) => number | null,
): number {
  const { a, len, ux, uy, side, hipSide } = f;
  let found = -1,
    best = floor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!inRegion(x, y) || (inRegion(x - 1, y) && inRegion(x + 1, y) && inRegion(x, y - 1) && inRegion(x, y + 1))) continue;
      const px = x + 0.5 - a.x,
        py = y + 0.5 - a.y;
      const t = (px * ux + py * uy) / len,
        off = Math.abs(px * -uy + py * ux);
      if (t < tMin || t > 1.25 || off > 3 * r || side(x + 0.5, y + 0.5) !== hipSide) continue;
      const share = discShare(x, y, R);
      if (share !== null && share > best) {
        best = share;
        found = y * w + x;
      }
    }
  }
  return found;
}

/** Distance from (x, y) to the segment from a to e. */
export function segmentDistance(x: number, y: number, a: Point, e: Point): number {
  const vx = e.x - a.x,
    vy = e.y - a.y;
  const len2 = vx * vx + vy * vy;
  const t = len2 > 1e-12 ? Math.min(1, Math.max(0, ((x - a.x) * vx + (y - a.y) * vy) / len2)) : 0;
  return Math.hypot(x - a.x - t * vx, y - a.y - t * vy);
}
