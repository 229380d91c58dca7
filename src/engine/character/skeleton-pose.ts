/**
 * Joints of a drawn figure from its silhouette's skeleton (medial axis), for drawings that pose models
 * trained on photos do not read.
 *
 *  1. The mask's box is reduced (max-pooled, so single-line limbs survive) to <= 320 px, thinned to a
 *     one-pixel skeleton (Zhang-Suen) and given a distance transform (the local half thickness).
 *  2. The root is the thickest skeleton point in the middle of the figure (belly, body); every skeleton
 *     pixel gets its path to the root (breadth-first over the skeleton).
 *  3. Branch ends are the extremities. Spurs (ends whose branch is shorter than the body is thick where
 *     it joins) are ignored. Upright figure: head = the upper end nearest the root's vertical, feet =
 *     the lowest end on each side, hands = the remaining end reaching furthest out on each side (one arm
 *     alone when it leaves the body below its top 30% and reaches out sideways, at most 45° above the
 *     horizontal).
 *     Four-legged figure (wider than tall, four ends below the body): the head is on the side with more
 *     mass above the body line; the front legs take the arm slots, the hind legs the leg slots.
 *  4. Along a limb's path from its end to the root: where the limb enters the body (the thickness
 *     jumps above 1.6x the limb's own) is the shoulder or hip (an arm's shoulder is where it leaves the
 *     torso's outline at the armpit when one is seen, arm-root.ts); the hand or foot is the centre of an
 *     end blob when there is one (the thickest point of the outer 30%), else the end; the elbow or knee
 *     is halfway along the path between them, as an artist annotates a drawn limb.
 *
 * Returns COCO-17 keypoints in the mask's pixels, or null when no limb structure is found (the caller
 * then keeps the proportion heuristic).
 */
import type { Keypoint } from '../types.js';
import { maskBounds } from '../vision/mask-ops.js';
import { armpitSide, armRootIndex, hangingShoulder, neckRow, raisedArmpit, shoulderUnderNeck } from './arm-root.js';
import { isOtherLeg, legColumn } from './leg-column.js';

export interface SkeletonPose {
  body: Keypoint[];
  kind: 'biped' | 'quadruped';
  /** COCO indices whose joint came from a skeleton branch (others are filled from proportions). */
  fromSkeleton: number[];
  /** The hips lie on the top of legs drawn together (leg-column.ts), not where a leg's branch enters the body. */
  hipsOnColumn?: boolean;
}

interface Pt {
  x: number;
  y: number;
}

/** Share of the head's round that must lie above the shoulders' line. */
const HEAD_FIT = 0.8;

/**
 * A branch ending within HEAD_REACH head radii of the head's centre whose path passes within HEAD_SPIKE
 * radii of it is the head's own (hair, a brim), not an arm.
 */
const HEAD_SPIKE = 0.75;
const HEAD_REACH = 2.5;
/** A hand's blob: thicker than its arm's line by this factor, within this many grid px of the end (endsInBlob). */
const HAND_BLOB = 1.6;
const HAND_SPAN = 12;

/**
 * A stick figure's raised arm running beside its head: the arm's line touches the head's outline, so the
 * skeleton's path from the hand runs into the head's round like a hair's spike's. A spike stands out at
 * most 0.5 head radii before its path reaches the head's round, the raised arms of the stick figures
 * among generated seeds 1-120 0.7-1.4 radii; an end whose path runs further than this outside the round
 * is an arm.
 */
const STICK_ARM_REACH = 0.6;

/**
 * An outlined figure's raised arm beside a big head with hair: its hand lies as far out as the hair
 * (2.2-2.4 head radii from the head's centre, generated seeds 30 and 48, a mitten or round hand under
 * HAND_BLOB times the arm), and the arm's path joins the head's through its round, so the hand was taken
 * for hair and the arm left to the proportions (joints 0.50 and 0.75). The hair's spikes and wedges of
 * the outlined figures among generated seeds 1-96 run at most 1.00 head radii of path outside the round
 * before entering it (seed 57's, seed 18's 0.85), those raised arms 1.16-1.39; an end whose path runs
 * further than this, halfway between, outside the round is an arm.
 */
const ARM_REACH = 1.08;

/**
 * A stick figure: the lowest end's path from the root is, from some point on (the neck) and for at least
 * 0.3 of the figure's height, a line no thicker than this share of the figure's height (an outlined
 * body is thicker).
 */
const STICK_LINE = 0.03;
/**
 * ... and whose half thickness along that stretch is, at its median, at most this share of the figure's
 * height: a pen's line. The outlined legs of a big head or a box body are tubes under STICK_LINE too
 * (generated seeds 60, 63, 88: median 0.025-0.029 as drawn), a stick figure's lines 0.005-0.012 as
 * drawn and on a 3 MP photo.
 */
const STICK_PEN = 0.018;

/** A head's round as a path meets it: see skeletonPose's headRound. */
interface HeadRound {
  spike: (path: number[]) => boolean;
  entry: (path: number[]) => number;
}

/** A path that does not enter a head's round (no head found). */
const noHeadEntry = (): number => -1;

/** Narrowest column of legs drawn together, as a share of the figure's width (leg-column.ts). */
const LEG_COLUMN_MIN = 0.06;

/** Score given to joints read from a skeleton branch: a measurement, but not a pose model's. */
const SKELETON_SCORE = 0.6;

function thin(img: Uint8Array, w: number, h: number): Uint8Array {
  const m = img.slice();
  const del: number[] = [];
  let changed = true;
  while (changed) {
    changed = false;
    for (let pass = 0; pass < 2; pass++) {
      del.length = 0;
      for (let y = 1; y < h - 1; y++) {
        for (let x = 1; x < w - 1; x++) {
          const p = y * w + x;
          if (!m[p]) continue;
          const p2 = m[p - w],
            p3 = m[p - w + 1],
            p4 = m[p + 1],
            p5 = m[p + w + 1];
          const p6 = m[p + w],
            p7 = m[p + w - 1],
            p8 = m[p - 1],
            p9 = m[p - w - 1];
          const b = p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
          if (b < 2 || b > 6) continue;
          const seq = [p2, p3, p4, p5, p6, p7, p8, p9, p2];
          let a = 0;
          for (let k = 0; k < 8; k++) if (!seq[k] && seq[k + 1]) a++;
          if (a !== 1) continue;
          if (pass === 0 ? p2 * p4 * p6 !== 0 || p4 * p6 * p8 !== 0 : p2 * p4 * p8 !== 0 || p2 * p6 * p8 !== 0) continue;
          del.push(p);
        }
      }
      for (const p of del) m[p] = 0;
      if (del.length) changed = true;
    }
  }
  return m;
}

/** Chamfer (3-4) distance to the nearest background pixel, in pixels. */
function distance(mask: Uint8Array, w: number, h: number): Float32Array {
  const INF = 1e9;
  const d = new Float32Array(w * h);
  for (let p = 0; p < w * h; p++) d[p] = mask[p] ? INF : 0;
  const at = (x: number, y: number): number => (x < 0 || y < 0 || x >= w || y >= h ? 0 : d[y * w + x]);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      if (!d[p]) continue;
      d[p] = Math.min(d[p], at(x - 1, y) + 3, at(x, y - 1) + 3, at(x - 1, y - 1) + 4, at(x + 1, y - 1) + 4);
    }
  }
  for (let y = h - 1; y >= 0; y--) {
    for (let x = w - 1; x >= 0; x--) {
      const p = y * w + x;
      if (!d[p]) continue;
      d[p] = Math.min(d[p], at(x + 1, y) + 3, at(x, y + 1) + 3, at(x + 1, y + 1) + 4, at(x - 1, y + 1) + 4);
    }
  }
  for (let p = 0; p < w * h; p++) d[p] /= 3;
  return d;
}

function lerp(a: [number, number], b: [number, number], t: number): [number, number] {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}

export function skeletonPose(mask: Uint8Array, W: number, H: number): SkeletonPose | null {
  // The figure's box, reduced by max-pooling to <= 320 px (a limb one pixel wide stays connected), with a
  // one-pixel empty frame: a small figure in a large photo keeps its own resolution.
  let bx0 = W,
    by0 = H,
    bx1 = -1,
    by1 = -1;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      if (mask[y * W + x]) {
        if (x < bx0) bx0 = x;
        if (x > bx1) bx1 = x;
        if (y < by0) by0 = y;
        if (y > by1) by1 = y;
      }
  if (bx1 < 0) return null;
  const f = Math.max(1, Math.ceil(Math.max(bx1 - bx0 + 1, by1 - by0 + 1) / 320));
  const w = Math.ceil((bx1 - bx0 + 1) / f) + 2,
    h = Math.ceil((by1 - by0 + 1) / f) + 2;
  const m = new Uint8Array(w * h);
  for (let y = by0; y <= by1; y++)
    for (let x = bx0; x <= bx1; x++) if (mask[y * W + x]) m[(Math.floor((y - by0) / f) + 1) * w + Math.floor((x - bx0) / f) + 1] = 1;
  const dt = distance(m, w, h);
  const sk = thin(m, w, h);
  const gridToImage = ([x, y]: [number, number]): Pt => ({ x: bx0 + (x - 1 + 0.5) * f - 0.5, y: by0 + (y - 1 + 0.5) * f - 0.5 });
  const gridPt = (p: number): [number, number] => [p % w, Math.floor(p / w)];
  const toImage = (p: number): Pt => gridToImage(gridPt(p));
  const gridIndex = ({ x, y }: Pt): number => (Math.round((y - by0 + 0.5) / f - 0.5) + 1) * w + Math.round((x - bx0 + 0.5) / f - 0.5) + 1;

  const box = maskBounds(m, w, h);
  if (!box || box.x1 <= box.x0 || box.y1 <= box.y0) return null;
  const { x0, x1, y0, y1 } = box;
  const bw = x1 - x0 + 1,
    bh = y1 - y0 + 1;

  // Root: the thickest skeleton point in the figure's middle band.
  let root = -1;
  const quadrupedShape = bw > 1.25 * bh;
  for (let p = 0; p < w * h; p++) {
    if (!sk[p]) continue;
    const x = p % w,
      y = (p - x) / w;
    const inBand = quadrupedShape ? x > x0 + 0.2 * bw && x < x1 - 0.2 * bw : y > y0 + 0.25 * bh && y < y0 + 0.8 * bh;
    if (inBand && (root < 0 || dt[p] > dt[root])) root = p;
  }
  if (root < 0) return null;

  // Breadth-first over the skeleton from the root: parent of each pixel, and the degree of each.
  const nbrs = (p: number): number[] => {
    const out: number[] = [];
    for (const d of [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1]) if (sk[p + d]) out.push(p + d);
    return out;
  };
  const grow = (from: number): { parent: Int32Array; order: number[] } => {
    const parent = new Int32Array(w * h).fill(-1);
    const order: number[] = [from];
    parent[from] = from;
    for (let i = 0; i < order.length; i++) {
      for (const q of nbrs(order[i])) {
        if (parent[q] < 0) {
          parent[q] = order[i];
          order.push(q);
        }
      }
    }
    return { parent, order };
  };
  let { parent, order } = grow(root);
  const pathToRoot = (p: number): number[] => {
    const path = [p];
    while (parent[path[path.length - 1]] !== path[path.length - 1]) path.push(parent[path[path.length - 1]]);
    return path;
  };
  // A stick figure's root (the thickest skeleton point in the middle band) lay in its head's round (hands
  // raised above it) or a hand's, and every limb's path ran up into it: the hips and knees at the
  // crotch, the shoulders inside the head. When the lowest end's path from the root is, from some point
  // on, a thin line (the body's, then a leg's), the root goes to where the legs part (where another low
  // end's path meets it), and the arms are attached on the body's line below the head (stickBody).
  let stick = false;
  const firstRoot = root;
  const thinLine = Math.max(1.5, STICK_LINE * bh);
  {
    const child = new Uint8Array(w * h);
    for (const p of order) if (parent[p] !== p) child[parent[p]] = 1;
    const low = order.filter((p) => !child[p]).sort((a, b) => b - a);
    const trunk = low.length ? pathToRoot(low[0]).reverse() : [];
    const neck = trunk.findIndex((q) => dt[q] <= thinLine);
    const line = neck >= 0 ? trunk.slice(neck).map((q) => dt[q]) : [];
    const thin =
      line.length >= 0.3 * bh && line.every((d) => d <= thinLine) && line.sort((a, b) => a - b)[line.length >> 1] <= STICK_PEN * bh;
    if (thin) {
      const onTrunk = new Map(trunk.map((q, i) => [q, i]));
      let crotch = -1;
      for (const other of low.slice(1)) {
        const meet = pathToRoot(other).find((q) => onTrunk.has(q));
        const at = meet === undefined ? -1 : onTrunk.get(meet)!;
        if (at > neck && at < trunk.length - 0.1 * bh) {
          crotch = meet!;
          break;
        }
      }
      if (crotch >= 0) {
        stick = true;
        root = crotch;
        ({ parent, order } = grow(root));
      }
    }
  }
  // A stick figure's body line: the head's path (or, with no end at the head, the path from the first root)
  // from below the head's round (its last pixel thicker than a line) down to the root.
  const bodyLine = (path: number[]): Set<number> => {
    let below = path.length - 1;
    while (below > 0 && dt[path[below - 1]] <= thinLine) below--;
    return new Set(path.slice(below));
  };
  // (The first root in a hand's round, out to the side, gives no body line.)
  const aboveRoot = Math.abs((firstRoot % w) - (root % w)) < 0.25 * bw;
  let stickBody: Set<number> | null = stick && aboveRoot ? bodyLine(pathToRoot(firstRoot)) : null;
  // The neck's grid row (shoulderUnderNeck), once the head is known; NaN without a head.
  let neck = NaN;
  // Ends: skeleton pixels reached from the root with no child, that are not spurs. A branch runs from
  // its end up to the first pixel whose subtree holds a longer branch (staircase corners of the
  // thinned line make one-pixel side leaves, which this measures as length 0).
  // A limb's own stretch (`own`, where its thickness is measured) ends there too, or sooner where another
  // branch as long as a limb (not a spur) joins it, going elsewhere: two arms of one length met below a
  // head drawn without a neck (no end of its own, generated seed 19), and each arm's branch, tied with the
  // other's, ran on down the dress to the root, so the arm's thickness was read on the dress (its shoulder
  // put where the arms meet, inside the head). A branch whose end lies nearer this end than the junction
  // does runs alongside it (a round hand's outline thinned into two tracks, seed 67): the same limb.
  const hasChild = new Uint8Array(w * h);
  const height = new Int32Array(w * h);
  // The end of a pixel's longest child's subtree, and the length (height plus one; 0: none) and end of the
  // second longest (a tie repeats the longest's length).
  const deepest = new Int32Array(w * h);
  for (let p = 0; p < w * h; p++) deepest[p] = p;
  const runnerUp = new Int32Array(w * h);
  const runnerEnd = new Int32Array(w * h).fill(-1);
  for (let i = order.length - 1; i > 0; i--) {
    const p = order[i];
    const q = parent[p];
    hasChild[q] = 1;
    if (height[p] + 1 > height[q]) {
      [runnerUp[q], runnerEnd[q]] = [height[q], deepest[q]];
      [height[q], deepest[q]] = [height[p] + 1, deepest[p]];
    } else if (height[p] + 1 > runnerUp[q]) {
      [runnerUp[q], runnerEnd[q]] = [height[p] + 1, deepest[p]];
    }
  }
  const ends: Array<{ p: number; x: number; y: number; path: number[]; branch: number; own: number }> = [];
  for (const p of order) {
    if (hasChild[p]) continue;
    const path = pathToRoot(p);
    let branch = 0;
    while (branch < path.length - 1 && height[path[branch + 1]] === height[path[branch]] + 1) branch++;
    const thick = dt[path[Math.min(path.length - 1, branch + 1)]];
    if (branch < Math.max(3, thick + 2) || path.length < 4) continue;
    const [px, py] = gridPt(p);
    const away = (q: number): number => Math.hypot((q % w) - px, Math.floor(q / w) - py);
    let own = 0;
    while (own < branch) {
      const q = path[own + 1];
      const mine = deepest[q] === deepest[path[own]];
      const [other, otherEnd] = mine ? [runnerUp[q], runnerEnd[q]] : [height[q], deepest[q]];
      if (other >= Math.max(3, dt[q] + 2) && otherEnd >= 0 && away(otherEnd) > away(q)) break;
      own++;
    }
    ends.push({ p, x: p % w, y: Math.floor(p / w), path, branch, own });
  }
  if (ends.length < 3) return null;
  const rx = root % w,
    ry = Math.floor(root / w);

  /**
   * Limb joints from an end's path: [attach (shoulder/hip), middle (elbow/knee), end (hand/foot)].
   * `headEntry` gives the index at which an arm's path enters the head's round (-1 when it does not).
   */
  const limb = (
    { path, branch, own }: { path: number[]; branch: number; own: number },
    arm = false,
    headEntry: HeadRound['entry'] = noHeadEntry,
  ): [Pt, Pt, Pt] => {
    // The limb's own thickness, measured on its branch (not on the body it joins); an arm's on its own
    // stretch (a leg's hip comes from the proportions, and its knee stays where it was: char3's moved
    // 4 px when its legs' stretch ended at the crotch).
    const n = Math.max(4, Math.min(path.length, (arm ? own : branch) + 1));
    const lo = Math.floor(n * 0.2);
    let hi = Math.max(lo + 1, Math.floor(n * 0.6));
    // An arm's stretch may run on into a head that has no end of its own (a round head without hair, a
    // dress with one arm raised beside it, generated seed 87): no branch joins there, and its thickness
    // was read on the head (r 15.3 grid px for an arm of 9), too thick for the shoulder's jump to fire
    // before the head's centre. The stretch measured stops where the line thickens past 1.6x its
    // thickness so far (the rule that finds a limb's shoulder, below).
    if (arm) {
      const seen: number[] = [];
      for (let i = lo; i < hi; i++) {
        const d = dt[path[i]];
        if (seen.length >= 3 && d > 1.6 * [...seen].sort((a, b) => a - b)[seen.length >> 1] + 1) {
          hi = i;
          break;
        }
        seen.push(d);
      }
    }
    const radii = path
      .slice(lo, hi)
      .map((p) => dt[p])
      .sort((a, b) => a - b);
    const r = radii[radii.length >> 1] ?? 1;
    let e = n - 1;
    for (let i = Math.floor(n * 0.3); i < n; i++) {
      if (dt[path[i]] > 1.6 * r + 1) {
        e = i;
        break;
      }
    }
    // A drawn arm's shoulder where it leaves the torso's outline (arm-root.ts), when an armpit was seen.
    const armRoot = arm ? armRootIndex(path, w, armpitSide(m, w, rx, y0, y1, path, r), r) : -1;
    if (armRoot > 0) e = armRoot;
    // Hand or foot: the centre of a blob at the end (a mitten hand, a shoe), else near the end itself.
    let tip = 0;
    for (let i = 0; i < Math.max(1, Math.floor(e * 0.3)); i++) if (dt[path[i]] > dt[path[tip]]) tip = i;
    if (dt[path[tip]] < 1.3 * r) tip = Math.min(e, Math.round(r * 0.5));
    // A stick figure's arm: attached where its path reaches the body's line, its elbow halfway between
    // there and the hand. A raised arm whose line runs along the head's outline down to the neck is
    // attached where its path enters the head's round, where the arm leaves the head: the stretch along
    // the head's outline stays with the head (attached at the neck, the arm's bones took the head's lower
    // rim and the arm tore off it as it swung down).
    const onBody = arm && stickBody ? path.findIndex((q) => stickBody!.has(q)) : -1;
    const intoHead = onBody > tip ? headEntry(path) : -1;
    if (intoHead > tip && intoHead < onBody)
      return [toImage(path[intoHead]), toImage(path[Math.round((intoHead + tip) / 2)]), toImage(path[tip])];
    if (onBody > tip) {
      const [hx, hy] = gridPt(path[tip]);
      const [nx, ny] = gridPt(path[onBody]);
      return [toImage(path[onBody]), gridToImage([(hx + nx) / 2, (hy + ny) / 2]), toImage(path[tip])];
    }
    // A hanging arm touching the torso above its armpit: the shoulder further up, where the arm joins it;
    // the elbow halfway along the whole arm (on the path, or on the walked line above the armpit; a path
    // step counts as one grid px).
    const hung = armRoot > 0 ? hangingShoulder(m, w, h, rx, gridPt(path[e]), gridPt(path[tip]), r) : null;
    if (hung) {
      const half = (e - tip + hung.walked) / 2;
      const elbow =
        tip + half <= e
          ? toImage(path[Math.round(tip + half)])
          : gridToImage(lerp(gridPt(path[e]), hung.at, (tip + half - e) / hung.walked));
      return [gridToImage(hung.at), elbow, toImage(path[tip])];
    }
    // A raised arm whose path turned up into a big head: the shoulder at the armpit's corner below, the
    // elbow halfway along the whole arm (the path down to where it turned, then the line to the corner).
    const corner = arm && !stick ? raisedArmpit(m, w, rx, y1, gridPt(path[e]), gridPt(path[tip]), r) : null;
    if (corner) {
      const extra = Math.hypot(corner[0] - (path[e] % w), corner[1] - Math.floor(path[e] / w));
      const half = (e - tip + extra) / 2;
      const elbow =
        tip + half <= e ? toImage(path[Math.round(tip + half)]) : gridToImage(lerp(gridPt(path[e]), corner, (tip + half - e) / extra));
      return [gridToImage(corner), elbow, toImage(path[tip])];
    }
    const lowered = arm ? shoulderUnderNeck(m, w, rx, neck, gridPt(path[e]), gridPt(path[tip]), r) : null;
    if (lowered) return [gridToImage(lowered.shoulder), gridToImage(lowered.elbow), toImage(path[tip])];
    const mid = Math.round((tip + e) / 2);
    return [toImage(path[e]), toImage(path[mid]), toImage(path[tip])];
  };

  /**
   * The centre of the largest round the path (end first) passes through above `limitY` (image px): the
   * round's lower part must stay above that line (a head without a neck merges into the body, whose
   * rounds are larger). A pigtail's or a spike's end blob is smaller than the head it hangs from.
   */
  const headCentre = (path: number[], limitY: number): Pt => {
    let best = path[0];
    for (const p of path) {
      const y = toImage(p).y;
      if (y > limitY) break;
      if (dt[p] > dt[best] && y + HEAD_FIT * dt[p] * f <= limitY) best = p;
    }
    return toImage(best);
  };

  /**
   * Whether a branch (its path, end first) ends in a blob: a hand drawn as a mitten or a round, at least
   * HAND_BLOB times as thick within its first HAND_SPAN grid pixels as along the line after them. Hair and a
   * brim are lines to their ends; a raised hand beside the head reaches as far out as a big head's hair
   * (generated seeds 38 and 47: hands 1.6-1.7 head radii sideways, seed 18's hair 1.7-1.9).
   */
  const endsInBlob = (path: number[]): boolean => {
    let blob = 0;
    for (let i = 0; i < Math.min(path.length, HAND_SPAN); i++) blob = Math.max(blob, dt[path[i]]);
    const line = path
      .slice(HAND_SPAN, 2 * HAND_SPAN)
      .map((q) => dt[q])
      .sort((a, b) => a - b);
    return line.length > 0 && blob >= HAND_BLOB * line[line.length >> 1];
  };

  /**
   * The head's round on `headPath` (end first): whether an end is a spike of it (`spike`), and the index
   * at which a path enters it (`entry`, -1 when it does not).
   *
   * Whether an end is a spike of the head (hair, a hat's brim): it lies within HEAD_REACH head radii of
   * the head's centre and no lower than it (on `headPath`, end first) and its path, before it joins the head's, passes within
   * HEAD_SPIKE radii of that centre, through the head. An arm's path reaches the head's path at the neck,
   * on the head's rim. A big head's spikes reach further out than a hanging arm's hand and were taken for
   * hands (generated seeds 8 and 18). On a stick figure, an end whose path runs more than STICK_ARM_REACH
   * head radii outside the head's round is a raised arm whose line touches the head (seeds 38, 47, 49,
   * 107: their wrists were put on the body's line and the arms' bones took the spine, every frame in
   * pieces); an outlined figure's spikes are wedges reaching as far (seed 18's).
   */
  const headRound = (headPath: number[] | null, limitY: number): HeadRound => {
    const none = { spike: () => false, entry: noHeadEntry };
    if (!headPath) return none;
    const centre = headPath.indexOf(gridIndex(headCentre(headPath, limitY)));
    if (centre < 0) return none;
    const on = new Set(headPath);
    const [cx, cy] = gridPt(headPath[centre]);
    const r = dt[headPath[centre]];
    const from = (q: number): number => {
      const [x, y] = gridPt(q);
      return Math.hypot(x - cx, y - cy);
    };
    const entry = (path: number[]): number => path.findIndex((q) => from(q) <= r);
    const spike = (path: number[]): boolean => {
      // Hair and a brim stand on the head, above its centre; a hand hanging beside a big round body whose
      // arm's path crosses it (a cartoon cup read as a head) ends lower; a raised hand ends in a blob.
      if (on.has(path[0]) || from(path[0]) > HEAD_REACH * r || gridPt(path[0])[1] > cy || endsInBlob(path)) return false;
      if (entry(path) > (stick ? STICK_ARM_REACH : ARM_REACH) * r) return false;
      for (const q of path) {
        if (on.has(q)) break;
        if (from(q) <= HEAD_SPIKE * r) return true;
      }
      return false;
    };
    return { spike, entry };
  };

  const used = new Set<number>();
  const below = ends.filter((e) => e.y > ry);
  let kind: SkeletonPose['kind'] = 'biped';
  let arms: Array<[Pt, Pt, Pt] | null> = [];
  let legs: [Pt, Pt, Pt][] = [];
  let head: Pt | null = null;
  if (quadrupedShape && below.length >= 3) {
    kind = 'quadruped';
    // Head side: more figure above the root's row on that side.
    let left = 0,
      right = 0;
    for (let y = y0; y < ry; y++)
      for (let x = x0; x <= x1; x++)
        if (m[y * w + x]) {
          if (x < rx) left++;
          else right++;
        }
    const headRight = right >= left;
    const feet = below
      .sort((a, b) => b.y - a.y)
      .slice(0, 4)
      .sort((a, b) => (headRight ? b.x - a.x : a.x - b.x));
    // Front legs on the head's side of the body's middle, hind legs on the other; a leg not found is
    // stood in for by its pair. A four-legged figure is seen from the side; which of a pair is "left"
    // does not matter to the viewer.
    const mid = (x0 + x1) / 2;
    const hanging = legsBelowBelly(m, w, x0, x1, y0, y1);
    if (hanging && hanging.legs.length >= 3) {
      // The legs as they hang below the belly: a short, wide leg (a pig's) has no skeleton branch of its
      // own (its medial axis is a spur of the body's), and its branch, when there is one, enters the body
      // well above where the leg meets it.
      const sorted = hanging.legs.sort((a, b) => (headRight ? b.x - a.x : a.x - b.x));
      const isFrontLeg = (l: HangingLeg): boolean => (headRight ? l.x >= mid : l.x <= mid);
      let front = sorted.filter(isFrontLeg).slice(0, 2),
        hind = sorted.filter((l) => !isFrontLeg(l)).slice(0, 2);
      if (!front.length || !hind.length) return null;
      if (front.length === 1) front = [front[0], front[0]];
      if (hind.length === 1) hind = [hind[0], hind[0]];
      const asLimb = (l: HangingLeg): [Pt, Pt, Pt] => [toImage(l.attach), toImage(l.knee), toImage(l.foot)];
      arms = front.map(asLimb);
      legs = hind.map(asLimb);
      for (const e of ends) if (e.y > hanging.belly) used.add(e.p);
    } else {
      const isFront = (e: (typeof feet)[number]): boolean => (headRight ? e.x >= mid : e.x <= mid);
      let front = feet.filter(isFront).slice(0, 2),
        hind = feet.filter((e) => !isFront(e)).slice(0, 2);
      if (!front.length || !hind.length) return null;
      if (front.length === 1) front = [front[0], front[0]];
      if (hind.length === 1) hind = [hind[0], hind[0]];
      const pair = (legsPair: typeof feet): [Pt, Pt, Pt][] => legsPair.map((e) => limb(e));
      arms = pair(front);
      legs = pair(hind);
      for (const e of feet) used.add(e.p);
    }
    let best = -1,
      bestScore = -Infinity;
    for (const e of ends) {
      if (used.has(e.p)) continue;
      const s = (headRight ? e.x : -e.x) - e.y * 0.5;
      if (s > bestScore) [best, bestScore] = [e.p, s];
    }
    const hEnd = ends.find((e) => e.p === best);
    head = hEnd ? toImage(hEnd.p) : null;
    const body = buildBody(head, arms, legs, toImage(root), true);
    return body ? { body, kind, fromSkeleton: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] } : null;
  }

  // Upright figure. Feet: lowest end on each side of the root, in the lower half.
  const lowHalf = ends.filter((e) => e.y > y0 + 0.55 * bh);
  const footR = lowHalf.filter((e) => e.x < rx).sort((a, b) => b.y - a.y)[0];
  const footL = lowHalf.filter((e) => e.x >= rx).sort((a, b) => b.y - a.y)[0];
  const fromSkeleton: number[] = [];
  let hipsOnColumn = false;
  // An outlined figure's legs drawn together are one column (a stick figure's legs are lines, rooted
  // where they part, above): unless the second foot's column stands on the lowest one's hip
  // line (legs apart), the lowest column is split into two legs (leg-column.ts); the second foot stays
  // for the hands (an arm hanging beside the legs; the column's other toe lies too low for a hand).
  const lowest = [footR, footL].filter((e) => e !== undefined).sort((a, b) => b.y - a.y)[0];
  const second = lowest === footR ? footL : footR;
  const column = lowest && !stick ? legColumn(m, w, lowest.path, LEG_COLUMN_MIN * bw) : null;
  const secondColumn = column && second ? legColumn(m, w, second.path, 0) : null;
  if (column && !(secondColumn && isOtherLeg(w, column, lowest.path, secondColumn, second.path))) {
    legs = column.legs.map((l) => l.map(gridToImage) as [Pt, Pt, Pt]);
    hipsOnColumn = true;
    used.add(lowest.p);
    fromSkeleton.push(11, 12, 13, 14, 15, 16);
  } else if (footR && footL) {
    legs = [limb(footL), limb(footR)];
    used.add(footR.p).add(footL.p);
    fromSkeleton.push(11, 12, 13, 14, 15, 16);
  }
  // Head: an upper end near the root's vertical.
  const upper = ends.filter((e) => !used.has(e.p) && e.y < y0 + 0.4 * bh);
  const h0 = upper.sort((a, b) => Math.abs(a.x - rx) + 0.5 * (a.y - y0) - (Math.abs(b.x - rx) + 0.5 * (b.y - y0)))[0];
  if (h0 && Math.abs(h0.x - rx) < 0.25 * bw) {
    head = toImage(h0.p);
    used.add(h0.p);
    if (stick) stickBody = bodyLine(h0.path);
    neck = neckRow(m, w, rx, Math.floor(gridIndex(headCentre(h0.path, toImage(root).y)) / w), ry);
  }
  // Hands: the remaining end reaching furthest out on each side, above the feet, that is not a spike of
  // the head's (hair, a hat's brim): its branch must not join the head's path inside the head's round.
  const round = headRound(h0 && head ? h0.path : null, toImage(root).y);
  const rest = ends.filter((e) => !used.has(e.p) && e.y < y0 + 0.8 * bh && !round.spike(e.path));
  const handR = rest.filter((e) => e.x < rx).sort((a, b) => a.x - b.x)[0];
  const handL = rest.filter((e) => e.x > rx).sort((a, b) => b.x - a.x)[0];
  if (handR && handL && Math.min(rx - handR.x, handL.x - rx) > 0.12 * bw) {
    arms = [limb(handL, true, round.entry), limb(handR, true, round.entry)];
    fromSkeleton.push(5, 6, 7, 8, 9, 10);
  } else {
    // One arm only (the other not drawn, or lost by the mask: the juice cup's image-left arm): a branch
    // reaching out sideways from the body's side is that arm: it leaves the body below the figure's top
    // 30% and reaches out at most 45° above the horizontal, so a straw, a leaf or a tuft on top of the
    // figure is not taken for an arm.
    const single = (e: (typeof ends)[number] | undefined): [Pt, Pt, Pt] | null => {
      if (!e || Math.abs(e.x - rx) <= 0.12 * bw) return null;
      const l = limb(e, true, round.entry);
      const top = toImage((y0 + Math.round(0.3 * bh)) * w).y;
      return l[0].y > top && l[0].y - l[2].y < Math.abs(l[2].x - l[0].x) ? l : null;
    };
    arms = [single(handL), single(handR)];
    if (arms[0]) fromSkeleton.push(5, 7, 9);
    if (arms[1]) fromSkeleton.push(6, 8, 10);
  }
  if (!fromSkeleton.length) return null;
  // The head keypoint is the head's centre, not the end that led to it: a pigtail, a crown's spike or a
  // hat's tip is an upper end too (char2's right pigtail stood in for its head, so the head bone lay 45
  // degrees off upright and every frame turned the face by as much). Along that end's path to the root:
  // the centre of its largest round above the shoulders.
  const shoulderYs = arms.flatMap((a) => (a ? [a[0].y] : []));
  if (head && h0) head = headCentre(h0.path, shoulderYs.length ? Math.min(...shoulderYs) : toImage(root).y);
  const body = buildBody(head, arms, legs, toImage(root), false);
  return body ? { body, kind, fromSkeleton, hipsOnColumn } : null;
}

interface HangingLeg {
  /** Mean column of the leg. */
  x: number;
  /** Pixel indices (reduced grid) of the leg's top where it meets the belly, its middle and its foot. */
  attach: number;
  knee: number;
  foot: number;
}

/**
 * A four-legged figure's legs, as the parts of the silhouette hanging below its belly. The belly is the
 * lowest row crossed by one run of at least half the figure's width; below it, every 8-connected part
 * reaching at least half way down to the figure's bottom, with at least a tenth of the largest part's
 * area, is a leg (two legs touching are split where their lower halves part, while fewer than four were found). Along a leg's centre line (mean column of each row) the attach point is its top (the
 * first row as narrow as the leg itself), the
 * foot 85% of the way down (an annotated foot sits above the sole's edge), the knee halfway between.
 * Null when no belly line leaves room for legs below it.
 */
function legsBelowBelly(
  m: Uint8Array,
  w: number,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
): { belly: number; legs: HangingLeg[] } | null {
  const bw = x1 - x0 + 1;
  let belly = -1;
  for (let y = y1; y >= y0 && belly < 0; y--) {
    let start = -1;
    for (let x = x0; x <= x1 + 1; x++) {
      const on = x <= x1 && m[y * w + x] === 1;
      if (on && start < 0) start = x;
      if (!on && start >= 0) {
        if (x - start >= 0.5 * bw) belly = y;
        start = -1;
      }
    }
  }
  if (belly < 0 || y1 - belly < 0.08 * (y1 - y0 + 1)) return null;
  const top = belly + 1;
  const rows = y1 - top + 1;
  const labels = new Int32Array(bw * rows);
  const parts: Array<{ area: number; yMax: number; n: Int32Array }> = [];
  const stack: number[] = [];
  for (let s = 0; s < bw * rows; s++) {
    const sx = (s % bw) + x0,
      sy = Math.floor(s / bw) + top;
    if (labels[s] || !m[sy * w + sx]) continue;
    const part = { area: 0, yMax: sy, n: new Int32Array(rows) };
    parts.push(part);
    labels[s] = parts.length;
    stack.push(s);
    while (stack.length) {
      const q = stack.pop()!;
      const qx = q % bw,
        qy = (q - qx) / bw;
      part.area++;
      part.yMax = Math.max(part.yMax, qy + top);
      part.n[qy]++;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = qx + dx,
            ny = qy + dy;
          if (nx < 0 || ny < 0 || nx >= bw || ny >= rows) continue;
          const u = ny * bw + nx;
          if (!labels[u] && m[(ny + top) * w + nx + x0]) {
            labels[u] = parts.length;
            stack.push(u);
          }
        }
      }
    }
  }
  const largest = Math.max(0, ...parts.map((p) => p.area));
  const legs: HangingLeg[] = [];
  // One leg: the pixels of part `id` within columns [c0, c1] of the strip.
  const addLeg = (id: number, c0: number, c1: number): void => {
    const sumX = new Float64Array(rows),
      n = new Int32Array(rows);
    let area = 0,
      sx = 0;
    for (let r = 0; r < rows; r++) {
      for (let c = c0; c <= c1; c++) {
        if (labels[r * bw + c] !== id) continue;
        sumX[r] += c + x0;
        n[r]++;
        area++;
        sx += c + x0;
      }
    }
    let first = 0,
      last = rows - 1;
    while (first < rows && !n[first]) first++;
    while (last > first && !n[last]) last--;
    if (first >= rows) return;
    const centreAt = (row: number): number => {
      let k = Math.round(row);
      while (k > first && !n[k]) k--;
      return (top + k) * w + Math.round(sumX[k] / n[k]);
    };
    // The leg's top: the first row no wider than 1.3x the leg's own width (median over its lower part),
    // so a sliver of the belly's curve joined to the leg's top does not pull the attach point sideways.
    const widths = Array.from(n.subarray(first + Math.floor(0.3 * (last - first)), last + 1))
      .filter((v) => v > 0)
      .sort((p, q) => p - q);
    const legWidth = widths[widths.length >> 1] ?? 1;
    while (first < last && n[first] > 1.3 * legWidth) first++;
    const footRow = first + 0.85 * (last - first);
    legs.push({ x: sx / area, attach: centreAt(first), knee: centreAt((first + footRow) / 2), foot: centreAt(footRow) });
  };
  // Two legs touching (a pair seen side by side, joined down to near the ground) show as one part whose
  // lower half some rows cross in two runs. A four-legged figure has four: while fewer parts were found,
  // the part with the most such rows is split at the median gap between its two runs.
  const found: Array<{ id: number; gaps: number[] }> = [];
  for (const [i, part] of parts.entries()) {
    if (part.area < 0.1 * largest || part.yMax - top + 1 < 0.5 * rows) continue;
    const id = i + 1;
    let first = 0;
    while (!part.n[first]) first++;
    const last = part.yMax - top;
    const gaps: number[] = [];
    for (let r = Math.round((first + last) / 2); r <= last; r++) {
      const runs: Array<[number, number]> = [];
      let start = -1;
      for (let c = 0; c <= bw; c++) {
        const on = c < bw && labels[r * bw + c] === id;
        if (on && start < 0) start = c;
        if (!on && start >= 0) {
          runs.push([start, c - 1]);
          start = -1;
        }
      }
      if (runs.length === 2) gaps.push((runs[0][1] + runs[1][0]) / 2);
    }
    found.push({ id, gaps });
  }
  const split = new Set<number>();
  for (const f of [...found].sort((p, q) => q.gaps.length - p.gaps.length)) {
    if (found.length + split.size >= 4 || f.gaps.length < 2) break;
    split.add(f.id);
  }
  for (const f of found) {
    if (split.has(f.id)) {
      const at = Math.round(f.gaps.sort((p, q) => p - q)[f.gaps.length >> 1]);
      addLeg(f.id, 0, at);
      addLeg(f.id, at + 1, bw - 1);
    } else {
      addLeg(f.id, 0, bw - 1);
    }
  }
  return { belly, legs };
}

/**
 * COCO-17 from the limbs found ([left, right] pairs of [attach, middle, end], an arm may be null); limbs not found are left
 * with score 0 for the caller to fill. Face points around the head.
 */
function buildBody(
  head: Pt | null,
  arms: Array<[Pt, Pt, Pt] | null>,
  legs: [Pt, Pt, Pt][],
  root: Pt,
  quadruped: boolean,
): Keypoint[] | null {
  const kp: Keypoint[] = Array.from({ length: 17 }, () => ({ x: root.x, y: root.y, score: 0 }));
  const set = (i: number, p: Pt): void => {
    kp[i] = { x: p.x, y: p.y, score: SKELETON_SCORE };
  };
  // Each arm on its own: a figure may show one arm only (the other is left to the caller).
  const [armL, armR] = arms;
  if (armL) {
    set(5, armL[0]);
    set(7, armL[1]);
    set(9, armL[2]);
  }
  if (armR) {
    set(6, armR[0]);
    set(8, armR[1]);
    set(10, armR[2]);
  }
  if (legs.length === 2) {
    set(11, legs[0][0]);
    set(13, legs[0][1]);
    set(15, legs[0][2]);
    set(12, legs[1][0]);
    set(14, legs[1][1]);
    set(16, legs[1][2]);
  }
  if (head) {
    set(0, head);
    const s = quadruped ? 6 : 8;
    set(1, { x: head.x + s, y: head.y - s / 2 });
    set(2, { x: head.x - s, y: head.y - s / 2 });
    set(3, { x: head.x + 2 * s, y: head.y });
    set(4, { x: head.x - 2 * s, y: head.y });
  }
  return kp;
}
