/**
 * Thin parts the person model left out. The model reads the picture at 256 px and was trained on
 * people: on a cartoon object with stick arms (a juice cup reaching out with an open hand) a thin
 * limb of a colour no person has drops out of its mask whole, and the texture loses it.
 *
 * Completion at the working size: pixels outside the mask are grown from the mask's edge, breadth
 * first, through pixels whose colour is in the figure's palette and that the outside around them
 * hardly has (a thin limb is a small share of the outside in the window; a table, a wall or a floor is
 * a large one). The growth stops at REACH of the figure's long side from the mask, and a grown piece
 * is kept only when it touches the figure along a short stretch, across about its own width, and stays
 * small: a protrusion (arm, tail, prop), not a same-coloured surface the figure stands on or leans
 * against. A piece that is not connected to the mask is never reached. Runs in analyze.ts only for
 * figures the photo pose models refuse (people keep the person model's mask, refined by their pose).
 */
import { distanceTo } from './edge-colour.js';
import { discOffsets } from './enclosed-background.js';
import { maskBounds } from '../vision/mask-ops.js';

/** Farthest a grown piece reaches from the mask, as a share of the figure's long side. */
const REACH = 0.3;
/** Longest contact with the mask a kept piece may have, as a share of the figure's long side. */
const CONTACT = 0.06;
/** Largest kept piece, as a share of the mask's area. */
const PIECE_AREA = 0.08;
/** Colour bins: 2^(8-BIN_SHIFT) levels a channel. */
const BIN_SHIFT = 4;
const BINS = 256 >> BIN_SHIFT;
/** A bin is of the figure's palette from this share of the mask's area. */
const PALETTE_SHARE = 0.003;
/** Depth (working px) past which mask pixels give the palette (the edge's blend with the outside does not). */
const INSIDE = 2;
/** Radius of the outside window, as a share of the figure's long side. */
const OUTSIDE_WINDOW = 0.15;
/** Smallest kept piece, as a share of the mask's area (specks along the edge stay with the edge cleanup). */
const MIN_PIECE = 0.004;
/**
 * Shortest contact a kept piece may have, as a share of its width (largest inscribed disc) near the
 * contact, within BASE_DEPTH contacts of it: an arm is joined across its own width, whatever the hand
 * past it; a sunlit strip of the table met at a corner is joined across 2 px of its 12 (the cup).
 */
const NECK = 0.35;
const BASE_DEPTH = 3;
/** Colour distance (RGB) within which an outside sample counts as the same colour as the pixel. */
const NEAR_OUTSIDE = 30;
/** Largest share of the outside samples in the window a grown pixel's colour may have. */
const OUTSIDE_SHARE = 0.12;
/** Scattered samples of the outside window. */
const OUTSIDE_SAMPLES = 160;

/** The mask with thin outside parts of the figure's colours added (a new array), and how many pixels came. */
export function completeThinParts(rgba: Buffer, w: number, h: number, mask: Uint8Array): { mask: Uint8Array; added: number } {
  const n = w * h;
  const box = maskBounds(mask, w, h);
  if (!box) return { mask, added: 0 };
  let area = 0;
  const outside = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    if (mask[p]) area++;
    else outside[p] = 1;
  }
  const size = Math.max(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1);
  const reach = Math.max(4, Math.round(REACH * size));
  const toOutside = distanceTo(outside, w, h);
  // The figure's palette: colour bins (BIN levels a channel) holding at least PALETTE_SHARE of the
  // figure, widened by one bin; a thin part far from the edge it leaves (an arm beside the body, like the
  // legs) has the figure's colours somewhere, not always where it touches.
  const bins = new Uint32Array(BINS ** 3);
  const bin = (p: number): number =>
    ((rgba[p * 4] >> BIN_SHIFT) * BINS + (rgba[p * 4 + 1] >> BIN_SHIFT)) * BINS + (rgba[p * 4 + 2] >> BIN_SHIFT);
  for (let p = 0; p < n; p++) if (mask[p] && toOutside[p] >= INSIDE) bins[bin(p)]++;
  const palette = new Uint8Array(BINS ** 3);
  for (let r = 0; r < BINS; r++)
    for (let g = 0; g < BINS; g++)
      for (let b = 0; b < BINS; b++) {
        if (bins[(r * BINS + g) * BINS + b] < PALETTE_SHARE * area) continue;
        for (let i = Math.max(0, r - 1); i <= Math.min(BINS - 1, r + 1); i++)
          for (let j = Math.max(0, g - 1); j <= Math.min(BINS - 1, g + 1); j++)
            for (let k = Math.max(0, b - 1); k <= Math.min(BINS - 1, b + 1); k++) palette[(i * BINS + j) * BINS + k] = 1;
      }
  const outsideOffsets = discOffsets(OUTSIDE_SAMPLES, Math.max(6, Math.round(OUTSIDE_WINDOW * size)), 4);
  const outsideCount = OUTSIDE_SAMPLES;
  const dist2 = (p: number, q: number): number =>
    (rgba[p * 4] - rgba[q * 4]) ** 2 + (rgba[p * 4 + 1] - rgba[q * 4 + 1]) ** 2 + (rgba[p * 4 + 2] - rgba[q * 4 + 2]) ** 2;
  // The 4-neighbours of a pixel (-1 past the picture's edge), in one reused array: no garbage per pixel.
  const nb = new Int32Array(4);
  const neighbours = (p: number): Int32Array => {
    const x = p % w;
    nb[0] = x > 0 ? p - 1 : -1;
    nb[1] = x < w - 1 ? p + 1 : -1;
    nb[2] = p >= w ? p - w : -1;
    nb[3] = p < n - w ? p + w : -1;
    return nb;
  };
  // 0 unvisited, 1 grown, 2 rejected; breadth first so `depth` is the distance walked from the mask.
  const state = new Uint8Array(n);
  const depth = new Int32Array(n);
  const grow = (accept: (p: number) => boolean): void => {
    state.fill(0);
    let queue: number[] = [];
    for (let p = 0; p < n; p++) {
      if (!outside[p]) continue;
      const x = p % w;
      if (!((x > 0 && mask[p - 1]) || (x < w - 1 && mask[p + 1]) || (p >= w && mask[p - w]) || (p < n - w && mask[p + w]))) continue;
      state[p] = accept(p) ? 1 : 2;
      if (state[p] === 1) {
        depth[p] = 1;
        queue.push(p);
      }
    }
    while (queue.length) {
      const next: number[] = [];
      for (const p of queue) {
        if (depth[p] >= reach) continue;
        for (const q of neighbours(p)) {
          if (q < 0 || !outside[q] || state[q]) continue;
          state[q] = accept(q) ? 1 : 2;
          if (state[q] === 1) {
            depth[q] = depth[p] + 1;
            next.push(q);
          }
        }
      }
      queue = next;
    }
  };
  // A thin part counts itself among the outside's colours in its window (an arm 3% of the figure thick
  // is about a tenth of it, less where its shading varies); a surface of the figure's colours is most
  // of it.
  grow((p) => {
    if (!palette[bin(p)]) return false;
    const x = p % w,
      y = (p - x) / w;
    let seen = 0,
      within = 0;
    for (let k = 0; k < outsideOffsets.length; k += 2) {
      const xx = x + outsideOffsets[k],
        yy = y + outsideOffsets[k + 1];
      if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
      const q = yy * w + xx;
      if (!outside[q]) continue;
      seen++;
      // Past this many matches the share is over the bound whatever the remaining samples hold.
      if (dist2(p, q) < NEAR_OUTSIDE * NEAR_OUTSIDE && ++within > OUTSIDE_SHARE * outsideCount) return false;
    }
    return seen > 0 && within <= OUTSIDE_SHARE * seen;
  });
  // Pieces of grown pixels (4-connected): kept when short in contact and small.
  const out = mask.slice();
  const seen = new Uint8Array(n);
  const maxContact = Math.max(3, Math.round(CONTACT * size));
  const maxArea = PIECE_AREA * area;
  const minArea = MIN_PIECE * area;
  let added = 0;
  const stack: number[] = [];
  const piece: number[] = [];
  for (let s = 0; s < n; s++) {
    if (state[s] !== 1 || seen[s]) continue;
    seen[s] = 1;
    stack.push(s);
    piece.length = 0;
    let contact = 0;
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      if (depth[p] === 1) contact++;
      for (const q of neighbours(p)) {
        if (q >= 0 && state[q] === 1 && !seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    if (contact > maxContact || piece.length > maxArea || piece.length < minArea) continue;
    // Joined across its own width: a part of the figure leaves the body about as thick as it is near
    // the body; a sunlit strip of a table met at one corner (a neck far narrower than it) is background.
    const base = piece.filter((p) => depth[p] <= BASE_DEPTH * contact + 4);
    if (contact < NECK * thickness(base, w)) continue;
    for (const p of piece) out[p] = 1;
    added += piece.length;
  }
  return { mask: out, added };
}

/** Width of a piece (pixel indices): twice its largest inscribed radius (chamfer, working px). */
function thickness(piece: number[], w: number): number {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -1,
    y1 = -1;
  for (const p of piece) {
    const x = p % w,
      y = (p - x) / w;
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  }
  // One pixel of margin, so the piece's own border counts as outside it.
  const bw = x1 - x0 + 3,
    bh = y1 - y0 + 3;
  const off = new Uint8Array(bw * bh).fill(1);
  for (const p of piece) {
    const x = p % w,
      y = (p - x) / w;
    off[(y - y0 + 1) * bw + x - x0 + 1] = 0;
  }
  const d = distanceTo(off, bw, bh);
  let r = 0;
  for (let i = 0; i < d.length; i++) if (d[i] > r) r = d[i];
  return 2 * r;
}
