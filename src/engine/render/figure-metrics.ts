/**
 * Measures of a rendered figure taken from its coverage (the alpha channel of a transparent render,
 * or its mask video): how many pieces it is in, and where its lowest point is. The engine bench and
 * the tests use them; they never steer the render.
 *
 * - Integrity: the figure's pieces, 8-connected, over alpha >= 128; a piece counts when it holds at
 *   least `minShare` (0.5 %) of the figure's covered area, so a few stray pixels of anti-aliasing do
 *   not count but a loose hand or a floating foot does.
 * - Ground contact: on frames where the performer has a foot down, the figure's lowest row against the
 *   performer's lowest ankle.
 */

export interface PiecesResult {
  /** Pieces of at least minShare of the area. */
  pieces: number;
  /** Covered pixels (alpha >= threshold). */
  area: number;
  /** Sizes of the counted pieces, largest first. */
  sizes: number[];
  /** With `labels`: the piece id of every pixel (0 = uncovered) and the id of the largest piece. */
  label?: Int32Array;
  largest?: number;
}

/**
 * Pieces of the figure in one coverage image. `data` holds one sample per pixel at `stride` bytes
 * apart starting at `offset` (1, 0 for a grey mask; 4, 3 for the alpha of RGBA; 4, 0 for the red of
 * a decoded grey video).
 */
export function figurePieces(
  data: Uint8Array,
  w: number,
  h: number,
  opts: { stride?: number; offset?: number; threshold?: number; minShare?: number; labels?: boolean } = {},
): PiecesResult {
  const stride = opts.stride ?? 1,
    offset = opts.offset ?? 0,
    threshold = opts.threshold ?? 128,
    minShare = opts.minShare ?? 0.005;
  const n = w * h;
  const label = new Int32Array(n).fill(-1);
  let area = 0;
  for (let p = 0; p < n; p++) {
    if (data[p * stride + offset] < threshold) continue;
    label[p] = 0;
    area++;
  }
  const sizes: number[] = [];
  const stack = new Int32Array(n);
  let next = 1;
  for (let p = 0; p < n; p++) {
    if (label[p] !== 0) continue;
    let top = 0,
      size = 0;
    stack[top++] = p;
    label[p] = next;
    while (top > 0) {
      const q = stack[--top];
      size++;
      const x = q % w,
        y = (q - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= w) continue;
          const r = ny * w + nx;
          if (label[r] === 0) {
            label[r] = next;
            stack[top++] = r;
          }
        }
      }
    }
    sizes.push(size);
    next++;
  }
  const kept = sizes.filter((s) => s >= minShare * area).sort((a, b) => b - a);
  if (!opts.labels) return { pieces: kept.length, area, sizes: kept };
  for (let p = 0; p < n; p++) if (label[p] < 0) label[p] = 0;
  return { pieces: kept.length, area, sizes: kept, label, largest: 1 + sizes.indexOf(Math.max(...sizes)) };
}

/** The lowest row holding covered pixels (alpha >= threshold), or -1 for an empty image. */
export function lowestRow(
  data: Uint8Array,
  w: number,
  h: number,
  opts: { stride?: number; offset?: number; threshold?: number } = {},
): number {
  const stride = opts.stride ?? 1,
    offset = opts.offset ?? 0,
    threshold = opts.threshold ?? 128;
  for (let y = h - 1; y >= 0; y--) {
    for (let x = 0, o = y * w * stride + offset; x < w; x++, o += stride) if (data[o] >= threshold) return y;
  }
  return -1;
}

export interface ContactSample {
  /** The figure's lowest rendered row (output px), -1 when nothing is drawn. */
  lowest: number;
  /** The performer's lowest visible ankle (output px), null when neither ankle is seen. */
  ankle: number | null;
}

export interface GroundContact {
  /** Frames where the performer has a foot down (scored). */
  frames: number;
  /** Share of those where the figure's lowest point is within `tolerance` × H of the performer's ground point. */
  within: number;
  /** Median signed error (lowest − ground point) over those frames, share of H: > 0 sinks, < 0 floats. */
  offset: number;
  /** Largest |error|, share of H. */
  worst: number;
}

/**
 * Ground contact over sampled frames. A foot is down when the performer's lowest ankle is within
 * `downBand` × H of the clip's ground line (the 90th percentile of the lowest ankle). On those frames
 * the figure's lowest point should be where the performer's sole is: the lowest ankle plus `soleDrop`
 * (the ankle's height above the sole, output px). `within` is the share of those frames where it is
 * within `tolerance` × H.
 */
export function groundContact(samples: ContactSample[], H: number, soleDrop: number, tolerance = 0.03, downBand = 0.02): GroundContact {
  const ankles = samples.flatMap((s) => (s.ankle !== null && s.lowest >= 0 ? [s.ankle] : [])).sort((a, b) => a - b);
  if (ankles.length === 0) return { frames: 0, within: NaN, offset: NaN, worst: NaN };
  const ground = ankles[Math.min(ankles.length - 1, Math.round((ankles.length - 1) * 0.9))];
  const down = samples.filter((s) => s.ankle !== null && s.lowest >= 0 && s.ankle >= ground - downBand * H);
  const errors = down.map((s) => s.lowest - (s.ankle! + soleDrop)).sort((a, b) => a - b);
  let ok = 0,
    worst = 0;
  for (const e of errors) {
    if (Math.abs(e) <= tolerance * H) ok++;
    worst = Math.max(worst, Math.abs(e));
  }
  return { frames: down.length, within: ok / down.length, offset: errors[Math.floor((errors.length - 1) / 2)] / H, worst: worst / H };
}

/**
 * Outline kept (drawn figures): the share of the figure's edge that shows its fill instead of its ink.
 * A drawing's outline is a stroke of ink all round; where a part turns as a plate carved out of the body
 * (a slab of shoulder swung out with an arm) or a seam opens, the edge there is bare fill. `rgba` is a
 * transparent render (colour over black, i.e. premultiplied, and coverage); an edge pixel is a covered pixel (alpha >= 128) with an
 * uncovered 4-neighbour, and it is bare when no covered pixel within `radius` px of it is darker than
 * `inkBelow` (luma, 0-255). The figure's own ink and fill must lie either side of `inkBelow`.
 */
export function bareEdge(
  rgba: Uint8Array,
  w: number,
  h: number,
  opts: { inkBelow: number; radius: number },
): { edge: number; bare: number } {
  const covered = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < w && y < h && rgba[(y * w + x) * 4 + 3] >= 128;
  const r = Math.max(1, Math.round(opts.radius));
  let edge = 0,
    bare = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!covered(x, y) || (covered(x - 1, y) && covered(x + 1, y) && covered(x, y - 1) && covered(x, y + 1))) continue;
      edge++;
      let ink = false;
      for (let dy = -r; dy <= r && !ink; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          if (dx * dx + dy * dy > r * r || !covered(x + dx, y + dy)) continue;
          const p = ((y + dy) * w + x + dx) * 4;
          const luma = (0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2]) * (255 / rgba[p + 3]);
          if (luma < opts.inkBelow) {
            ink = true;
            break;
          }
        }
      }
      if (!ink) bare++;
    }
  }
  return { edge, bare: edge ? bare / edge : 0 };
}
