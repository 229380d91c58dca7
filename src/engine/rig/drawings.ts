/**
 * Rules for drawings only (joints from the silhouette's skeleton; people's rigs never take them), so a
 * drawn limb keeps its shape while it moves and the body's outline stays with the body. An arm ends
 * where the arm as drawn meets the body, at the armpit (armRoot) or where its chords widen into the body
 * (armJunction), and bends at its elbow only (elbowLine, ELBOW_BAND); a head with no neck bends with the
 * body (hasNeck, headRamp).
 */
import { BEHIND_JOINT, chord, geodesic, pastLine } from './fields.js';
import { inkSeam, type DrawnInk } from './ink.js';
import { boneFrame, distanceToOutside, mostConcaveEdge, segmentDistance, type Mask } from './mask.js';
import { BONES, BONE_COUNT, boneLength, type Point } from './skeleton.js';

/** Forearms (BONES order), whose blend with the upper arm a drawing confines to ELBOW_BAND. */
const FOREARMS = [3, 5];
/**
 * A drawing's elbow blends over this share of the band. Linear blend skinning averages the upper arm's
 * and the forearm's transforms across the band, and where they differ by a folded elbow's angle the
 * average pulls the texels towards the elbow: over the whole band (12% of the torso's length, a third
 * of char1's short thick upper arm) the folded arm curled into a round blob. Over a third of it the arm
 * stays rigid up to the elbow and bends there.
 */
const ELBOW_BAND = 1 / 3;

/** Upper arms (BONES order), whose seam with the torso armRoot places. */
const ARM_ROOTS = new Set([2, 4]);
/** Share of a disc round an outline pixel inside the mask from which that pixel is an armpit corner. */
const ARMPIT_CONCAVITY = 0.62;
/** Largest cosine between the armpit gap's opening and the bone for a junction (see armRoot). */
const GAP_ALONG = 0.85;

/**
 * An arm (upper arm and forearm) ends where the arm as drawn meets the body. A drawn figure's shoulder
 * joint often sits deep inside a stout body (char1, whose thick sleeves join the body's upper flanks): the
 * upper arm's seeds start inside the torso and, with its radius bonus and the behindJoint tolerance, it
 * took a slab of the body's flank down to the armpit, the body's drawn outline there with it; on the
 * dances that slab swung with the arm as loose bits of outline and left a notch in the body. The seam is
 * cut from the armpit (the most concave outline pixel near the upper arm on the hip's side of its bone)
 * through the shoulder joint, the pivot, so the seam stays closed there, on to the outline beyond; what
 * the wrist cannot reach past the cut (the body's side) scores BEHIND_JOINT per pixel of distance from
 * the seam for both arm bones. An armpit whose gap opens along the bone (an arm hanging beside the body:
 * the gap's end is no junction, the arm is joined above it), a seam off the mask, or a cut that does not
 * separate the body's middle from the wrist leaves the arm as it was (null; else the armpit). Drawings
 * only: on the anime character (musepose) the seam moved the arm's border and cost 0.03-0.06 of its pose
 * fidelity (PCK).
 */
function armRoot(m: Mask, ds: Float64Array[], a: Point, e: Point, end: Point, r: number, root: Point, mid: Point): Point | null {
  const { w, h, data } = m;
  const frame = r > 0 ? boneFrame(a, e, root) : null;
  if (!frame) return null;
  const { ux, uy, side, hipSide } = frame;
  const inside = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < w && y < h && data[y * w + x] === 1;
  const R = Math.max(3, Math.round(r));
  // The armpit: the most concave outline pixel near the upper arm on the hip's side of its bone.
  const armpit = mostConcaveEdge(w, h, inside, frame, r, R, -0.25, ARMPIT_CONCAVITY, (x, y) => {
    let n = 0,
      k = 0;
    for (let dy = -R; dy <= R; dy++)
      for (let dx = -R; dx <= R; dx++) {
        if (dx * dx + dy * dy > R * R) continue;
        k++;
        if (inside(x + dx, y + dy)) n++;
      }
    return n / k;
  });
  if (armpit < 0) return null;
  const ax = (armpit % w) + 0.5,
    ay = Math.floor(armpit / w) + 0.5;
  // The way the gap at the armpit opens: across the bone under an arm held out from the body; along it
  // beside an arm hanging down the body, whose gap's end is no junction (the arm is joined above it).
  let gx = 0,
    gy = 0;
  const G = 2 * R;
  for (let dy = -G; dy <= G; dy++)
    for (let dx = -G; dx <= G; dx++)
      if (dx * dx + dy * dy <= G * G && !inside(Math.floor(ax) + dx, Math.floor(ay) + dy) && side(ax + dx, ay + dy) === hipSide) {
        gx += dx;
        gy += dy;
      }
  const gl = Math.hypot(gx, gy);
  if (!(gl > 0) || Math.abs(gx * ux + gy * uy) > GAP_ALONG * gl) return null;
  // The seam: from the armpit through the shoulder joint (the pivot, so the seam stays closed near it)
  // on to the outline beyond.
  const sl = Math.hypot(a.x - ax, a.y - ay);
  if (sl < 1) return null;
  const cx = (a.x - ax) / sl,
    cy = (a.y - ay) / sl;
  let bestD = 0;
  while (inside(Math.floor(ax + cx * (bestD + 1)), Math.floor(ay + cy * (bestD + 1))) && bestD < w + h) bestD++;
  if (bestD < 2) return null;
  return cutArm(m, ds, { x: ax, y: ay }, cx, cy, bestD, end, mid) ? { x: ax, y: ay } : null;
}

/**
 * Cuts an arm off the body along a chord: from `p` along the unit direction (cx, cy) for `len` pixels.
 * What the wrist (`end`) cannot reach past the cut scores BEHIND_JOINT per pixel of distance from the
 * chord for the arm's bones (`ds`). Nothing changes unless the cut separates the body's middle (`mid`)
 * from the wrist.
 */
function cutArm(m: Mask, ds: Float64Array[], p: Point, cx: number, cy: number, len: number, end: Point, mid: Point): boolean {
  const { w, h, data } = m;
  // The cut: the chord, a pixel thick, run a few pixels past both ends.
  const cut = new Uint8Array(w * h);
  for (let s = -3; s <= len + 3; s += 0.5)
    for (const [ox, oy] of [
      [0, 0],
      [1, 0],
      [0, 1],
    ]) {
      const x = Math.floor(p.x + cx * s) + ox,
        y = Math.floor(p.y + cy * s) + oy;
      if (x >= 0 && y >= 0 && x < w && y < h) cut[y * w + x] = 1;
    }
  const open = new Uint8Array(w * h);
  for (let i = 0; i < open.length; i++) open[i] = data[i] && !cut[i] ? 1 : 0;
  const start = Math.floor(end.y) * w + Math.floor(end.x);
  const midI = Math.floor(mid.y) * w + Math.floor(mid.x);
  if (!open[start] || !open[midI]) return false;
  const reach = geodesic({ w, h, data: open }, [start]);
  if (Number.isFinite(reach[midI])) return false;
  for (let i = 0; i < data.length; i++) {
    if (!data[i] || Number.isFinite(reach[i])) continue;
    const x = (i % w) + 0.5 - p.x,
      y = Math.floor(i / w) + 0.5 - p.y;
    const s = Math.min(len, Math.max(0, x * cx + y * cy));
    const add = BEHIND_JOINT * Math.hypot(x - s * cx, y - s * cy);
    for (const d of ds) d[i] += add;
  }
  return true;
}

/** A chord this many times the arm's own width (its median chord) is the body's, not the arm's. */
const JUNCTION_WIDENING = 1.6;

/** An arm's own width: the median chord square to its forearm (elbow `e` to wrist `wr`) along its middle. */
function armWidth(m: Mask, e: Point, wr: Point): number {
  const len2 = Math.hypot(wr.x - e.x, wr.y - e.y);
  if (len2 < 1e-6) return 0;
  const fx = (wr.x - e.x) / len2,
    fy = (wr.y - e.y) / len2;
  const own: number[] = [];
  for (let t = 0.2; t <= 0.8; t += 0.1) own.push(chord(m, { x: e.x + fx * len2 * t, y: e.y + fy * len2 * t }, -fy, fx).width);
  own.sort((p, q) => p - q);
  return own[own.length >> 1];
}

/**
 * A drawn arm that joins the body on its upper arm (char3's thin arms on the flanks of a candy-corn
 * body whose shoulder joints sit inside it) ends where it meets the body: the chord square to the upper
 * arm, walking from the elbow towards the shoulder, just before the chords widen past JUNCTION_WIDENING
 * times the arm's own width. limbShape still lets an upper arm reach its radius and more round its bone,
 * so past the body's outline the arm took a wedge of the flank, which turned with the arm and left a
 * step in the body's side at shoulder height. The cut is made as armRoot's. An arm joined at or before
 * its elbow (char1's, whose elbows sit at the armpits) is left to armRoot.
 */
function armJunction(m: Mask, ds: Float64Array[], a: Point, e: Point, wr: Point, mid: Point): boolean {
  const len = Math.hypot(e.x - a.x, e.y - a.y),
    len2 = Math.hypot(wr.x - e.x, wr.y - e.y);
  if (len < 4 || len2 < 4) return false;
  const ux = (a.x - e.x) / len,
    uy = (a.y - e.y) / len;
  const width = armWidth(m, e, wr);
  if (!(width > 0)) return false;
  let last: { p: Point; from: number; width: number } | null = null;
  for (let s = 0; s <= len; s += 1) {
    const p = { x: e.x + ux * s, y: e.y + uy * s };
    const c = chord(m, p, -uy, ux);
    if (c.width === 0) return false;
    if (c.width > JUNCTION_WIDENING * width) {
      // Joined at or before the elbow: armRoot's case.
      if (!last || s < 0.1 * len) return false;
      return cutArm(m, ds, { x: last.p.x - uy * last.from, y: last.p.y + ux * last.from }, -uy, ux, last.width, wr, mid);
    }
    last = { p, from: c.from, width: c.width };
  }
  return false;
}

/**
 * A drawn arm's upper arm and forearm meet on the line through the elbow that halves the angle between
 * them. By the geodesic the border sits where the two bones' distances less their radii are equal: on
 * a thick arm (char1's) a curve that leaves the forearm a cap of the upper arm's sleeve and the upper
 * arm a rim of the forearm's, both turning with the wrong bone when the elbow folds. Past the line each
 * bone's score grows by BEHIND_JOINT per pixel, so the border is that line and the arm is rigid on
 * either side of it.
 */
function elbowLine(upper: Float64Array, fore: Float64Array, w: number, a: Point, e: Point, wr: Point): void {
  const l1 = Math.hypot(e.x - a.x, e.y - a.y),
    l2 = Math.hypot(wr.x - e.x, wr.y - e.y);
  if (l1 < 1e-6 || l2 < 1e-6) return;
  // The bisector's normal: the mean of the two bones' unit directions (pointing down the arm).
  let nx = (e.x - a.x) / l1 + (wr.x - e.x) / l2,
    ny = (e.y - a.y) / l1 + (wr.y - e.y) / l2;
  const nl = Math.hypot(nx, ny);
  if (nl < 1e-3) return;
  nx /= nl;
  ny /= nl;
  pastLine(upper, w, e, nx, ny, 0, Infinity);
  pastLine(fore, w, e, -nx, -ny, 0, Infinity);
}

/**
 * An arm hangs when its wrist lies below its shoulder by more than it lies to the side (within 45 degrees
 * of straight down). Between a hanging arm and the body beside it (a dress's slanted side) the drawing
 * mask seals a narrow wedge of paper, so the chords armJunction walks measure arm and wedge together and
 * widen well below the shoulder: on generated seed 21 (pencil dress, arms hanging) the cut ran across the
 * dress's side and each arm took a slab of dress, which tore as the arms swung (tpl_dance 18 of 36 frames
 * in pieces). The strokes say where the arm is (inkSeam), so for a hanging arm they are asked first and
 * the silhouette's junction only when they cannot tell.
 */
function hanging(shoulder: Point, wrist: Point): boolean {
  return wrist.y - shoulder.y > Math.abs(wrist.x - shoulder.x);
}

/**
 * The drawn-arm rules on a region field's scores (regionField, `drawn`): per arm, the armpit seam, the
 * junction cut and the elbow line. `joints` in working px, RIG_JOINTS order.
 */
export function drawnArms(m: Mask, scores: Float64Array[], radius: number[], joints: Point[], drawing?: DrawnInk): ShoulderCap[] {
  const mid = { x: (joints[0].x + joints[1].x) / 2, y: (joints[0].y + joints[1].y) / 2 };
  const torsoLen = Math.hypot(joints[1].x - joints[0].x, joints[1].y - joints[0].y);
  const caps: ShoulderCap[] = [];
  for (const b of ARM_ROOTS) {
    const a = joints[BONES[b].from],
      e = joints[BONES[b].to],
      wr = joints[BONES[b + 1].to];
    // An arm, upper arm and forearm, stays on its side of where it meets the body.
    const armpit = armRoot(m, [scores[b], scores[b + 1]], a, e, wr, radius[b], joints[0], mid);
    const rooted = armpit !== null;
    const cap = armpit ? shoulderCap(m, b, a, e, wr, armpit, torsoLen) : null;
    if (cap) caps.push(cap);
    // No junction in the silhouette: where the arm's and the body's strokes meet (an arm beside a dress).
    // A hanging arm's strokes are asked before the silhouette's chords (see hanging).
    const ink = (): boolean => !!drawing && !rooted && inkSeam(m, drawing, [scores[b], scores[b + 1]], a, e, wr, radius[b], joints[0], mid);
    if (hanging(a, wr)) {
      if (!ink()) armJunction(m, [scores[b], scores[b + 1]], a, e, wr, mid);
    } else if (!armJunction(m, [scores[b], scores[b + 1]], a, e, wr, mid)) ink();
    elbowLine(scores[b], scores[b + 1], m.w, a, e, wr);
  }
  return caps;
}

/** Per bone, the share of the blend band with its parent on a drawing (see ELBOW_BAND). */
export const DRAWN_PARENT_BAND: readonly number[] = BONES.map((_, b) => (FOREARMS.includes(b) ? ELBOW_BAND : 1));

/** A neck: somewhere between the neck and head joints, the figure narrower than this share of the head above it. */
const NECK_NARROWING = 0.85;

/** Where the head starts along the neck→head axis, as a share of it. */
const HEAD_FROM = 0.6;

/**
 * Whether the drawn head sits on a neck: a chord across the neck→head axis, between the two joints,
 * narrower than NECK_NARROWING times the widest chord above it up to a little past the head joint,
 * that widest chord in the head (past HEAD_FROM of the axis).
 */
export function hasNeck(mask: Mask, neck: Point, head: Point): boolean {
  const len = Math.hypot(head.x - neck.x, head.y - neck.y);
  if (len < 2) return true;
  const steps = 24;
  const nx = -(head.y - neck.y) / len,
    ny = (head.x - neck.x) / len;
  const at = (t: number): Point => ({ x: neck.x + (head.x - neck.x) * t, y: neck.y + (head.y - neck.y) * t });
  const widths = Array.from({ length: steps + 1 }, (_, i) => chord(mask, at((1.3 * i) / steps), nx, ny).width);
  const last = Math.round(steps / 1.3);
  for (let i = 0; i <= last; i++) {
    let j = i + 1;
    for (let k = i + 2; k <= steps; k++) if (widths[k] > widths[j]) j = k;
    // The wider part must be the head (by its joint), not the arms' span at the shoulders.
    if (widths[i] > 0 && widths[i] < NECK_NARROWING * widths[j] && j >= HEAD_FROM * last) return true;
  }
  return false;
}

/**
 * A drawn head with no neck (char3's candy corn, whose head is the top of one cone with the body) bends
 * with the body instead of turning as a block: its region's border with the torso ran across the whole
 * cone at shoulder height, far from the neck joint at its middle, so each nod sheared the top of the
 * cone against the body and left a step at the sides. A vertex between the neck and the head joint
 * shares its torso and head weight between the two in proportion to its height along the axis
 * (smoothstep; an arm's share is kept), so a nod bends the cone without a step.
 */
export function headRamp(
  xs: Float64Array,
  ys: Float64Array,
  neck: Point,
  head: Point,
  boneIdx: Int32Array,
  boneW: Float32Array,
  influences: number,
): void {
  const vx = head.x - neck.x,
    vy = head.y - neck.y;
  const len2 = vx * vx + vy * vy;
  const w = new Float64Array(BONE_COUNT);
  for (let v = 0; v < xs.length; v++) {
    const o = v * influences;
    w.fill(0);
    for (let k = 0; k < influences; k++) w[boneIdx[o + k]] += boneW[o + k];
    const t = Math.min(1, Math.max(0, ((xs[v] - neck.x) * vx + (ys[v] - neck.y) * vy) / len2));
    const s = t * t * (3 - 2 * t);
    // The torso's and head's shares together, split by height; an arm's share is left as it was.
    const body = w[0] + w[1];
    w[0] = body * (1 - s);
    w[1] = body * s;
    const used = [...w.keys()].filter((b) => w[b] > 0).sort((a, b) => w[b] - w[a]);
    if (used.length > influences) continue;
    for (let k = 0; k < influences; k++) {
      boneIdx[o + k] = k < used.length ? used[k] : 0;
      boneW[o + k] = k < used.length ? w[used[k]] : 0;
    }
  }
}

/** Joint ends (RIG_JOINTS order: head, wrists, ankles) and the bone each ends (BONES order). */
const END_BONES: ReadonlyArray<[number, number]> = [
  [2, 1],
  [5, 3],
  [8, 5],
  [11, 7],
  [14, 9],
];
/** A part holds a joint that lies at least this share of the part's greatest depth inside it. */
const HELD_DEPTH = 0.5;
/**
 * A bounding stroke a limb won is left to that limb beyond this share of the torso's length from the neck
 * (closedEnds); nearer, the head's outline meets the neck and stays the head's.
 */
const NECK_KEEP = 0.1;

/** Whether a limb's bone (not the torso's, the head's or `bone`'s) has the best score at pixel `p`. */
function ownLimb(scores: Float64Array[], p: number, bone: number): boolean {
  let win = 0;
  for (let b = 1; b < BONE_COUNT; b++) if (scores[b][p] < scores[win][p]) win = b;
  return win > 1 && win !== bone && Number.isFinite(scores[win][p]);
}

/**
 * A small closed part of a drawing (a hole of its strokes filled: a stick figure's round head, a circle
 * hand) that holds exactly one joint, the end of a bone (the head keypoint, a wrist or an ankle), belongs
 * whole to that bone, with the strokes bounding it. By the geodesic alone its fill was shared out by
 * whichever seeds lay nearest: a stick figure's raised arms cross the lower arc of its head, the upper
 * arms' seeds run through the head's round and took its lower half, so the head turned as a torn wedge
 * (generated seed 22 on animate-x dance_3). A stroke pixel bounding the part that lies along another
 * bone's segment (an arm's line crossing the head's outline) keeps its score: a line goes with the bone
 * it is drawn along. `m` the rig's (dilated) mask; `joints` in working px.
 */
export function closedEnds(m: Mask, drawing: DrawnInk, scores: Float64Array[], joints: Point[]): void {
  const { w, h } = m;
  const n = w * h;
  const { ink, inside } = drawing;
  const comp = new Int32Array(n).fill(-1);
  const sizes: number[] = [];
  const stack: number[] = [];
  for (let p = 0; p < n; p++) {
    if (!inside[p] || ink[p]) continue;
    if (comp[p] >= 0) continue;
    const c = sizes.length;
    let size = 0;
    comp[p] = c;
    stack.push(p);
    while (stack.length) {
      const q = stack.pop()!;
      size++;
      const x = q % w,
        y = (q - x) / w;
      for (const [nx, ny] of [
        [x - 1, y],
        [x + 1, y],
        [x, y - 1],
        [x, y + 1],
      ]) {
        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
        const o = ny * w + nx;
        if (inside[o] && !ink[o] && comp[o] < 0) {
          comp[o] = c;
          stack.push(o);
        }
      }
    }
    sizes.push(size);
  }
  // Joints per part: those at least HELD_DEPTH of its deepest pixel's depth inside it (a joint near its
  // edge, an elbow where an arm's line runs along the head's round, is the line's).
  const fillMask = new Uint8Array(n);
  for (let p = 0; p < n; p++) fillMask[p] = comp[p] >= 0 ? 1 : 0;
  const fillDepth = distanceToOutside({ w, h, data: fillMask });
  const deepest = sizes.map(() => 0);
  for (let p = 0; p < n; p++) if (comp[p] >= 0) deepest[comp[p]] = Math.max(deepest[comp[p]], fillDepth[p]);
  const held = sizes.map(() => [] as number[]);
  joints.forEach((j, i) => {
    const x = Math.floor(j.x),
      y = Math.floor(j.y);
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    const c = comp[y * w + x];
    if (c >= 0 && fillDepth[y * w + x] >= HELD_DEPTH * deepest[c] && !held[c].includes(i)) held[c].push(i);
  });
  // Stroke width: twice the stroke's deepest half-width (ink pixels' distance to non-ink).
  const strokeDepth = distanceToOutside({ w, h, data: ink });
  let half = 1;
  for (let i = 0; i < n; i++) if (ink[i] && strokeDepth[i] > half) half = strokeDepth[i];
  const reach = Math.ceil(2 * half) + 1;
  const partOf = (j: Point): number => {
    const x = Math.floor(j.x),
      y = Math.floor(j.y);
    return x < 0 || y < 0 || x >= w || y >= h ? -1 : comp[y * w + x];
  };
  for (const [joint, bone] of END_BONES) {
    const c = comp[Math.floor(joints[joint].y) * w + Math.floor(joints[joint].x)];
    if (c === undefined || c < 0 || held[c].length !== 1 || held[c][0] !== joint) continue;
    // A part that also holds another end, however near its edge, is no small closed end but a figure's
    // whole fill inside one outline: its big head's round is the deepest of it, so only the head joint
    // counted as held (HELD_DEPTH), and the head bone took the arms and legs with it: they kept their drawn
    // pose while their bones swung (generated seeds 8, 45 and 60).
    if (END_BONES.some(([other]) => other !== joint && partOf(joints[other]) === c)) continue;
    // The part, then the strokes within `reach` of it (walked through ink only).
    const part: number[] = [];
    const depth = new Map<number, number>();
    for (let p = 0; p < n; p++) if (comp[p] === c) part.push(p);
    const own = new Set(part);
    let front = part;
    for (let k = 1; k <= reach; k++) {
      const next: number[] = [];
      for (const q of front) {
        const x = q % w,
          y = (q - x) / w;
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx,
              ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const o = ny * w + nx;
            if (!ink[o] || own.has(o) || depth.has(o)) continue;
            depth.set(o, k);
            next.push(o);
          }
      }
      front = next;
    }
    const torso = Math.hypot(joints[0].x - joints[1].x, joints[0].y - joints[1].y);
    for (const [p] of depth) {
      // A stroke drawn along another bone (an arm's line across the head's outline) stays that bone's.
      const px = (p % w) + 0.5,
        py = Math.floor(p / w) + 0.5;
      const mine = segmentDistance(px, py, joints[BONES[bone].from], joints[BONES[bone].to]);
      let along = false;
      for (let b = 0; b < BONE_COUNT && !along; b++) {
        if (b === bone) continue;
        const d = segmentDistance(px, py, joints[BONES[b].from], joints[BONES[b].to]);
        if (d <= half + 1.5 && d < mine) along = true;
      }
      // So does a stroke a limb won (ownLimb) away from the neck: raised arms drawn against the head's
      // lower outline merge with it into one band of ink, and the upper arm's bone runs through the
      // head's round, up to 10 px off the band.
      if (!along && ownLimb(scores, p, bone) && Math.hypot(px - joints[1].x, py - joints[1].y) > NECK_KEEP * torso) along = true;
      if (!along) part.push(p);
    }
    for (const p of part) {
      let best = Infinity;
      for (let b = 0; b < BONE_COUNT; b++) best = Math.min(best, scores[b][p]);
      if (!Number.isFinite(best)) continue;
      for (let b = 0; b < BONE_COUNT; b++) scores[b][p] = b === bone ? best : Infinity;
    }
  }
}

/**
 * A drawn arm's shoulder cap (working px), where armRoot cut it off the body: the part of the shoulder
 * above the pivot, between the arm's own direction and the armpit seam carried on past the pivot.
 */
export interface ShoulderCap {
  /** The upper arm (BONES order). */
  bone: number;
  pivot: Point;
  /** Unit vectors: along the arm (shoulder to elbow), and square to it away from the armpit. */
  u: Point;
  n: Point;
  /** Angle from the arm to the seam's part past the pivot, radians (more than a right angle). */
  seamAngle: number;
  /** Distance from the pivot to the outline along `n`: the shoulder's height above the pivot. */
  height: number;
  /**
   * Per whole degree from the arm's direction (0) to the seam's (seamAngle), the distance from the
   * pivot to where the ray first leaves the figure; 0 for a ray still inside it at CAP_REACH heights.
   */
  reach: number[];
}

/**
 * The cap of an arm cut off at `armpit` through its shoulder `a` (elbow `e`, wrist `wr`), or null when the
 * seam past the pivot lies within a right angle of the arm (nothing of the shoulder above the pivot is the
 * torso's), the arm is thinner than CAP_WIDTH torso lengths, or the figure above the pivot is taller than
 * CAP_HEIGHT times the arm's width (the body goes on there, not the arm's shoulder).
 */
function shoulderCap(m: Mask, bone: number, a: Point, e: Point, wr: Point, armpit: Point, torsoLen: number): ShoulderCap | null {
  const len = Math.hypot(e.x - a.x, e.y - a.y),
    sl = Math.hypot(a.x - armpit.x, a.y - armpit.y);
  if (len < 1e-6 || sl < 1e-6) return null;
  const u = { x: (e.x - a.x) / len, y: (e.y - a.y) / len };
  const side = (armpit.x - a.x) * -u.y + (armpit.y - a.y) * u.x > 0 ? -1 : 1;
  const n = { x: -u.y * side, y: u.x * side };
  const cx = (a.x - armpit.x) / sl,
    cy = (a.y - armpit.y) / sl;
  const seamAngle = Math.atan2(cx * n.x + cy * n.y, cx * u.x + cy * u.y);
  if (seamAngle <= Math.PI / 2) return null;
  // Distance from the pivot to the figure's outside along the ray at `angle` from the arm.
  const ray = (angle: number, cap: number): number => {
    const dx = u.x * Math.cos(angle) + n.x * Math.sin(angle),
      dy = u.y * Math.cos(angle) + n.y * Math.sin(angle);
    let s = 0;
    for (;;) {
      const x = Math.floor(a.x + dx * (s + 1)),
        y = Math.floor(a.y + dy * (s + 1));
      if (s >= cap || x < 0 || y < 0 || x >= m.w || y >= m.h || m.data[y * m.w + x] !== 1) return s;
      s++;
    }
  };
  const height = ray(Math.PI / 2, m.w + m.h);
  const width = armWidth(m, e, wr);
  if (height < 2 || height > CAP_HEIGHT * width || width < CAP_WIDTH * torsoLen) return null;
  // A ray that runs on into the body (past CAP_REACH heights) holds no shoulder: nothing along it.
  const reach = Array.from({ length: Math.floor((seamAngle * 180) / Math.PI) + 1 }, (_, deg) => {
    const s = ray((deg * Math.PI) / 180, CAP_REACH * height + 1);
    return s > CAP_REACH * height ? 0 : s;
  });
  return { bone, pivot: a, u, n, seamAngle, height, reach };
}

/** A shoulder cap reaches at most this many times its height from the pivot. */
const CAP_REACH = 2;
/**
 * The shoulder above the pivot is the arm's own (its upper edge running on into the shoulder's top) when
 * it is at most this many times the arm's own width tall: char1 0.6-0.7, char2 0.8-1.0, the juice cup's
 * arm 0.6; char3's thin arms on a tall cone 2.2 and 7.
 */
const CAP_HEIGHT = 1.25;
/**
 * A thick arm, whose shoulder is its own: at least this share of the torso's length wide. char1 1.0-1.07,
 * the juice cup 1.2; the generated drawings' tube arms 0.14-0.30 on a body and their thin arms lose a
 * corner of a box-shaped body to the cap (seed 16).
 */
const CAP_WIDTH = 0.4;
/**
 * Past the outline (where a ray from the pivot leaves the rig's mask) the cap still holds the mesh's rim
 * in full for CAP_RIM working px, then fades out over as many again.
 */
const CAP_RIM = 3;
/** Largest weight of bones other than the torso, the head and the upper arm on a vertex the cap blends. */
const CAP_OTHERS = 0.02;

const smooth = (t: number): number => t * t * (3 - 2 * t);

/**
 * A thick drawn arm keeps its shoulder's outline as it swings. armRoot cuts the arm off along the seam
 * from the armpit through the shoulder pivot; past the pivot the seam runs on through the shoulder to
 * its top, and what lies beyond it, the shoulder above the pivot, stayed with the torso. Lowered, the arm
 * turned its part of the shoulder's top out from under it and left the torso's fill there as a wedge
 * with a cut edge and no outline (char1 on animate-x dance_3, frames 76 and 127). The cap is the part of
 * the figure on the far side of the arm from the armpit, from the arm's direction round to the seam, out
 * along each ray from the pivot to where it leaves the figure (and the mesh's rim, CAP_RIM): its vertices
 * share the arm's and the body's weight by angle, all the arm's up to square to it, none at the seam
 * (smoothstep), the body's share split between torso and head as it was. Lowered, the shoulder's top
 * bends down into the arm's outline like a fan; raised, it folds over the body, as before. Writes the
 * weights in place; returns per vertex the cap's upper arm + 1 (0 outside every cap), so the seam cutter
 * neither cuts nor clips a triangle all of whose vertices are in one cap.
 */
export function capWeights(
  caps: readonly ShoulderCap[],
  xs: Float64Array,
  ys: Float64Array,
  boneIdx: Int32Array,
  boneW: Float32Array,
  influences: number,
): Uint8Array {
  const inCap = new Uint8Array(xs.length);
  for (const c of caps) {
    for (let v = 0; v < xs.length; v++) {
      const px = xs[v] - c.pivot.x,
        py = ys[v] - c.pivot.y;
      const d = Math.hypot(px, py);
      const angle = Math.atan2(px * c.n.x + py * c.n.y, px * c.u.x + py * c.u.y);
      if (angle < 0 || angle > c.seamAngle) continue;
      const out = c.reach[Math.min(c.reach.length - 1, Math.round((angle * 180) / Math.PI))];
      const radial = 1 - smooth(Math.min(1, Math.max(0, (d - out - CAP_RIM) / CAP_RIM)));
      if (radial <= 0) continue;
      const o = v * influences;
      let arm = 0,
        torso = 0,
        head = 0;
      for (let k = 0; k < influences; k++) {
        const b = boneIdx[o + k];
        if (b === c.bone) arm += boneW[o + k];
        else if (b === 0) torso += boneW[o + k];
        else if (b === 1) head += boneW[o + k];
      }
      if (arm + torso + head < 1 - CAP_OTHERS) continue;
      const t = Math.max(0, (angle - Math.PI / 2) / (c.seamAngle - Math.PI / 2));
      const s = arm + (1 - smooth(t) - arm) * radial;
      // The body's share (torso and head as they were, or all torso) goes to what is not the arm's.
      const body = torso + head;
      const shares: Array<[number, number]> = [
        [c.bone, s],
        [0, body > 0 ? ((1 - s) * torso) / body : 1 - s],
        [1, body > 0 ? ((1 - s) * head) / body : 0],
      ];
      for (let k = 0; k < influences; k++) {
        boneIdx[o + k] = k < shares.length ? shares[k][0] : 0;
        boneW[o + k] = k < shares.length ? shares[k][1] : 0;
      }
      inCap[v] = c.bone + 1;
    }
  }
  return inCap;
}

/**
 * A drawing's body is a line (a stick figure's) when its half thickness along the torso is at most this
 * share of the torso's length: 0.00-0.05 on 20 of the 22 generated stick figures among seeds 1-120, 0.28
 * and more on the shared drawings, the juice cup and the generated figures drawn with a body outline.
 */
export const LINE_BODY = 0.1;

/** A stick figure's legs share their strokes while its mask's row is at most this many times as wide as at the root. */
const SHARED_WIDTH = 1.5;

/**
 * A stick figure's legs drawn from one point run together before they part: one stroke, or two strokes
 * overlapping. One thigh won that stretch and the other began below it, joined to that thigh but not
 * to the body, so it came off at the crotch as soon as the legs moved apart (generated seeds 44, 49,
 * 110 on tpl_wave, 24 of 24 frames). Going down from the root, the rows of the mask's run that holds
 * the body's line, while that run stays one piece and at most SHARED_WIDTH times its width at the root
 * (the strokes have not yet parted), go to the torso; both legs then begin where they part, and
 * limbAttachments (build-rig.ts) turns them about there. Only when they part within half a thigh's
 * length of the root; only on a line body (the caller's test). Rows of the picture: the stick figures
 * this was measured on are drawn upright. The skeleton's root can lie beside the body's line (seed 84:
 * 6 px), so the body's line is the mask's pixel on the root's row nearest to it, within LINE_BODY torso
 * lengths.
 */
export function sharedLegStretch(m: Mask, scores: Float64Array[], joints: Point[]): void {
  const root = joints[0];
  const thigh = (boneLength(joints, 6) + boneLength(joints, 8)) / 2;
  const y0 = Math.floor(root.y);
  if (y0 < 0 || y0 >= m.h) return;
  const cx = nearestOnRow(m, y0, Math.floor(root.x), Math.ceil(LINE_BODY * boneLength(joints, 0)));
  if (cx < 0) return;
  let [a, b] = rowRun(m, y0, cx);
  const width = b - a + 1;
  const rows: Array<[number, number, number]> = [[y0, a, b]];
  let parted = false;
  for (let y = y0 + 1; y < Math.min(m.h, y0 + 0.5 * thigh) && !parted; y++) {
    const runs = runsAlong(m, y, a, b);
    if (runs.length === 0) return;
    parted = runs.length > 1 || runs[0][1] - runs[0][0] + 1 > SHARED_WIDTH * width;
    if (!parted) {
      [a, b] = runs[0];
      rows.push([y, a, b]);
    }
  }
  if (!parted) return;
  const legs = [6, 7, 8, 9];
  const winner = (i: number): number => {
    let best = 0;
    for (let k = 1; k < BONE_COUNT; k++) if (scores[k][i] < scores[best][i]) best = k;
    return best;
  };
  for (const [y, ra, rb] of rows)
    for (let x = ra; x <= rb; x++) {
      const i = y * m.w + x;
      const best = winner(i);
      if (!legs.includes(best)) continue;
      scores[0][i] = scores[best][i];
      for (const k of legs) scores[k][i] = Infinity;
    }
  // Below, for half a thigh's length, a leg's pixel goes to the leg whose line from the crotch (the
  // stretch's end) to its knee is nearer. The region field measures from the thighs' bones, which start
  // at the skeleton's hips, spread sideways at the root's height: where the parting strokes still
  // overlap, one thigh won both, and the other leg began below, beside it, joined to it but not to the
  // torso (seed 84: every template frame in pieces).
  const [cy, ca, cb] = rows[rows.length - 1];
  const crotch = { x: (ca + cb + 1) / 2, y: cy + 1 };
  for (let y = cy + 1; y < Math.min(m.h, cy + 0.5 * thigh); y++)
    for (let x = 0; x < m.w; x++) {
      const i = y * m.w + x;
      const best = winner(i);
      if (!legs.includes(best)) continue;
      const near = (t: number): number => segmentDistance(x + 0.5, y + 0.5, crotch, joints[BONES[t].to]);
      const own = near(6) <= near(8) ? 6 : 8;
      if (best === own || best === own + 1) continue;
      scores[own][i] = scores[best][i];
      for (const k of [14 - own, 15 - own]) scores[k][i] = Infinity;
    }
}

/**
 * A stick figure's spine is the torso's up to where its arms join it. An arm drawn down the body in a
 * narrow wedge from the shoulders won a sliver along the spine's side below the wedge's tip (the arm's
 * radius reaches across the gap), and the spine's vertices there took the arm's weight: with the arms
 * swung out or raised they were pulled after them, the spine's top narrowed to a point and came off
 * below it (generated seeds 56 and 119: 10 of 49 dance_1 frames each; 119 every tpl_jacks and tpl_kick
 * frame). Going up from the root, the rows of the mask's run holding the body's line, while it stays
 * one piece and at most SHARED_WIDTH times its width at the root, go to the torso where an arm won
 * them. Only on a line body (the caller's test).
 */
export function spineLine(m: Mask, scores: Float64Array[], joints: Point[]): void {
  const root = joints[0],
    neck = joints[1];
  const y0 = Math.floor(root.y);
  if (y0 < 0 || y0 >= m.h || neck.y >= root.y) return;
  const cx = nearestOnRow(m, y0, Math.floor(root.x), Math.ceil(LINE_BODY * boneLength(joints, 0)));
  if (cx < 0) return;
  let [a, b] = rowRun(m, y0, cx);
  const width = b - a + 1;
  const arms = [2, 3, 4, 5];
  for (let y = y0 - 1; y > neck.y; y--) {
    const runs = runsAlong(m, y, a, b);
    if (runs.length !== 1 || runs[0][1] - runs[0][0] + 1 > SHARED_WIDTH * width) return;
    [a, b] = runs[0];
    for (let x = a; x <= b; x++) {
      const i = y * m.w + x;
      let best = 0;
      for (let k = 1; k < BONE_COUNT; k++) if (scores[k][i] < scores[best][i]) best = k;
      if (!arms.includes(best)) continue;
      scores[0][i] = scores[best][i];
      for (const k of arms) scores[k][i] = Infinity;
    }
  }
}

/** The mask pixel on row `y` nearest to column `x`, at most `reach` away, or -1. */
function nearestOnRow(m: Mask, y: number, x: number, reach: number): number {
  for (let d = 0; d <= reach; d++) for (const c of [x - d, x + d]) if (c >= 0 && c < m.w && m.data[y * m.w + c]) return c;
  return -1;
}

/** The run of mask pixels on row `y` through column `x`. */
/** The runs of row y that continue the run [a, b] of the row above or below it (8-connected). */
function runsAlong(m: Mask, y: number, a: number, b: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let x = Math.max(0, a - 1); x <= Math.min(m.w - 1, b + 1); x++) {
    if (!m.data[y * m.w + x]) continue;
    const run = rowRun(m, y, x);
    runs.push(run);
    x = run[1];
  }
  return runs;
}

function rowRun(m: Mask, y: number, x: number): [number, number] {
  let a = x,
    b = x;
  while (a > 0 && m.data[y * m.w + a - 1]) a--;
  while (b < m.w - 1 && m.data[y * m.w + b + 1]) b++;
  return [a, b];
}
