/**
 * Background the person model's mask encloses (issue 10, item 4): the model reads the figure at
 * 256 px and its cleanup closes concavities, so on a busy picture patches of the background between
 * the head and the shoulders, an arm and the body, or the legs go with the figure, deeper than the
 * texture's edge band (edge-colour.ts) can reach.
 *
 * A trimap at the working size: within BAND of the mask's edge (a share of the figure's size) the
 * pixels are unknown; the figure is sure past the band, along the pose's bones (continued past the
 * wrists, the ankles and the face), and wherever a band pixel's colour is unlike every colour of the
 * outside close by. An unknown pixel is background when
 * its colour is within NEAR of an outside colour sampled in a window around it and clearly nearer to
 * it than to any sure figure colour in the same window, and it is reached from the outside through
 * such pixels (a background-coloured detail enclosed by the figure stays). Colours that the figure
 * also has nearby stay figure: a shirt's white stripes beside a white background stay because the
 * shirt has them along its bones. Runs once per analysis at the working size (768 px), whatever the
 * photo's size.
 */
import type { Keypoint } from '../types.js';
import { distanceTo } from './edge-colour.js';
import { close, maskBounds } from '../vision/mask-ops.js';

/**
 * Width of the unknown band, as a share of the figure's long side (working px). The patches the model
 * fills reach that deep on the synthetic figures (between the head and the shoulders on 10 px stripes:
 * 0.04 left half of it); thin limbs lie wholly inside it and rely on their bones.
 */
const BAND = 0.12;
/** Colour distance (RGB) within which a pixel matches an outside colour. */
const NEAR = 40;
/**
 * Share of the outside samples in the window that must lie within NEAR of a pixel's colour: a colour the
 * outside has only in a speck (a shoe the mask missed, standing outside it) does not make background.
 */
const SUPPORT = 0.08;
/** Share of a stranded piece's pixels in the outside's colours for it to go with the cut. */
const ISLAND_COLOURED = 0.5;
/** A band pixel farther than this from every outside colour nearby is sure figure. */
const FAR = 64;
/** How much nearer to the outside than to the figure a background pixel must be (RGB). */
const MARGIN = 16;
/** Scattered samples per window: of the outside, and of the sure figure (a thin stripe of it must be hit). */
const OUTSIDE_SAMPLES = 160;
const FIGURE_SAMPLES = 320;
/** Gap (working px) between the mask and the outside pixels used as background colours. */
const GAP = 2;
/** Radius of the sure-figure capsules along the bones, as a share of the torso's length. */
const BONE_RADIUS = 0.06;
/** Joint score from which a bone is drawn. */
const BONE_SCORE = 0.3;
/** How far past a wrist, an ankle or the nose the sure capsule goes, as a share of its bone. */
const EXTEND = 0.35;
/** Wrists, ankles and the face: the far ends of the forearms, the shins and the neck. */
const EXTREMITIES = new Set([9, 10, 15, 16, -2]);

/**
 * COCO-17 limb bones, the shoulder and hip lines, the spine (shoulders' centre -1 to hips' centre -3) and
 * the neck (-1 to the mean of the confident face points, -2). Not the torso's sides (shoulder to hip):
 * COCO's shoulders lie on the outline, and that line's capsule reached into the gap beside the arm.
 */
const BONES: Array<[number, number]> = [
  [5, 7],
  [7, 9],
  [6, 8],
  [8, 10],
  [11, 13],
  [13, 15],
  [12, 14],
  [14, 16],
  [5, 6],
  [11, 12],
  [-1, -3],
  [-1, -2],
];

/** The mask with background patches inside its band removed (a new array), and how many pixels went. */
export function cutEnclosedBackground(
  rgba: Buffer,
  w: number,
  h: number,
  mask: Uint8Array,
  body: Keypoint[],
): { mask: Uint8Array; removed: number } {
  const n = w * h;
  const box = maskBounds(mask, w, h);
  if (!box) return { mask, removed: 0 };
  const outside = new Uint8Array(n);
  for (let p = 0; p < n; p++) if (!mask[p]) outside[p] = 1;
  const band = Math.max(6, Math.round(BAND * Math.max(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1)));
  const toOutside = distanceTo(outside, w, h);
  const toMask = distanceTo(mask, w, h);
  const sure = new Uint8Array(n);
  for (let p = 0; p < n; p++) if (mask[p] && toOutside[p] > band) sure[p] = 1;
  stampBones(sure, mask, w, h, body);
  // Sure by place (past the band, on a bone), before colours add to it.
  const firm = sure.slice();
  // Window around a band pixel: a disc reaching past the band to the sure figure and beyond the mask,
  // read at a fixed set of scattered offsets (analysis time budget: the band holds most of the mask).
  const r = band + 4;
  const outsideOffsets = discOffsets(OUTSIDE_SAMPLES, r, 1);
  const figureOffsets = discOffsets(FIGURE_SAMPLES, r, 2);
  const dist2 = (p: number, q: number): number =>
    (rgba[p * 4] - rgba[q * 4]) ** 2 + (rgba[p * 4 + 1] - rgba[q * 4 + 1]) ** 2 + (rgba[p * 4 + 2] - rgba[q * 4 + 2]) ** 2;
  /** Nearest colour among the window's `ref` pixels, and (in `share`) the share of them within NEAR. */
  let share = 0;
  const nearest = (p: number, ref: Uint8Array, offs: Int32Array): number => {
    const x = p % w,
      y = (p - x) / w;
    let best = Infinity,
      seen = 0,
      within = 0;
    for (let k = 0; k < offs.length; k += 2) {
      const xx = x + offs[k],
        yy = y + offs[k + 1];
      if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
      const q = yy * w + xx;
      if (!ref[q]) continue;
      const d = dist2(p, q);
      seen++;
      if (d < NEAR * NEAR) within++;
      if (d < best) best = d;
    }
    share = seen ? within / seen : 0;
    return Math.sqrt(best);
  };
  const clearRef = new Uint8Array(n);
  for (let p = 0; p < n; p++) if (toMask[p] > GAP) clearRef[p] = 1;
  const toBg = new Float32Array(n).fill(Infinity);
  const support = new Float32Array(n);
  for (let p = 0; p < n; p++) {
    if (!mask[p] || sure[p]) continue;
    toBg[p] = nearest(p, clearRef, outsideOffsets);
    support[p] = share;
    if (toBg[p] > FAR) sure[p] = 1;
  }
  const like = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    if (sure[p] || toBg[p] >= NEAR || support[p] < SUPPORT) continue;
    if (toBg[p] + MARGIN < nearest(p, sure, figureOffsets)) like[p] = 1;
  }
  // Reached from the outside through background-like pixels (4-connected), across gaps of a pixel or
  // two: the blend between two background colours (a checker's square edges) is rare outside and so
  // fails the support test, which would otherwise wall each square off.
  const bridged = close(like, w, h, 1);
  for (let p = 0; p < n; p++) like[p] = bridged[p] && mask[p] && !firm[p] ? 1 : 0;
  const out = mask.slice();
  const stack: number[] = [];
  for (let p = 0; p < n; p++) {
    if (!like[p]) continue;
    const x = p % w;
    if ((x > 0 && outside[p - 1]) || (x < w - 1 && outside[p + 1]) || (p >= w && outside[p - w]) || (p < n - w && outside[p + w])) {
      out[p] = 0;
      stack.push(p);
    }
  }
  let removed = stack.length;
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % w;
    for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
      if (q >= 0 && q < n && like[q] && out[q]) {
        out[q] = 0;
        removed++;
        stack.push(q);
      }
    }
  }
  // What matches the outside's colours, whatever the figure has: the test for a stranded piece.
  const outsideColoured = new Uint8Array(n);
  for (let p = 0; p < n; p++) if (toBg[p] < NEAR && support[p] >= SUPPORT) outsideColoured[p] = 1;
  removed += dropIslands(out, mask, firm, outsideColoured, w, h);
  return { mask: out, removed };
}

/**
 * Pieces of the mask the cut left standing on their own (4-connected): the squares of a checker in a
 * figure's colour between squares that were cut. A piece is dropped when it has no sure-by-place pixel
 * (bone or past the band), borders the cut, and mostly has the outside's colours; parts of the figure
 * that were apart from the start (a ball held away from the body) do not border it, and a fox's ear
 * cut off along its outline has its own colour. Returns the pixels dropped (`out` is updated in place).
 */
function dropIslands(out: Uint8Array, mask: Uint8Array, firm: Uint8Array, outsideColoured: Uint8Array, w: number, h: number): number {
  const n = w * h;
  const seen = new Uint8Array(n);
  const stack: number[] = [];
  const piece: number[] = [];
  let dropped = 0;
  for (let s = 0; s < n; s++) {
    if (!out[s] || seen[s]) continue;
    seen[s] = 1;
    stack.push(s);
    piece.length = 0;
    let anchored = false,
      bordersCut = false,
      coloured = 0;
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      if (firm[p]) anchored = true;
      coloured += outsideColoured[p];
      const x = p % w;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
        if (q < 0 || q >= n) continue;
        if (out[q]) {
          if (!seen[q]) {
            seen[q] = 1;
            stack.push(q);
          }
        } else if (mask[q]) bordersCut = true;
      }
    }
    if (anchored || !bordersCut || coloured < ISLAND_COLOURED * piece.length) continue;
    for (const p of piece) out[p] = 0;
    dropped += piece.length;
  }
  return dropped;
}

/**
 * Marks mask pixels within BONE_RADIUS of the confident bones as sure figure. The limbs go on past the
 * wrists and ankles and the head past the nose by EXTEND of their bone (hands, shoes, the top of the
 * head: a dark shoe on a night sky has no bone of its own).
 */
function stampBones(sure: Uint8Array, mask: Uint8Array, w: number, h: number, body: Keypoint[]): void {
  const ok = (i: number): boolean => body[i] !== undefined && body[i].score >= BONE_SCORE;
  if (!ok(5) || !ok(6)) return;
  // Seen from behind the nose is a guess; the ears or eyes still place the head.
  const face = [0, 1, 2, 3, 4].filter(ok);
  const head = face.length
    ? { x: face.reduce((a, i) => a + body[i].x, 0) / face.length, y: face.reduce((a, i) => a + body[i].y, 0) / face.length }
    : null;
  const hips = ok(11) && ok(12) ? { x: (body[11].x + body[12].x) / 2, y: (body[11].y + body[12].y) / 2 } : null;
  const shoulders = { x: (body[5].x + body[6].x) / 2, y: (body[5].y + body[6].y) / 2 };
  const at = (i: number): Point | null => (i >= 0 ? (ok(i) ? body[i] : null) : i === -1 ? shoulders : i === -2 ? head : hips);
  const torso = hips ? Math.hypot(shoulders.x - hips.x, shoulders.y - hips.y) : Math.hypot(body[5].x - body[6].x, body[5].y - body[6].y);
  const rad = Math.max(2, BONE_RADIUS * torso);
  for (const [i, j] of BONES) {
    const a = at(i),
      b = at(j);
    if (!a || !b) continue;
    stampCapsule(sure, mask, w, h, a, b, rad);
    // Extremities: past the wrists, the ankles and the face.
    if (EXTREMITIES.has(j)) stampCapsule(sure, mask, w, h, b, { x: b.x + (b.x - a.x) * EXTEND, y: b.y + (b.y - a.y) * EXTEND }, rad);
  }
}

type Point = { x: number; y: number };

function stampCapsule(sure: Uint8Array, mask: Uint8Array, w: number, h: number, a: Point, b: Point, rad: number): void {
  const bx0 = Math.max(0, Math.floor(Math.min(a.x, b.x) - rad)),
    bx1 = Math.min(w - 1, Math.ceil(Math.max(a.x, b.x) + rad));
  const by0 = Math.max(0, Math.floor(Math.min(a.y, b.y) - rad)),
    by1 = Math.min(h - 1, Math.ceil(Math.max(a.y, b.y) + rad));
  const dx = b.x - a.x,
    dy = b.y - a.y;
  const len2 = dx * dx + dy * dy || 1;
  for (let y = by0; y <= by1; y++) {
    for (let x = bx0; x <= bx1; x++) {
      const p = y * w + x;
      if (!mask[p]) continue;
      const t = Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / len2));
      if (Math.hypot(x - a.x - t * dx, y - a.y - t * dy) <= rad) sure[p] = 1;
    }
  }
}

/** `count` pixel offsets (dx, dy pairs) scattered over a disc of radius `r`, the same for the same seed. */
export function discOffsets(count: number, r: number, seed: number): Int32Array {
  const o = new Int32Array(count * 2);
  let s = seed;
  const rnd = (): number => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  for (let k = 0; k < count;) {
    const dx = Math.round((rnd() * 2 - 1) * r),
      dy = Math.round((rnd() * 2 - 1) * r);
    if (dx * dx + dy * dy > r * r) continue;
    o[k * 2] = dx;
    o[k * 2 + 1] = dy;
    k++;
  }
  return o;
}
