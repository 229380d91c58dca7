/**
 * Clean edges for a cut-out texture: the figure's colours at its boundary, not the picture's old
 * background (issue 10, item 4).
 *
 * A mask enlarged from a working size (and a person model's, read at 256 px) sits a few pixels off the
 * figure's true outline, so the soft alpha edge and a band just inside it carry the background: a
 * white halo from a studio wall, a dark fringe from a bookshelf. Three steps, all O(n) or close:
 *  1. Background inside the mask: within a trim band inside the alpha edge, an opaque pixel whose colour
 *     is nearer a colour of the outside close by than any figure colour past the band, and within
 *     BACKGROUND_DISTANCE of it, is background when it is reached from the outside through such pixels
 *     (a patch enclosed by the figure's own outline stays figure).
 *  2. Local colours: the foreground F extrapolated from the figure's confident interior (past a small
 *     inset, background found in step 1 excluded) and the background B, with its spread, from the
 *     outside, both by pull-push filling.
 *  3. Each band pixel I is read as a mix I = t F + (1 - t) B. Mostly figure (t high): the background
 *     share is taken out, F' = B + (I - B) / t, which keeps true detail (a strand of hair); mostly
 *     background: the extrapolated F. Against a smooth background (little spread: a wall, a flat
 *     fill) t also caps the alpha, and a colour far off the B-F line is the figure's own detail and is
 *     kept. Against a busy one B's mean says nothing about a single pixel: only the background of
 *     step 1 loses its alpha, by how closely it matches.
 * F and B too alike to tell apart: the pixel is left alone (either colour looks the same). Fully
 * transparent pixels carry no colour (everything downstream premultiplies). Drawings, whose
 * background is the known paper colour and whose rim alpha comes from the ink, only have the rim
 * unmixed by its own alpha.
 */

export interface EdgeCleanOptions {
  /**
   * Width in texture px of the band inside the alpha edge whose colours are not trusted: the mask's
   * own uncertainty. 0 keeps every fully opaque pixel and treats only the partial-alpha rim.
   */
  inset: number;
  /** Known background colour (a drawing's paper after its shading is divided out): rim unmixing only. */
  background?: readonly [number, number, number];
  /**
   * Width in texture px of the band inside the alpha edge where an opaque pixel coloured like the
   * outside may be background (step 1). Past it, such colours are the figure's own (a black shirt on
   * a black wall).
   */
  trim?: number;
}

/** Alpha at or above which a pixel counts as solid figure. */
const SOLID = 250;
/** Colour distance (RGB, 0-255) below which foreground and background cannot be told apart. */
const MIN_SEPARATION = 24;
/** Distance (texture px) past the alpha edge from which outside pixels are background references. */
const CLEAR_GAP = 1.5;
/** Background colour spread (RGB standard deviation) up to which it counts as smooth: a wall, paper, a flat fill. */
const SMOOTH_SPREAD = 14;
/** Colour distance within which a pixel matches a background colour. */
const BACKGROUND_DISTANCE = 48;

/**
 * Two-pass chamfer distance (1, sqrt 2) to the nearest pixel where `seed` is set; Infinity when none.
 */
export function distanceTo(seed: Uint8Array, w: number, h: number): Float32Array {
  const d = new Float32Array(w * h);
  for (let p = 0; p < w * h; p++) d[p] = seed[p] ? 0 : Infinity;
  const D = Math.SQRT2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      let v = d[p];
      if (v === 0) continue;
      if (x > 0) v = Math.min(v, d[p - 1] + 1);
      if (y > 0) {
        v = Math.min(v, d[p - w] + 1);
        if (x > 0) v = Math.min(v, d[p - w - 1] + D);
        if (x < w - 1) v = Math.min(v, d[p - w + 1] + D);
      }
      d[p] = v;
    }
  }
  for (let y = h - 1; y >= 0; y--) {
    for (let x = w - 1; x >= 0; x--) {
      const p = y * w + x;
      let v = d[p];
      if (v === 0) continue;
      if (x < w - 1) v = Math.min(v, d[p + 1] + 1);
      if (y < h - 1) {
        v = Math.min(v, d[p + w] + 1);
        if (x < w - 1) v = Math.min(v, d[p + w + 1] + D);
        if (x > 0) v = Math.min(v, d[p + w - 1] + D);
      }
      d[p] = v;
    }
  }
  return d;
}

/**
 * Pull-push fill: `values` (K channels per pixel) everywhere from the pixels where `known` is set, smoothly extrapolated from the
 * nearest of them. Returns null when nothing is known.
 *
 * `only`: the caller reads the result only where it is set (the fill elsewhere is left unfinished), and its
 * `values` are zero off `known` and are the caller's scratch: they become the result, filled in place.
 */
export function pullPush(values: Float32Array, known: Uint8Array, w: number, h: number, only?: Uint8Array): Float32Array | null {
  const K = values.length / (w * h);
  // Level 0: weight 0/1 and the known values.
  const levels: Array<{ w: number; h: number; wt: Float32Array; c: Float32Array }> = [];
  let wt = new Float32Array(w * h);
  let c = only ? values : new Float32Array(w * h * K);
  let any = false;
  for (let p = 0; p < w * h; p++) {
    if (!known[p]) continue;
    any = true;
    wt[p] = 1;
    if (!only) for (let ch = 0; ch < K; ch++) c[p * K + ch] = values[p * K + ch];
  }
  if (!any) return null;
  let lw = w,
    lh = h;
  levels.push({ w: lw, h: lh, wt, c });
  // Pull: 2x2 sums, weights capped at 1 so a full cell does not outvote its fine detail on the way down.
  while (lw > 1 || lh > 1) {
    const nw = Math.max(1, Math.ceil(lw / 2)),
      nh = Math.max(1, Math.ceil(lh / 2));
    const nwt = new Float32Array(nw * nh);
    const nc = new Float32Array(nw * nh * K);
    for (let y = 0; y < lh; y++) {
      const ny = y >> 1;
      for (let x = 0; x < lw; x++) {
        const p = y * lw + x;
        const a = wt[p];
        if (a === 0) continue;
        const q = ny * nw + (x >> 1);
        nwt[q] += a;
        for (let ch = 0; ch < K; ch++) nc[q * K + ch] += c[p * K + ch];
      }
    }
    for (let q = 0; q < nw * nh; q++) {
      const a = nwt[q];
      if (a > 1) {
        for (let ch = 0; ch < K; ch++) nc[q * K + ch] /= a;
        nwt[q] = 1;
      }
    }
    lw = nw;
    lh = nh;
    wt = nwt;
    c = nc;
    levels.push({ w: lw, h: lh, wt, c });
  }
  // Push: each level's missing pixels take the coarser level's (now complete) colour, sampled
  // bilinearly so the extrapolation has no block steps.
  for (let l = levels.length - 2; l >= 0; l--) {
    const fine = levels[l],
      coarse = levels[l + 1];
    for (let y = 0; y < fine.h; y++) {
      const cy = Math.min(coarse.h - 1, Math.max(0, (y + 0.5) / 2 - 0.5));
      const y0 = Math.floor(cy),
        y1 = Math.min(coarse.h - 1, y0 + 1),
        ay = cy - y0;
      for (let x = 0; x < fine.w; x++) {
        const p = y * fine.w + x;
        if (fine.wt[p] >= 1 || (l === 0 && only && !only[p])) continue;
        const cx = Math.min(coarse.w - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
        const x0 = Math.floor(cx),
          x1 = Math.min(coarse.w - 1, x0 + 1),
          ax = cx - x0;
        const a = fine.wt[p];
        for (let ch = 0; ch < K; ch++) {
          const cc = coarse.c;
          const v =
            (cc[(y0 * coarse.w + x0) * K + ch] * (1 - ax) + cc[(y0 * coarse.w + x1) * K + ch] * ax) * (1 - ay) +
            (cc[(y1 * coarse.w + x0) * K + ch] * (1 - ax) + cc[(y1 * coarse.w + x1) * K + ch] * ax) * ay;
          fine.c[p * K + ch] = a * fine.c[p * K + ch] + (1 - a) * v;
        }
        fine.wt[p] = 1;
      }
    }
  }
  return levels[0].c;
}

/**
 * Rewrites the colours of `rgba` (straight alpha, in place) along the figure's edge and, where the
 * background is smooth, takes background-coloured pixels of the edge band out of the alpha.
 */
export function cleanEdges(rgba: Uint8Array, w: number, h: number, opts: EdgeCleanOptions): void {
  if (opts.background) {
    unmixKnownBackground(rgba, w, h, opts.background);
    return;
  }
  const n = w * h;
  const notSolid = new Uint8Array(n);
  const someAlpha = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const a = rgba[p * 4 + 3];
    if (a < SOLID) notSolid[p] = 1;
    if (a > 0) someAlpha[p] = 1;
  }
  const toEdge = distanceTo(notSolid, w, h);
  const toFigure = distanceTo(someAlpha, w, h);
  const trim = Math.max(opts.inset, opts.trim ?? 0);
  const clear = new Uint8Array(n);
  let edgeCount = 0;
  for (let p = 0; p < n; p++) {
    if (toEdge[p] <= trim && toFigure[p] > CLEAR_GAP) clear[p] = 1;
    else if (toEdge[p] <= trim) edgeCount++;
  }
  if (edgeCount === 0) return;
  // Background: its local mean and spread (from the mean of squares).
  const v = new Float32Array(n * 4);
  for (let p = 0; p < n; p++) {
    if (!clear[p]) continue;
    const r = rgba[p * 4],
      g = rgba[p * 4 + 1],
      b = rgba[p * 4 + 2];
    v[p * 4] = r;
    v[p * 4 + 1] = g;
    v[p * 4 + 2] = b;
    v[p * 4 + 3] = r * r + g * g + b * b;
  }
  const B = pullPush(v, clear, w, h);
  if (B) {
    for (let p = 0; p < n; p++) {
      const m2 = B[p * 4] ** 2 + B[p * 4 + 1] ** 2 + B[p * 4 + 2] ** 2;
      B[p * 4 + 3] = Math.sqrt(Math.max(0, B[p * 4 + 3] - m2));
    }
  }
  const deep = new Uint8Array(n);
  const rgb = new Float32Array(n * 3);
  for (let p = 0; p < n; p++) {
    rgb[p * 3] = rgba[p * 4];
    rgb[p * 3 + 1] = rgba[p * 4 + 1];
    rgb[p * 3 + 2] = rgba[p * 4 + 2];
  }
  // Within the trim band, how far each solid pixel's colour is from the nearest colour of the outside
  // nearby (busy backgrounds: stripes, shelves) and from the figure's own colours past the band.
  const near = nearestColours(rgba, w, h, toEdge, clear, trim);
  // Background inside the mask: pixels of the trim band coloured like the outside, reached from the
  // outside through such pixels (so a patch of background-like colour enclosed by the figure's own
  // outline stays figure).
  const cut = new Uint8Array(n);
  const stack: number[] = [];
  for (let p = 0; p < n; p++) {
    if (toEdge[p] === 0 || toEdge[p] > trim) continue;
    const like = near.toOutside[p] < BACKGROUND_DISTANCE && near.toOutside[p] < near.toFigure[p];
    if (!like) continue;
    cut[p] = 2;
    const x = p % w;
    if (
      (x > 0 && toEdge[p - 1] === 0) ||
      (x < w - 1 && toEdge[p + 1] === 0) ||
      (p >= w && toEdge[p - w] === 0) ||
      (p < n - w && toEdge[p + w] === 0)
    ) {
      cut[p] = 1;
      stack.push(p);
    }
  }
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % w;
    for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
      if (q >= 0 && q < n && cut[q] === 2) {
        cut[q] = 1;
        stack.push(q);
      }
    }
  }
  // Figure references: solid past the inset, and not background found inside the mask.
  for (let p = 0; p < n; p++) deep[p] = toEdge[p] > opts.inset && cut[p] !== 1 ? 1 : 0;
  const F = pullPush(rgb, deep, w, h);
  if (!F) return;
  // Busy backgrounds: how much of each pixel stays, by how closely it matched the outside, smoothed
  // over about the inset so the new edge is a soft line, not per-pixel speckle.
  let keep: Float32Array | null = null;
  if (B) {
    keep = new Float32Array(n).fill(1);
    let any = false;
    for (let p = 0; p < n; p++) {
      if (cut[p] !== 1 || B[p * 4 + 3] <= SMOOTH_SPREAD) continue;
      keep[p] = smoothstep(0.25 * BACKGROUND_DISTANCE, BACKGROUND_DISTANCE, near.toOutside[p]);
      any = true;
    }
    keep = any ? boxBlur(keep, w, h, Math.max(1, Math.round(opts.inset))) : null;
  }
  for (let p = 0; p < n; p++) {
    const o = p * 4;
    if (keep && keep[p] < 1 && rgba[o + 3] > 0) {
      // Busy background (step 1), or figure right next to it.
      const k = keep[p];
      for (let c = 0; c < 3; c++) rgba[o + c] = Math.round(k * rgba[o + c] + (1 - k) * F[p * 3 + c]);
      rgba[o + 3] = Math.round(rgba[o + 3] * k);
      if (cut[p] === 1) continue;
    }
    if (deep[p] || toEdge[p] > trim) continue;
    const f0 = F[p * 3],
      f1 = F[p * 3 + 1],
      f2 = F[p * 3 + 2];
    if (rgba[o + 3] === 0) continue;
    if (!B) {
      // No outside to compare with: the interior's colour.
      rgba[o] = Math.round(f0);
      rgba[o + 1] = Math.round(f1);
      rgba[o + 2] = Math.round(f2);
      continue;
    }
    const b0 = B[o],
      b1 = B[o + 1],
      b2 = B[o + 2];
    const d0 = f0 - b0,
      d1 = f1 - b1,
      d2 = f2 - b2;
    const sep2 = d0 * d0 + d1 * d1 + d2 * d2;
    if (sep2 < MIN_SEPARATION * MIN_SEPARATION) continue;
    const i0 = rgba[o],
      i1 = rgba[o + 1],
      i2 = rgba[o + 2];
    // Share of foreground in the pixel's colour, along the line from B to F.
    const tRaw = ((i0 - b0) * d0 + (i1 - b1) * d1 + (i2 - b2) * d2) / sep2;
    const t = Math.max(0, Math.min(1, tRaw));
    // Against a smooth background, a colour far off that line is neither a mix of the two nor
    // background (a stroke, a detail of the figure unlike its interior): it is kept, unless it was
    // recognised as background above. (A busy background's mean says nothing about one pixel.)
    const smooth = B[o + 3] <= SMOOTH_SPREAD;
    const off2 = (i0 - b0) ** 2 + (i1 - b1) ** 2 + (i2 - b2) ** 2 - tRaw * tRaw * sep2;
    if (smooth && off2 > 0.25 * sep2 && cut[p] !== 1) continue;
    // Unmixed where the pixel is mostly figure; the extrapolated interior where it is mostly background.
    const k = smoothstep(0.35, 0.75, t);
    const u = Math.max(t, 1e-3);
    const clamp = (v: number): number => Math.max(0, Math.min(255, v));
    rgba[o] = Math.round(k * clamp(b0 + (i0 - b0) / u) + (1 - k) * f0);
    rgba[o + 1] = Math.round(k * clamp(b1 + (i1 - b1) / u) + (1 - k) * f1);
    rgba[o + 2] = Math.round(k * clamp(b2 + (i2 - b2) / u) + (1 - k) * f2);
    // A smooth background says how much of the pixel is figure: its colour's share sets the alpha.
    if (smooth) rgba[o + 3] = Math.round(rgba[o + 3] * smoothstep(0.1, 0.5, t));
  }
  clearTransparent(rgba, n);
}

/**
 * Fully transparent pixels carry no colour: the renderer premultiplies (and so does sharp when it
 * resamples), so it is never seen, and noise there only makes the PNG larger and slower to write.
 */
function clearTransparent(rgba: Uint8Array, n: number): void {
  for (let p = 0; p < n; p++) if (rgba[p * 4 + 3] === 0) rgba[p * 4] = rgba[p * 4 + 1] = rgba[p * 4 + 2] = 0;
}

/**
 * For every pixel within `band` of the alpha edge: the colour distance to the nearest-coloured outside
 * pixel (`clear`) and to the nearest-coloured figure pixel past the band, both within a window reaching
 * past the band (sampled on a grid of about 12 x 12).
 */
function nearestColours(
  rgba: Uint8Array,
  w: number,
  h: number,
  toEdge: Float32Array,
  clear: Uint8Array,
  band: number,
): { toOutside: Float32Array; toFigure: Float32Array } {
  const n = w * h;
  const toOutside = new Float32Array(n).fill(Infinity);
  const toFigure = new Float32Array(n).fill(Infinity);
  const r = Math.ceil(band) + 3;
  // About 12 x 12 samples per window whatever its size (analysis time budget on 12 MP photos).
  const step = Math.max(2, Math.round(r / 6));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      if (toEdge[p] === 0 || toEdge[p] > band) continue;
      const i0 = rgba[p * 4],
        i1 = rgba[p * 4 + 1],
        i2 = rgba[p * 4 + 2];
      let bo = Infinity,
        bf = Infinity;
      for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy += step) {
        for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx += step) {
          const q = yy * w + xx;
          const isOut = clear[q] === 1;
          if (!isOut && toEdge[q] <= band) continue;
          const d = (rgba[q * 4] - i0) ** 2 + (rgba[q * 4 + 1] - i1) ** 2 + (rgba[q * 4 + 2] - i2) ** 2;
          if (isOut) bo = Math.min(bo, d);
          else bf = Math.min(bf, d);
        }
      }
      toOutside[p] = Math.sqrt(bo);
      toFigure[p] = Math.sqrt(bf);
    }
  }
  return { toOutside, toFigure };
}

/**
 * Drawings: the cut along the ink sets the rim's alpha from the ink at full resolution and the
 * background is the paper's known colour, so a rim pixel is I = a F + (1 - a) paper and its figure
 * colour F = paper + (I - paper) / a. Alpha is left as the cut made it (it follows the outline the
 * artist drew). A faint rim pixel takes the nearest opaque colour instead.
 */
function unmixKnownBackground(rgba: Uint8Array, w: number, h: number, paper: readonly [number, number, number]): void {
  const n = w * h;
  const solid = new Uint8Array(n);
  const rgb = new Float32Array(n * 3);
  for (let p = 0; p < n; p++) {
    if (rgba[p * 4 + 3] < SOLID) continue;
    solid[p] = 1;
    rgb[p * 3] = rgba[p * 4];
    rgb[p * 3 + 1] = rgba[p * 4 + 1];
    rgb[p * 3 + 2] = rgba[p * 4 + 2];
  }
  const F = pullPush(rgb, solid, w, h);
  if (!F) return;
  for (let p = 0; p < n; p++) {
    const o = p * 4;
    const a = rgba[o + 3];
    if (a >= SOLID) continue;
    if (a === 0) continue;
    // Below ~10% the unmixed colour is mostly noise: the nearest opaque colour instead.
    const k = smoothstep(0.05, 0.2, a / 255);
    for (let c = 0; c < 3; c++) {
      const un = Math.max(0, Math.min(255, paper[c] + ((rgba[o + c] - paper[c]) * 255) / a));
      rgba[o + c] = Math.round(k * un + (1 - k) * F[p * 3 + c]);
    }
  }
}

/** Box blur of radius r (separable running sums, edges clamped). */
function boxBlur(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += src[y * w + Math.min(w - 1, Math.max(0, x + d))];
      tmp[y * w + x] = s / (2 * r + 1);
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += tmp[Math.min(h - 1, Math.max(0, y + d)) * w + x];
      out[y * w + x] = s / (2 * r + 1);
    }
  }
  return out;
}

function smoothstep(a: number, b: number, x: number): number {
  const t = Math.max(0, Math.min(1, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
}
