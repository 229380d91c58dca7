/**
 * Skin weights by segmenting the silhouette into bone regions.
 *
 * For every bone, a geodesic distance (shortest path that stays inside the mask) from the bone's
 * seed pixels; a pixel's score for a bone is that distance minus the bone's radius (its half
 * thickness measured on the mask), so a thin arm lying across a wide torso still claims the pixels
 * within its own thickness, while a gap between an arm and the body keeps them apart (the path
 * round the gap is long). Weights blend only between a vertex's winning bone and that bone's
 * parent/children, and only within a band around the region border: limbs move rigidly and joints
 * bend smoothly.
 */
import { DRAWN_PARENT_BAND, LINE_BODY, closedEnds, drawnArms, sharedLegStretch, spineLine, type ShoulderCap } from './drawings.js';
import type { DrawnInk } from './ink.js';
import { BEHIND_JOINT, geodesic, pastLine, type InkWalls } from './fields.js';
import { BONES, BONE_COUNT, type Point } from './skeleton.js';
import { segmentDistance, type Mask } from './mask.js';

function segmentSeeds(m: Mask, a: Point, b: Point, from = 0, to = 1): number[] {
  const out: number[] = [];
  const len = Math.hypot(b.x - a.x, b.y - a.y);
  const steps = Math.max(1, Math.ceil(len * 2));
  for (let s = 0; s <= steps; s++) {
    const t = from + ((to - from) * s) / steps;
    const x = Math.floor(a.x + (b.x - a.x) * t),
      y = Math.floor(a.y + (b.y - a.y) * t);
    if (x >= 0 && y >= 0 && x < m.w && y < m.h) out.push(y * m.w + x);
  }
  return out;
}

/** Pixels inside the convex quad (shoulders and hips pulled slightly inwards). */
function quadSeeds(m: Mask, quad: Point[]): number[] {
  const out: number[] = [];
  const minY = Math.max(0, Math.floor(Math.min(...quad.map((p) => p.y))));
  const maxY = Math.min(m.h - 1, Math.ceil(Math.max(...quad.map((p) => p.y))));
  const minX = Math.max(0, Math.floor(Math.min(...quad.map((p) => p.x))));
  const maxX = Math.min(m.w - 1, Math.ceil(Math.max(...quad.map((p) => p.x))));
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      let pos = 0,
        neg = 0;
      for (let i = 0; i < 4; i++) {
        const p = quad[i],
          q = quad[(i + 1) % 4];
        const c = (q.x - p.x) * (y + 0.5 - p.y) - (q.y - p.y) * (x + 0.5 - p.x);
        if (c > 0) pos++;
        else if (c < 0) neg++;
      }
      if (pos === 0 || neg === 0) out.push(y * m.w + x);
    }
  }
  return out;
}

/** A limb's half thickness: the mask's depth at the best-centred of a few points along its middle. */
export function limbThickness(m: Mask, dist: Float32Array, a: Point, e: Point): number {
  let best = 0;
  for (const t of [0.4, 0.5, 0.6, 0.7]) {
    const ix = Math.floor(a.x + (e.x - a.x) * t),
      iy = Math.floor(a.y + (e.y - a.y) * t);
    if (ix >= 0 && iy >= 0 && ix < m.w && iy < m.h) best = Math.max(best, dist[iy * m.w + ix]);
  }
  return best;
}

/** Body core depth, in the thickest limb's half thicknesses (see bodyCore). */
const BODY_CORE = 1.5;

/**
 * The body's core: pixels between the hip and shoulder lines deeper inside the mask than BODY_CORE times
 * the thickest limb's half thickness, seeds of the torso with its quad. The quad alone leaves out the
 * sides of a body much wider than the shoulder–hip span (a candy-corn or pear-shaped cartoon whose
 * shoulders and hips sit well inside it), and a limb whose seeds start near the body's edge won them
 * by the geodesic; seeded from the core the torso reaches that edge first. No limb is that thick
 * anywhere along its middle, so an arm lying across the body still claims its own width.
 */
function bodyCore(m: Mask, dist: Float32Array, joints: Point[], axis: number[]): number[] {
  let limb = 0;
  for (let b = 2; b < BONE_COUNT; b++) limb = Math.max(limb, limbThickness(m, dist, joints[BONES[b].from], joints[BONES[b].to]));
  const root = joints[0],
    neck = joints[1];
  const vx = neck.x - root.x,
    vy = neck.y - root.y;
  const len2 = vx * vx + vy * vy;
  const out: number[] = [];
  if (!(limb > 0) || len2 < 1e-6) return out;
  const depth = BODY_CORE * limb;
  const core = new Uint8Array(dist.length);
  for (let i = 0; i < dist.length; i++) {
    if (dist[i] < depth || !m.data[i]) continue;
    const t = (((i % m.w) + 0.5 - root.x) * vx + (Math.floor(i / m.w) + 0.5 - root.y) * vy) / len2;
    if (t >= 0 && t <= 1) core[i] = 1;
  }
  // Only the core that holds the body's axis (the quad or the root–neck segment): on a stick figure the
  // deepest pixels between the hip and shoulder lines are a hand's drawn circle, not the body.
  for (const s of axis) {
    if (core[s] !== 1) continue;
    core[s] = 2;
    out.push(s);
    for (let r = out.length - 1; r < out.length; r++) {
      const q = out[r],
        x = q % m.w,
        y = (q - x) / m.w;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx,
            ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= m.w || ny >= m.h || core[ny * m.w + nx] !== 1) continue;
          core[ny * m.w + nx] = 2;
          out.push(ny * m.w + nx);
        }
    }
  }
  return out;
}

/** Cost of stepping off a drawn stroke (see InkWalls), in torso lengths. */
const INK_EXIT = 0.25;
/** Length factor of a step along a drawn stroke (see InkWalls). */
const INK_ALONG = 2;

export interface RegionField {
  /** Per bone, per pixel: geodesic distance minus the bone's radius. */
  scores: Float64Array[];
  radius: number[];
  /**
   * Per bone, a share of pointWeights' band for the blend between it and its parent (1 = the whole
   * band). Absent = 1 everywhere.
   */
  parentBand?: number[];
  /** A drawing's shoulder caps (drawings.ts, capWeights); absent = none. */
  caps?: ShoulderCap[];
}

/**
 * @param joints rig joints in working pixels
 * @param headFloor a quadruped's neck height (working px): below it the head's score grows by BEHIND_JOINT per pixel
 * @param drawn the figure is a drawing (its joints from the silhouette's skeleton): its arms end where
 *   the arm as drawn meets the body (armRoot) and bend at the elbow only (elbowLine, ELBOW_BAND). A
 *   person's rig never takes these rules (a photo's shoulders sit at the armpit already, and the
 *   armpit seam cost the anime character's pose fidelity).
 * @param drawing a drawing's strokes (ink.ts, drawnInk), with `drawn`: every bone's distance treats them
 *   as borders (InkWalls) and an arm with no junction in the silhouette is cut where its stroke meets the
 *   body's (inkSeam).
 */
export function regionField(
  m: Mask,
  dist: Float32Array,
  joints: Point[],
  headFloor = Infinity,
  drawn = false,
  drawing?: DrawnInk,
): RegionField {
  const J = (i: number): Point => joints[i];
  const lerp = (a: Point, b: Point, t: number): Point => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
  const torsoLen = Math.hypot(J(1).x - J(0).x, J(1).y - J(0).y) || 1;
  const walls: InkWalls | undefined =
    drawn && drawing ? { ink: drawing.ink, inside: drawing.inside, exit: INK_EXIT * torsoLen, along: INK_ALONG } : undefined;
  const scores: Float64Array[] = [];
  const radius: number[] = [];
  const seedSets: number[][] = [];
  for (let b = 0; b < BONE_COUNT; b++) {
    const def = BONES[b];
    const a = J(def.from),
      e = J(def.to);
    let seeds: number[];
    let r = 0;
    if (b === 0) {
      // Torso: the shoulder–hip quad, corners pulled 15 % towards the middle so limb roots blend.
      const c = lerp(J(0), J(1), 0.5);
      const quad = [J(3), J(6), J(12), J(9)].map((p) => lerp(p, c, 0.15));
      const axis = quadSeeds(m, quad).concat(segmentSeeds(m, J(0), J(1)));
      seeds = axis.concat(bodyCore(m, dist, joints, axis));
    } else if (b === 1) {
      // Head: neck to face centre and on past it, where the top of the head is.
      seeds = segmentSeeds(m, a, e, 0.3, 1.8);
    } else {
      // Limbs: skip the first bit of the upper limb so the torso keeps the shoulder/hip.
      seeds = segmentSeeds(m, a, e, def.parent === 0 ? 0.25 : 0, 1);
      const len = Math.hypot(e.x - a.x, e.y - a.y);
      r = Math.min(limbThickness(m, dist, a, e), 0.4 * len, 0.18 * torsoLen);
    }
    const d = geodesic(m, seeds, walls);
    for (let i = 0; i < d.length; i++) d[i] -= r;
    if (b > 1) behindJoint(d, m.w, a, e, r);
    // A level body's head (a quadruped's) stays above its neck: the chest under it is the body's.
    if (b === 1 && Number.isFinite(headFloor))
      for (let i = 0; i < d.length; i++) d[i] += BEHIND_JOINT * Math.max(0, Math.floor(i / m.w) + 0.5 - headFloor);
    if (b > 1 && def.parent === 0) limbShape(d, m.w, a, e, limbThickness(m, dist, a, e), torsoLen);
    scores.push(d);
    radius.push(r);
    seedSets.push(seeds);
  }
  // An upper limb stops at its elbow or knee (its child's radius is known only now).
  for (let b = 2; b < BONE_COUNT; b++) {
    const child = BONES.findIndex((c) => c.parent === b);
    if (child >= 0) pastJoint(scores[b], m.w, J(BONES[b].from), J(BONES[b].to), radius[b] - radius[child]);
  }
  const caps = drawn ? drawnArms(m, scores, radius, joints, drawing) : [];
  // A hatched figure's edge closes no part inside it (closedEnds would give its whole fill to one joint).
  if (drawn && drawing && !drawing.edgeOnly) closedEnds(m, drawing, scores, joints);
  if (drawn && limbThickness(m, dist, J(0), J(1)) <= LINE_BODY * torsoLen) {
    sharedLegStretch(m, scores, joints);
    spineLine(m, scores, joints);
  }
  absorbIslands(m, scores, seedSets);
  const parentBand = drawn ? [...DRAWN_PARENT_BAND] : undefined;
  return { scores, radius, ...(parentBand ? { parentBand } : {}), ...(caps.length ? { caps } : {}) };
}

/**
 * A limb bone keeps to its own side of the joint it turns about (shoulder, hip, elbow, knee). Its seeds
 * start at or just past the joint and its score carries a bonus of its radius, so by the geodesic alone
 * it wins pixels of the body behind the joint wherever its parent's seeds are further off: on a
 * four-legged animal (shoulders and hips on the belly line, so the torso's seed quad is a line there)
 * the whole rump and a column up through the body above each hind leg, and a wedge of chest above a
 * front leg. Skinned to the leg, that part of the body turned with it and, the seam between leg and
 * torso being cut away from the hip, tore loose as a wedge or a slit. Past the line through the joint
 * square to the bone, deeper than the bone's radius (a round shoulder cap or elbow drawn with the limb
 * stays the limb's), the score grows by BEHIND_JOINT per pixel: the border settles just behind the
 * joint, inside the radius kept smooth around it, so weights blend across the junction. A limb's own
 * pixels lie ahead of its joint (a hand on the hip or behind the head is at the forearm's far end), so
 * people's regions hardly change.
 */
function behindJoint(d: Float64Array, w: number, a: Point, e: Point, r: number): void {
  const len = Math.hypot(e.x - a.x, e.y - a.y);
  if (len < 1e-6) return;
  pastLine(d, w, a, -(e.x - a.x) / len, -(e.y - a.y) / len, r, Infinity);
}

/**
 * An upper limb (upper arm, thigh) keeps to its own side of the elbow or knee it ends at. Its radius is
 * measured halfway along it, where it may be hidden in something wide: a drawn girl's thigh under her
 * skirt measured 19 working px, her stick-thin shin 5. With that bonus the thigh's region ran on past
 * the knee by the difference, over half the shin, and the shin's weights switched from thigh to shin
 * there, far from the knee: when the knee bent 100 degrees the two transforms, that far from their
 * pivot, tore the shin's upper half into a sheet one pixel thin (char2 on animate-x dance_1, the foot a
 * loose piece on frames 68 and 72). Past the line through the end joint, square to the bone, the score
 * grows by BEHIND_JOINT per pixel wherever the bone is the thicker of the two (`excess`, its radius
 * over its child's, > 0), so the border settles within excess / 3 of the joint; an upper limb no
 * thicker than its forearm or shin is left as it was.
 */
function pastJoint(d: Float64Array, w: number, a: Point, e: Point, excess: number): void {
  const len = Math.hypot(e.x - a.x, e.y - a.y);
  if (len < 1e-6 || excess <= 0) return;
  pastLine(d, w, e, (e.x - a.x) / len, (e.y - a.y) / len, 0, 2 * excess);
}

/** Score added per pixel of distance from an upper limb's bone beyond its reach (see limbShape). */
const OFF_BONE = 2;
/** An upper limb's reach from its bone segment: LIMB_REACH radii, at least LIMB_REACH_MIN torso lengths. */
const LIMB_REACH = 2;
const LIMB_REACH_MIN = 0.1;

/**
 * An upper limb (upper arm, thigh) keeps to the limb as drawn: the pixels within about its own
 * thickness of its bone segment. Its seeds start just past the shoulder or hip and carry a bonus of its
 * radius, so by the geodesic alone it wins whatever part of a wide body lies nearer to them than to the
 * torso's seed quad (the shoulder–hip quad, pulled in): on a figure whose thin limbs join a body much
 * wider than the quad (a candy-corn or pear-shaped cartoon), a wedge of each side of the body went with
 * the upper arms and the body's lower corners with the thighs, and as they turned the body tore into
 * slices. Past LIMB_REACH radii (at least LIMB_REACH_MIN torso lengths) from the segment, the score grows
 * by OFF_BONE per pixel: the body's own pixels stay with the torso and the seam sits where the thin limb
 * meets the body. Hands and feet (the forearm's and shin's) are not limited; a person's upper arm or
 * thigh lies within its own thickness of its bone, so people's regions hardly change.
 */
function limbShape(d: Float64Array, w: number, a: Point, e: Point, r: number, torsoLen: number): void {
  const reach = Math.max(LIMB_REACH * r, LIMB_REACH_MIN * torsoLen);
  for (let i = 0; i < d.length; i++) {
    if (!Number.isFinite(d[i])) continue;
    const off = segmentDistance((i % w) + 0.5, Math.floor(i / w) + 0.5, a, e) - reach;
    if (off > 0) d[i] += OFF_BONE * off;
  }
}

/** Chain of each bone: 1 torso and head, 2/3 left/right arm, 4/5 left/right leg (as seams.ts's chainCode). */
const CHAIN = BONES.map((def, b) => (b <= 1 ? 1 : 2 + ((def.parent === 0 ? b : def.parent) - 2) / 2));

/**
 * Islands: a patch of pixels won by one chain (an arm, a leg, or torso+head) that does not touch that
 * chain's own bones, only other chains: the end of a tail that hangs near a hand, the foot of a staff
 * reaching past a leg, a flap of cape closer to a shoulder than to the back. Skinned to its winning
 * chain it would move with that chain while held by nothing of it, and come loose as a separate piece
 * (the seam cutter separates chains). Each island is given to the chain it shares the longest border
 * with, to that chain's nearest bone, rigidly; repeated, since an island can border another island.
 */
function absorbIslands(m: Mask, scores: Float64Array[], seeds: number[][]): void {
  const { w, h, data } = m;
  const n = w * h;
  const win = new Int8Array(n);
  const comp = new Int32Array(n);
  const stack = new Int32Array(n);
  for (let pass = 0; pass < 4; pass++) {
    for (let p = 0; p < n; p++) {
      win[p] = -1;
      if (!data[p]) continue;
      let best = 0;
      for (let b = 1; b < BONE_COUNT; b++) if (scores[b][p] < scores[best][p]) best = b;
      if (Number.isFinite(scores[best][p])) win[p] = best;
    }
    // Connected patches of one chain (8-connected), pixels listed in `stack` order per patch.
    comp.fill(-1);
    const starts: number[] = [];
    let top = 0;
    for (let p = 0; p < n; p++) {
      if (win[p] < 0 || comp[p] >= 0) continue;
      const c = starts.length,
        chain = CHAIN[win[p]];
      starts.push(top);
      comp[p] = c;
      stack[top++] = p;
      for (let r = starts[c]; r < top; r++) {
        const q = stack[r],
          x = q % w,
          y = (q - x) / w;
        for (let dy = -1; dy <= 1; dy++) {
          const ny = y + dy;
          if (ny < 0 || ny >= h) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            if (nx < 0 || nx >= w) continue;
            const o = ny * w + nx;
            if (comp[o] < 0 && win[o] >= 0 && CHAIN[win[o]] === chain) {
              comp[o] = c;
              stack[top++] = o;
            }
          }
        }
      }
    }
    starts.push(top);
    const seeded = new Uint8Array(starts.length);
    for (let b = 0; b < BONE_COUNT; b++) for (const s of seeds[b]) if (win[s] >= 0 && CHAIN[win[s]] === CHAIN[b]) seeded[comp[s]] = 1;
    let changed = false;
    for (let c = 0; c + 1 < starts.length; c++) {
      if (seeded[c]) continue;
      const border = [0, 0, 0, 0, 0, 0];
      for (let r = starts[c]; r < starts[c + 1]; r++) {
        const q = stack[r],
          x = q % w,
          y = (q - x) / w;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx,
              ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const o = ny * w + nx;
            if (win[o] >= 0 && comp[o] !== c) border[CHAIN[win[o]]]++;
          }
        }
      }
      let target = 0;
      for (let k = 1; k < border.length; k++) if (border[k] > border[target]) target = k;
      if (!border[target]) continue;
      for (let r = starts[c]; r < starts[c + 1]; r++) {
        const q = stack[r];
        let best = -1;
        for (let b = 0; b < BONE_COUNT; b++) if (CHAIN[b] === target && (best < 0 || scores[b][q] < scores[best][q])) best = b;
        if (!Number.isFinite(scores[best][q])) continue;
        for (let b = 0; b < BONE_COUNT; b++) if (b !== best) scores[b][q] = Infinity;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

/** Bones a vertex of region `b` may blend with: itself, its parent and its children. */
const NEIGHBOURS: number[][] = BONES.map((def, b) => [
  b,
  ...(def.parent >= 0 ? [def.parent] : []),
  ...BONES.map((c, i) => (c.parent === b ? i : -1)).filter((i) => i >= 0),
]);

export const MAX_INFLUENCES = 4;

/**
 * Weights for one point (working px). Writes up to MAX_INFLUENCES (bone, weight) pairs.
 * Returns the winning bone (the region), or -1 when the point is not reachable.
 */
export function pointWeights(
  f: RegionField,
  m: Mask,
  x: number,
  y: number,
  band: number,
  outBones: Int32Array,
  outWeights: Float32Array,
  off: number,
): number {
  // Nearest reachable pixel around the point (outline vertices sit on pixel borders).
  let idx = -1;
  let bestD = Infinity;
  for (let r = 0; r <= 3 && idx < 0; r++) {
    for (let dy = -r; dy <= r; dy++) {
      for (let dx = -r; dx <= r; dx++) {
        const ix = Math.floor(x) + dx,
          iy = Math.floor(y) + dy;
        if (ix < 0 || iy < 0 || ix >= m.w || iy >= m.h || !m.data[iy * m.w + ix]) continue;
        const dd = dx * dx + dy * dy;
        if (dd < bestD) {
          bestD = dd;
          idx = iy * m.w + ix;
        }
      }
    }
  }
  for (let k = 0; k < MAX_INFLUENCES; k++) {
    outBones[off + k] = 0;
    outWeights[off + k] = 0;
  }
  if (idx < 0) {
    outWeights[off] = 1;
    return -1;
  }
  let win = 0;
  for (let b = 1; b < BONE_COUNT; b++) if (f.scores[b][idx] < f.scores[win][idx]) win = b;
  if (!Number.isFinite(f.scores[win][idx])) {
    outWeights[off] = 1;
    return -1;
  }
  const smin = f.scores[win][idx];
  const cand: Array<[number, number]> = [];
  for (const b of NEIGHBOURS[win]) {
    const s = f.scores[b][idx];
    if (!Number.isFinite(s)) continue;
    // Half weight exactly on the border (s == smin for both), fading to 0 at `band` beyond it.
    // Torso↔limb borders blend over half the band: a raised arm would otherwise drag a wide strip
    // of the chest up with it.
    let pairBand = (b === 0) !== (win === 0) && b !== 1 && win !== 1 ? band * 0.5 : band;
    if (f.parentBand && BONES[b].parent === win) pairBand *= f.parentBand[b];
    else if (f.parentBand && BONES[win].parent === b) pairBand *= f.parentBand[win];
    const u = (s - smin) / pairBand;
    if (u < 1) cand.push([b, (1 - u) * (1 - u)]);
  }
  cand.sort((p, q) => q[1] - p[1]);
  const used = cand.slice(0, MAX_INFLUENCES);
  const sum = used.reduce((s, c) => s + c[1], 0);
  used.forEach(([b, w], k) => {
    outBones[off + k] = b;
    outWeights[off + k] = w / sum;
  });
  return win;
}
