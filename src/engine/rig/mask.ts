/**
 * Binary-mask helpers on a small working grid (the rig is built at a few hundred pixels; the
 * renderer samples the full texture, so rig precision beyond that buys nothing).
 */

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
  const { w, h, data } = m;
  const label = new Int32Array(w * h).fill(-1);
  const areas: number[] = [];
  const stack = new Int32Array(w * h);
  for (let i = 0; i < w * h; i++) {
    if (!data[i] || label[i] >= 0) continue;
    const id = areas.length;
    let sp = 0;
    let area = 0;
    stack[sp++] = i;
    label[i] = id;
    while (sp > 0) {
      const p = stack[--sp];
      area++;
      const px = p % w;
      const py = (p / w) | 0;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = py + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = px + dx;
          if (nx < 0 || nx >= w) continue;
          const q = ny * w + nx;
          if (data[q] && label[q] < 0) {
            label[q] = id;
            stack[sp++] = q;
          }
        }
      }
    }
    areas.push(area);
  }
  const largest = areas.reduce((a, b) => Math.max(a, b), 0);
  const out = new Uint8Array(w * h);
  let total = 0;
  for (let i = 0; i < w * h; i++) {
    if (label[i] >= 0 && areas[label[i]] >= largest * minFraction) {
      out[i] = 1;
      total++;
    }
  }
  return { mask: { w, h, data: out }, area: total };
}

/** Square-structuring-element dilation by `r` pixels (separable max filter). */
export function dilate(m: Mask, r: number): Mask {
  const { w, h, data } = m;
  const tmp = new Uint8Array(w * h);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let k = Math.max(0, x - r); k <= Math.min(w - 1, x + r) && !v; k++) v = data[y * w + k];
      tmp[y * w + x] = v;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 0;
      for (let k = Math.max(0, y - r); k <= Math.min(h - 1, y + r) && !v; k++) v = tmp[k * w + x];
      out[y * w + x] = v;
    }
  }
  return { w, h, data: out };
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
