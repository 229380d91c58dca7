/**
 * Retargeting: each frame, every bone of the character takes the 2D direction of the matching
 * performer bone at its own length times the performer's foreshortening of that bone (projected
 * length over the bone's full length in the clip), and the torso narrows as the performer's
 * shoulders do; the torso's root follows the performer's hip centre.
 * The character is scaled so its torso + leg length matches the performer's (a high percentile over
 * the clip, so crouching frames do not shrink it), and shifted vertically per frame so that, while
 * the performer has a foot down, the character's lowest point stands on the performer's ground line
 * (see groundOffsets).
 */
import type { Rig } from '../rig/build-rig.js';
import { BONES, BONE_COUNT, bodyScale, jointScores, jointsFromKeypoints, type Point } from '../rig/skeleton.js';
import type { MotionTrack } from '../types.js';
import { FOOT_DOWN_BAND, TORSO_LEGS, clipBodyScale, soleShare } from '../motion/sole-depth.js';

/** Six affine coefficients per bone: x' = a x + c y + e, y' = b x + d y + f (texture px → output px). */
export const AFFINE = 6;

export interface Retargeter {
  /** Output pixels per texture pixel. */
  scale: number;
  /** Writes BONE_COUNT affines for frame `i` into `out`; also returns posed joints when asked. */
  pose(i: number, out: Float64Array, joints?: Point[]): void;
  /** Median lowest-foot y in output px (where the floor is). */
  floorY: number;
  /**
   * The performer's sole below the ankle, output px: the clip's measured sole (track.sole) or the
   * barefoot allowance, as a share of the performer's stature (motion/sole-depth.ts).
   */
  soleDrop: number;
}

/** Frames either side over which the per-frame ground offset is averaged (detector jitter). */
const GROUND_SMOOTH = 2;

/** Room kept between a standing figure's top at rest and the frame's top (share of the frame height). */
const TOP_ROOM = 0.02;

/** Keypoints below this score do not steer a bone; it keeps its previous angle. */
const MIN_SCORE = 0.2;
/** The head may tilt this far from the torso (radians); beyond it face keypoints are usually noise. */
const HEAD_LIMIT = 0.7;

/**
 * Foreshortening floor: a bone's drawn length follows the performer's projected length relative to
 * that bone's own full length in the clip (an arm pointing at the camera looks short), but never
 * below this fraction, where the texture would collapse into a smear.
 */
const MIN_FORESHORTEN = 0.45;

/**
 * A limb's part as drawn is broad when its area is at least this many times its bone's length squared
 * (its mean breadth twice the bone's length or more): char1's thick sleeves and mitts 2.2-6.1, a
 * quadruped's (char6) stout legs 2.7-7.0; the people (mimicmotion demo1, musepose, 4D-Humans), char2,
 * char3 and the juice cup at most 1.3. See broadParts.
 */
const BROAD_PART = 2;

/**
 * Per bone (BONES order), whether the limb's part as drawn is broad (BROAD_PART): such a part is not
 * foreshortened. Foreshortening scales the part along its bone, and a part much broader than its bone
 * is long is not a limb that looks shorter end-on but a drawn shape squashed flat: char1's mitts (its
 * forearms' parts) went to 0.45 of their drawn length whenever the performer's forearm pointed at the
 * camera (a fifth to a third of the frames of animate-x dance_1 and dance_3), a round hand became a thin
 * lens, and a folded arm a curl of outline. Kept at its drawn length, it turns rigidly (issue 10:
 * "limbs keep their drawn shape while they move, rigid along the bone"). Measured on the rig's own
 * triangles (the bone each is drawn with) in texture px; the torso and the head are never broad here
 * (the torso narrows as before, the head is never foreshortened).
 */
function broadParts(rig: Rig): boolean[] {
  const area = BONES.map(() => 0);
  const t3 = rig.triangles,
    v2 = rig.vertices;
  for (let t = 0; t < rig.triangleBones.length; t++) {
    const [a, b, c] = [t3[t * 3] * 2, t3[t * 3 + 1] * 2, t3[t * 3 + 2] * 2];
    area[rig.triangleBones[t]] += Math.abs((v2[b] - v2[a]) * (v2[c + 1] - v2[a + 1]) - (v2[c] - v2[a]) * (v2[b + 1] - v2[a + 1])) / 2;
  }
  return BONES.map((def, b) => {
    if (b < 2) return false;
    const p = rig.joints[def.from],
      q = rig.joints[def.to];
    const len2 = (q.x - p.x) ** 2 + (q.y - p.y) ** 2;
    return len2 > 0 && area[b] >= BROAD_PART * len2;
  });
}

/**
 * A rest torso further than this from upright (radians) lies along the ground: a four-legged animal
 * (its hips at one end, its shoulders at the other). Its body is then kept level instead of being
 * stood up along the performer's spine (see createRetargeter).
 */
const LEVEL_BODY = Math.PI / 4;
/** A level body's length at rest is at most this share of the frame width (its legs swing out past it). */
const LEVEL_BODY_WIDTH = 0.7;
/** Room (share of the frame width) kept between a level body at rest and the frame's sides. */
const LEVEL_BODY_MARGIN = 0.05;

/** Left/right rig joint pairs (shoulder, elbow, wrist, hip, knee, ankle). */
const MIRROR_PAIRS: Array<[number, number]> = [
  [3, 6],
  [4, 7],
  [5, 8],
  [9, 12],
  [10, 13],
  [11, 14],
];

const wrap = (a: number): number => {
  while (a > Math.PI) a -= 2 * Math.PI;
  while (a < -Math.PI) a += 2 * Math.PI;
  return a;
};

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((s.length - 1) * p)))];
}

/** +1 when the figure's left side is on the image's right (it faces the camera), -1 when seen from behind. */
const facing = (j: Point[]): number => Math.sign(j[3].x - j[6].x + (j[9].x - j[12].x));

/**
 * A character seen from behind (its left shoulder on the image's left) driven by a performer facing
 * the camera, or the reverse. Each limb is then driven by the performer's limb on the same side of the
 * image, otherwise every arm and leg would swing across the body.
 */
function facesOpposite(rest: Point[], driving: Point[][]): boolean {
  const performer = Math.sign(driving.reduce((a, j) => a + facing(j), 0));
  return facing(rest) !== 0 && performer !== 0 && facing(rest) !== performer;
}

/** Whether `createRetargeter` drives this rig by image side (see facesOpposite). */
export function drivesByImageSide(rig: Rig, track: MotionTrack): boolean {
  return facesOpposite(
    rig.joints,
    track.frames.map((f) => jointsFromKeypoints(f.body)),
  );
}

/**
 * @param bottomInset how far the rig mesh's lowest vertex lies below the texture's lowest opaque row
 * at rest (texture px): the mesh reaches a little past the alpha edge, and the ground is met by what
 * is drawn, not by the mesh.
 */
export function createRetargeter(rig: Rig, track: MotionTrack, outW: number, bottomInset = 0): Retargeter {
  const k = outW / track.width;
  const rest: Point[] = rig.joints.map((j) => ({ x: j.x, y: j.y }));
  const restAngle = BONES.map((b) => Math.atan2(rest[b.to].y - rest[b.from].y, rest[b.to].x - rest[b.from].x));

  const driving = track.frames.map((f) => jointsFromKeypoints(f.body));
  const scores = track.frames.map((f) => jointScores(f.body));
  if (facesOpposite(rest, driving)) {
    for (const arr of [driving, scores] as Array<Array<Array<unknown>>>) {
      for (const f of arr) for (const [a, b] of MIRROR_PAIRS) [f[a], f[b]] = [f[b], f[a]];
    }
  }
  const ld = clipBodyScale(track.frames);
  const lc = bodyScale(rest);
  let scale = Number.isFinite(ld) && ld > 1 && lc > 1 ? (k * ld) / lc : k;
  // Cap: a figure with unusual proportions (big drawn head, or a misplaced skeleton) must not end up
  // much taller than the performer. Torso + legs is ~0.77 of a standing adult's height.
  let top = Infinity,
    bottom = -Infinity;
  for (let v = 1; v < rig.vertices.length; v += 2) {
    top = Math.min(top, rig.vertices[v]);
    bottom = Math.max(bottom, rig.vertices[v]);
  }
  const performerHeight = (k * ld) / TORSO_LEGS;
  const soleDrop = Number.isFinite(performerHeight) ? soleShare(track) * performerHeight : 0;
  if (Number.isFinite(performerHeight) && bottom > top) scale = Math.min(scale, (1.1 * performerHeight) / (bottom - top));
  // ...and standing on the clip's ground line, it must fit under the frame's top: a drawing's big head
  // or crown was cut off by the frame on every frame (char1 on the dances) while its torso and legs
  // matched the performer's. The figure's whole rest height fits between the ground and the top.
  const groundAnkles: number[] = [];
  for (let i = 0; i < driving.length; i++) {
    const seen = [11, 14].filter((j) => scores[i][j] >= MIN_SCORE).map((j) => driving[i][j].y * k);
    if (seen.length) groundAnkles.push(Math.max(...seen));
  }
  const groundLine = percentile(groundAnkles, 0.9) + soleDrop;
  if (Number.isFinite(groundLine) && bottom > top) {
    scale = Math.min(scale, (groundLine - TOP_ROOM * track.height * k) / (bottom - top));
  }
  // A figure whose torso lies along the ground (a quadruped) keeps its body level: the performer's
  // spine would stand it on its hind legs. Its legs still follow the performer's limbs (arms → front
  // legs, legs → hind legs, by slot), its head nods as the performer's head does relative to the spine,
  // and it is centred on the performer's hips rather than hung from its own hip end. Its scale (torso +
  // legs, like a person's) would make it as long as the performer is tall; it is held within the frame.
  const levelBody = Math.abs(wrap(restAngle[0] + Math.PI / 2)) > LEVEL_BODY;
  let left = Infinity,
    right = -Infinity;
  for (let v = 0; v < rig.vertices.length; v += 2) {
    left = Math.min(left, rig.vertices[v]);
    right = Math.max(right, rig.vertices[v]);
  }
  if (levelBody && right > left) {
    const maxWidth = Math.min(LEVEL_BODY_WIDTH * outW, Number.isFinite(performerHeight) ? performerHeight : Infinity);
    scale = Math.min(scale, maxWidth / (right - left));
  }
  const centreShift = levelBody ? rest[0].x - (left + right) / 2 : 0;
  // ...and its centre is kept where its whole length fits in the frame, with a margin for the legs.
  const halfLength = ((right - left) / 2) * scale;
  const centreRange: [number, number] = [halfLength + LEVEL_BODY_MARGIN * outW, outW - halfLength - LEVEL_BODY_MARGIN * outW];

  // Per-bone reference length: the performer's bone at its longest (90th percentile over frames
  // where both ends are seen), i.e. lying in the image plane. Shoulder width likewise for the
  // torso's breadth (a performer turning sideways narrows).
  const seenLen = (b: number): number[] =>
    driving.flatMap((j, i) => {
      const def = BONES[b];
      return scores[i][def.from] >= MIN_SCORE && scores[i][def.to] >= MIN_SCORE
        ? [Math.hypot(j[def.to].x - j[def.from].x, j[def.to].y - j[def.from].y)]
        : [];
    });
  const refLen = BONES.map((_, b) => percentile(seenLen(b), 0.9));
  const shoulderW = (j: Point[]): number => Math.hypot(j[3].x - j[6].x, j[3].y - j[6].y);
  const refShoulder = percentile(driving.filter((_, i) => scores[i][3] >= MIN_SCORE && scores[i][6] >= MIN_SCORE).map(shoulderW), 0.9);
  // A bone foreshortened in the character's picture is drawn at its full length (rig.fullLength).
  const full = BONES.map((_, b) => rig.fullLength?.[b] ?? 1);
  const broad = broadParts(rig);
  const ratio = (v: number, ref: number): number => (Number.isFinite(ref) && ref > 1 ? Math.max(MIN_FORESHORTEN, Math.min(1, v / ref)) : 1);

  // Angles and length factors carried over between frames for bones whose keypoints are unreliable.
  const angles = new Float64Array(BONE_COUNT);
  const along = new Float64Array(BONE_COUNT).fill(1);
  let across = 1;
  let lastFrame = -2;
  let offsets: Float64Array = new Float64Array(track.frames.length);

  const solve = (i: number, out: Float64Array, joints?: Point[]): void => {
    const d = driving[i];
    const s = scores[i];
    if (i !== lastFrame + 1) {
      angles.fill(0);
      along.fill(1);
      across = 1;
    }
    lastFrame = i;
    for (let b = 0; b < BONE_COUNT; b++) {
      const def = BONES[b];
      const p = d[def.from],
        q = d[def.to];
      const len = Math.hypot(q.x - p.x, q.y - p.y);
      if (levelBody && b === 0) {
        // Level body: no turn, no foreshortening (a performer bending forward does not shorten a pig).
        angles[0] = 0;
        continue;
      }
      if (len > 1e-3 && s[def.from] >= MIN_SCORE && s[def.to] >= MIN_SCORE) {
        angles[b] = wrap(Math.atan2(q.y - p.y, q.x - p.x) - restAngle[b]);
        // A level body's head turns by the performer's head relative to the performer's spine.
        if (levelBody && b === 1) angles[1] = wrap(Math.atan2(q.y - p.y, q.x - p.x) - Math.atan2(d[1].y - d[0].y, d[1].x - d[0].x));
        // The head keeps its size: its keypoint is a face centre, not a bone end.
        if (b !== 1) along[b] = ratio(len, refLen[b]);
      } else if (i === 0 || b === 0) {
        angles[b] = b === 0 ? angles[b] : angles[def.parent];
      }
    }
    if (s[3] >= MIN_SCORE && s[6] >= MIN_SCORE && !levelBody) across = ratio(shoulderW(d), refShoulder);
    angles[1] = angles[0] + Math.max(-HEAD_LIMIT, Math.min(HEAD_LIMIT, wrap(angles[1] - angles[0])));
    const root = d[0];
    for (let b = 0; b < BONE_COUNT; b++) {
      const def = BONES[b];
      const piv = rest[def.from];
      let px: number, py: number;
      if (def.parent < 0) {
        px = root.x * k;
        if (levelBody) px = Math.max(centreRange[0], Math.min(centreRange[1], px)) + centreShift * scale;
        py = root.y * k + offsets[i];
      } else {
        const o = def.parent * AFFINE;
        px = out[o] * piv.x + out[o + 2] * piv.y + out[o + 4];
        py = out[o + 1] * piv.x + out[o + 3] * piv.y + out[o + 5];
      }
      // M = scale · R(angle) · R(φ) · diag(along, across) · R(−φ), φ = the bone's rest direction:
      // stretched along the bone by its foreshortening (not a broad part's: broadParts), across it only
      // for the torso (turning).
      const f = (broad[b] ? 1 : along[b]) * full[b],
        g = b === 0 ? across : 1;
      const cp = Math.cos(restAngle[b]),
        sp = Math.sin(restAngle[b]);
      const s00 = f * cp * cp + g * sp * sp,
        s01 = (f - g) * cp * sp,
        s11 = f * sp * sp + g * cp * cp;
      const c = Math.cos(angles[b]) * scale,
        sn = Math.sin(angles[b]) * scale;
      const m00 = c * s00 - sn * s01,
        m01 = c * s01 - sn * s11,
        m10 = sn * s00 + c * s01,
        m11 = sn * s01 + c * s11;
      const o = b * AFFINE;
      out[o] = m00;
      out[o + 1] = m10;
      out[o + 2] = m01;
      out[o + 3] = m11;
      out[o + 4] = px - (m00 * piv.x + m01 * piv.y);
      out[o + 5] = py - (m10 * piv.x + m11 * piv.y);
    }
    if (joints) {
      // Each joint moves with the bone that starts at it (the torso carries root and neck).
      joints.length = rest.length;
      const place = (j: number, b: number): void => {
        const o = b * AFFINE,
          r = rest[j];
        joints[j] = { x: out[o] * r.x + out[o + 2] * r.y + out[o + 4], y: out[o + 1] * r.x + out[o + 3] * r.y + out[o + 5] };
      };
      place(0, 0);
      place(1, 0);
      for (let b = 1; b < BONE_COUNT; b++) {
        place(BONES[b].from, BONES[b].parent === 0 ? 0 : BONES[b].parent);
        place(BONES[b].to, b);
      }
    }
  };

  // Vertical alignment, per frame: see groundOffsets.
  const tmp = new Float64Array(BONE_COUNT * AFFINE);
  const charLow = new Float64Array(track.frames.length);
  const perfAnkle = new Float64Array(track.frames.length);
  for (let i = 0; i < track.frames.length; i++) {
    solve(i, tmp);
    charLow[i] = lowestVertex(rig, tmp) - bottomInset * scale;
    const seen = [11, 14].filter((j) => scores[i][j] >= MIN_SCORE).map((j) => driving[i][j].y * k);
    perfAnkle[i] = seen.length ? Math.max(...seen) : NaN;
  }
  offsets = groundOffsets(charLow, perfAnkle, soleDrop, track.height * k);
  lastFrame = -2;
  const ankles = Array.from(perfAnkle).filter(Number.isFinite);
  return { scale, pose: solve, floorY: percentile(ankles, 0.5), soleDrop };
}

/** The lowest point of the rig's mesh posed by `aff` (linear blend skinning, y only). */
function lowestVertex(rig: Rig, aff: Float64Array): number {
  const vs = rig.vertices,
    bi = rig.boneIndices,
    bw = rig.boneWeights,
    n = rig.influences;
  let low = -Infinity;
  for (let v = 0, nv = vs.length / 2; v < nv; v++) {
    const x = vs[v * 2],
      y = vs[v * 2 + 1];
    let oy = 0;
    for (let q = 0; q < n; q++) {
      const w = bw[v * n + q];
      if (w === 0) continue;
      const o = bi[v * n + q] * AFFINE;
      oy += w * (aff[o + 1] * x + aff[o + 3] * y + aff[o + 5]);
    }
    if (oy > low) low = oy;
  }
  return low;
}

/**
 * Per-frame vertical offsets (output px) that put the character's lowest point on the ground while the
 * performer has a foot down. `charLow` is the posed character's lowest point before any offset,
 * `perfAnkle` the performer's lowest seen ankle (NaN when neither is seen), `soleDrop` the performer's
 * sole below the ankle, `H` the frame height.
 *
 * The ground line is the 90th percentile of the performer's lowest ankle over the clip; a foot is down
 * within FOOT_DOWN_BAND × H of it. On those frames the offset brings the character's lowest point to
 * the performer's ankle plus the sole; in between (a jump, a kick with both feet up, unseen ankles) it
 * is interpolated from the frames either side, so the character leaves and meets the ground with the
 * performer's hips; the offsets are then averaged over a few frames against detector jitter. A clip
 * with no foot down anywhere keeps one offset: the median over its frames.
 */
export function groundOffsets(charLow: Float64Array, perfAnkle: Float64Array, soleDrop: number, H: number): Float64Array {
  const n = charLow.length;
  const out = new Float64Array(n);
  const seen = Array.from(perfAnkle).filter(Number.isFinite);
  if (n === 0 || seen.length === 0) return out;
  const ground = percentile(seen, 0.9);
  const raw = new Float64Array(n).fill(NaN);
  const down: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(perfAnkle[i]) || !Number.isFinite(charLow[i])) continue;
    raw[i] = perfAnkle[i] + soleDrop - charLow[i];
    if (perfAnkle[i] >= ground - FOOT_DOWN_BAND * H) down.push(i);
  }
  if (down.length === 0) {
    out.fill(percentile(Array.from(raw).filter(Number.isFinite), 0.5));
    return out;
  }
  const fill = new Float64Array(n);
  let d = 0;
  for (let i = 0; i < n; i++) {
    while (d + 1 < down.length && down[d + 1] <= i) d++;
    const a = down[d];
    if (i <= down[0]) fill[i] = raw[down[0]];
    else if (d === down.length - 1 || a === i) fill[i] = raw[a];
    else {
      const b = down[d + 1];
      fill[i] = raw[a] + ((raw[b] - raw[a]) * (i - a)) / (b - a);
    }
  }
  for (let i = 0; i < n; i++) {
    let s = 0,
      c = 0;
    for (let j = Math.max(0, i - GROUND_SMOOTH); j <= Math.min(n - 1, i + GROUND_SMOOTH); j++) {
      s += fill[j];
      c++;
    }
    out[i] = s / c;
  }
  return out;
}
