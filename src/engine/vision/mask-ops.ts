/**
 * Binary mask operations (values 0/1, row-major w*h) used to clean foreground masks. All are linear in
 * the pixel count so they stay cheap at the 512-1024 px working sizes used for analysis.
 */

/** Otsu's threshold over a 256-bin histogram: the level that maximises between-class variance. */
export function otsuThreshold(hist: Uint32Array | number[]): number {
  let total = 0;
  let sum = 0;
  for (let i = 0; i < 256; i++) {
    total += hist[i];
    sum += i * hist[i];
  }
  let wB = 0;
  let sumB = 0;
  let best = 0;
  let bestVar = -1;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t];
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const v = wB * wF * (mB - mF) * (mB - mF);
    if (v > bestVar) {
      bestVar = v;
      best = t;
    }
  }
  return best;
}

/** Square-window dilation (r >= 0) by separable running counts. */
export function dilate(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return boxOp(mask, w, h, r, false);
}

/** Square-window erosion: a pixel survives only when its whole (2r+1)^2 window is set. */
export function erode(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return boxOp(mask, w, h, r, true);
}

function boxOp(mask: Uint8Array, w: number, h: number, r: number, erosion: boolean): Uint8Array {
  if (r <= 0) return mask.slice();
  const tmp = new Uint8Array(w * h);
  const out = new Uint8Array(w * h);
  // The window is clipped at the image edge (erosion compares with the clipped size), so the border
  // behaves as an extension of the nearest pixels rather than as set or unset.
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let c = 0;
    for (let k = 0; k <= Math.min(w - 1, r); k++) c += mask[row + k];
    for (let x = 0; x < w; x++) {
      const a = x - r;
      const b = x + r;
      const size = Math.min(w - 1, b) - Math.max(0, a) + 1;
      tmp[row + x] = (erosion ? c === size : c > 0) ? 1 : 0;
      if (b + 1 < w) c += mask[row + b + 1];
      if (a >= 0) c -= mask[row + a];
    }
  }
  // Columns: one running count per column, advanced a row at a time (rows are contiguous in memory).
  const count = new Int32Array(w);
  for (let k = 0; k <= Math.min(h - 1, r); k++) for (let x = 0, o = k * w; x < w; x++) count[x] += tmp[o + x];
  for (let y = 0; y < h; y++) {
    const size = Math.min(h - 1, y + r) - Math.max(0, y - r) + 1;
    const row = y * w;
    if (erosion) for (let x = 0; x < w; x++) out[row + x] = count[x] === size ? 1 : 0;
    else for (let x = 0; x < w; x++) out[row + x] = count[x] > 0 ? 1 : 0;
    const add = y + r + 1,
      drop = y - r;
    if (add < h) for (let x = 0, o = add * w; x < w; x++) count[x] += tmp[o + x];
    if (drop >= 0) for (let x = 0, o = drop * w; x < w; x++) count[x] -= tmp[o + x];
  }
  return out;
}

export function close(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return erode(dilate(mask, w, h, r), w, h, r);
}

export function open(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return dilate(erode(mask, w, h, r), w, h, r);
}

/** Pixels with mask=0 reachable from the image border through mask=0 (4-connected). */
export function reachableFromBorder(mask: Uint8Array, w: number, h: number): Uint8Array {
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) border.push(y * w, y * w + w - 1);
  return reach4(mask, 0, w, h, border);
}

/**
 * Pixels whose `pass` value is `value` reachable from `seeds` through such pixels, 4-connected (a slanted
 * one-pixel line, a chain of diagonal steps, holds; an 8-neighbour walk slips through it). 1 = reached.
 */
export function reach4(pass: Uint8Array, value: number, w: number, h: number, seeds: Iterable<number>): Uint8Array {
  const seen = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  let top = 0;
  const push = (p: number) => {
    if (pass[p] === value && !seen[p]) {
      seen[p] = 1;
      stack[top++] = p;
    }
  };
  for (const p of seeds) push(p);
  while (top > 0) {
    const p = stack[--top];
    const x = p % w;
    if (x > 0) push(p - 1);
    if (x < w - 1) push(p + 1);
    if (p >= w) push(p - w);
    if (p < (h - 1) * w) push(p + w);
  }
  return seen;
}

/** Sets every enclosed hole (0-region not connected to the border) to 1. */
export function fillHoles(mask: Uint8Array, w: number, h: number): Uint8Array {
  const outside = reachableFromBorder(mask, w, h);
  const out = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) out[p] = outside[p] ? 0 : 1;
  return out;
}

/**
 * Keeps the largest 8-connected component and any other component at least `keepRatio` of its area
 * (drawings often have detached parts such as a hat). Returns the kept area too.
 */
export function keepLargestComponents(mask: Uint8Array, w: number, h: number, keepRatio = 0.15): { mask: Uint8Array; area: number } {
  const labels = new Int32Array(w * h);
  const areas: number[] = [0];
  let largest = 0;
  forEachComponent8(mask, w, h, (members, count) => {
    const id = areas.length;
    for (let i = 0; i < count; i++) labels[members[i]] = id;
    areas.push(count);
    if (count > largest) largest = count;
  });
  const out = new Uint8Array(w * h);
  let kept = 0;
  if (largest === 0) return { mask: out, area: 0 };
  for (let p = 0; p < w * h; p++) {
    const l = labels[p];
    if (l && areas[l] >= largest * keepRatio) {
      out[p] = 1;
      kept++;
    }
  }
  return { mask: out, area: kept };
}

export function maskArea(mask: Uint8Array): number {
  let n = 0;
  for (let p = 0; p < mask.length; p++) n += mask[p] ? 1 : 0;
  return n;
}

/** Bounding box of set pixels, or null when the mask is empty. */
export function maskBounds(mask: Uint8Array, w: number, h: number): { x0: number; y0: number; x1: number; y1: number } | null {
  let x0 = w,
    y0 = h,
    x1 = -1,
    y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return x1 < 0 ? null : { x0, y0, x1, y1 };
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Visits each 8-connected component of `mask` once, in scan order of its first pixel. `visit` gets
 * the component's pixel indices (the first `count` entries of a buffer reused from one component to
 * the next: copy what must outlive the call) and its bounding box. `visit` may clear pixels it was
 * given; no other pixel of the mask may change while this runs.
 */
export function forEachComponent8(
  mask: Uint8Array,
  w: number,
  h: number,
  visit: (members: Int32Array, count: number, box: Box) => void,
): void {
  const n = w * h;
  const seen = new Uint8Array(n);
  const stack = new Int32Array(n);
  const members = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if (!mask[s] || seen[s]) continue;
    let top = 0,
      count = 0;
    let x0 = w,
      y0 = h,
      x1 = -1,
      y1 = -1;
    seen[s] = 1;
    stack[top++] = s;
    while (top > 0) {
      const p = stack[--top];
      members[count++] = p;
      const x = p % w,
        y = (p - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (mask[q] && !seen[q]) {
            seen[q] = 1;
            stack[top++] = q;
          }
        }
      }
    }
    visit(members, count, { x0, y0, x1, y1 });
  }
}
