/**
 * Score fields on the rig's working grid, shared by the region rules (weights.ts, drawings.ts): the
 * geodesic distance inside the mask, the half-plane penalty every "stay on your side of a line" rule
 * adds, and a chord of the mask through a point.
 */
import type { Point } from './skeleton.js';
import type { Mask } from './mask.js';

/** Binary heap keyed by float distance, over pixel indices. */
class MinHeap {
  private keys = new Float64Array(1024);
  private vals = new Int32Array(1024);
  size = 0;
  push(k: number, v: number): void {
    if (this.size === this.keys.length) {
      const nk = new Float64Array(this.size * 2);
      nk.set(this.keys);
      this.keys = nk;
      const nv = new Int32Array(this.size * 2);
      nv.set(this.vals);
      this.vals = nv;
    }
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.keys[p] <= k) break;
      this.keys[i] = this.keys[p];
      this.vals[i] = this.vals[p];
      i = p;
    }
    this.keys[i] = k;
    this.vals[i] = v;
  }
  /** Pops the minimum; returns its value, key in `lastKey`. */
  lastKey = 0;
  pop(): number {
    const top = this.vals[0];
    this.lastKey = this.keys[0];
    const k = this.keys[--this.size],
      v = this.vals[this.size];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.size) break;
      if (c + 1 < this.size && this.keys[c + 1] < this.keys[c]) c++;
      if (this.keys[c] >= k) break;
      this.keys[i] = this.keys[c];
      this.vals[i] = this.vals[c];
      i = c;
    }
    this.keys[i] = k;
    this.vals[i] = v;
    return top;
  }
}

/**
 * Drawn strokes as borders (drawings only; ink.ts): a step onto a stroke pixel (`ink` 1) is `along` times
 * as long, so a stroke is no corridor from one part to the next, and a step off a stroke costs `exit`
 * more, so a part reaches its own outline but pays to go on past it (into the paper the rig's dilation
 * seals between an arm and a dress, and the dress's side beyond). A diagonal step between two stroke
 * pixels past two pixels outside the drawing's own mask (`inside` 0) crosses a line of paper one pixel
 * thin and costs `exit` too.
 */
export interface InkWalls {
  ink: Uint8Array;
  inside: Uint8Array;
  exit: number;
  along: number;
}

/** Multi-source Dijkstra on the 8-connected grid of `m`'s inside pixels (with `walls`, see InkWalls). */
export function geodesic(m: Mask, seeds: number[], walls?: InkWalls): Float64Array {
  const { w, h, data } = m;
  // Float64 like the heap keys: a float32 store would round below the popped key and drop nodes.
  const d = new Float64Array(w * h).fill(Infinity);
  const heap = new MinHeap();
  for (const s of seeds) {
    if (data[s] && d[s] !== 0) {
      d[s] = 0;
      heap.push(0, s);
    }
  }
  const D = Math.SQRT2;
  while (heap.size > 0) {
    const p = heap.pop();
    const dp = heap.lastKey;
    if (dp > d[p]) continue;
    const x = p % w,
      y = (p / w) | 0;
    for (let dy = -1; dy <= 1; dy++) {
      const ny = y + dy;
      if (ny < 0 || ny >= h) continue;
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx;
        if ((dx === 0 && dy === 0) || nx < 0 || nx >= w) continue;
        const q = ny * w + nx;
        if (!data[q]) continue;
        let nd = dp + (dx !== 0 && dy !== 0 ? D : 1) * (walls && walls.ink[q] ? walls.along : 1);
        if (walls && walls.ink[p] && (!walls.ink[q] || (dx !== 0 && dy !== 0 && !walls.inside[y * w + nx] && !walls.inside[ny * w + x])))
          nd += walls.exit;
        if (nd < d[q]) {
          d[q] = nd;
          heap.push(nd, q);
        }
      }
    }
  }
  return d;
}

/** Score added per pixel of depth behind a limb bone's joint (past the tolerance, see behindJoint). */
export const BEHIND_JOINT = 2;

/**
 * Adds BEHIND_JOINT per pixel of depth past a line, at most `cap`: the line through `p` square to the
 * unit direction (ux, uy), depth measured along that direction less `slack`. The one walk behind
 * behindJoint and pastJoint.
 */
export function pastLine(d: Float64Array, w: number, p: Point, ux: number, uy: number, slack: number, cap: number): void {
  for (let i = 0; i < d.length; i++) {
    if (!Number.isFinite(d[i])) continue;
    const x = (i % w) + 0.5,
      y = Math.floor(i / w) + 0.5;
    const depth = (x - p.x) * ux + (y - p.y) * uy - slack;
    if (depth > 0) d[i] += Math.min(BEHIND_JOINT * depth, cap);
  }
}

/**
 * Length of the run of inside pixels through `p` along the unit direction (nx, ny), and where it
 * starts (`from`, signed distance from p); 0 when p is outside.
 */
export function chord(m: Mask, p: Point, nx: number, ny: number): { width: number; from: number } {
  const inside = (s: number): boolean => {
    const x = Math.floor(p.x + nx * s),
      y = Math.floor(p.y + ny * s);
    return x >= 0 && y >= 0 && x < m.w && y < m.h && m.data[y * m.w + x] === 1;
  };
  if (!inside(0)) return { width: 0, from: 0 };
  let a = 0,
    b = 0;
  while (inside(a - 0.5) && a > -(m.w + m.h)) a -= 0.5;
  while (inside(b + 0.5) && b < m.w + m.h) b += 0.5;
  return { width: b - a, from: a };
}
