/**
 * Retargeting: each frame, every bone of the character takes the 2D direction of the matching
 * performer bone at its own length times the performer's foreshortening of that bone (projected
 * length over the bone's full length in the clip), and the torso narrows as the performer's
 * shoulders do; the torso's root follows the performer's hip centre.
 * The character is scaled so its torso + leg length matches the performer's (a high percentile over
 * the clip, so crouching frames do not shrink it), and shifted vertically once so its feet stand
 * where the performer's feet stand.
 */
import type { Rig } from '../rig/build-rig.js';
import { BONES, BONE_COUNT, bodyScale, jointScores, jointsFromKeypoints, type Point } from '../rig/skeleton.js';
import type { MotionTrack } from '../types.js';

/** Six affine coefficients per bone: x' = a x + c y + e, y' = b x + d y + f (texture px → output px). */
export const AFFINE = 6;

export interface Retargeter {
  /** Output pixels per texture pixel. */
  scale: number;
  /** Writes BONE_COUNT affines for frame `i` into `out`; also returns posed joints when asked. */
  pose(i: number, out: Float64Array, joints?: Point[]): void;
  /** Median lowest-foot y in output px (where the floor is). */
  floorY: number;
}

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

export function createRetargeter(rig: Rig, track: MotionTrack, outW: number): Retargeter {
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
  const sizes = driving.filter((_, i) => track.frames[i].score > 0).map((j) => bodyScale(j));
  const ld = percentile(sizes.length ? sizes : driving.map((j) => bodyScale(j)), 0.9);
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
  const performerHeight = (k * ld) / 0.77;
  if (Number.isFinite(performerHeight) && bottom > top) scale = Math.min(scale, (1.1 * performerHeight) / (bottom - top));

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
  const ratio = (v: number, ref: number): number => (Number.isFinite(ref) && ref > 1 ? Math.max(MIN_FORESHORTEN, Math.min(1, v / ref)) : 1);

  // Angles and length factors carried over between frames for bones whose keypoints are unreliable.
  const angles = new Float64Array(BONE_COUNT);
  const along = new Float64Array(BONE_COUNT).fill(1);
  let across = 1;
  let lastFrame = -2;
  let offsetY = 0;

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
      if (len > 1e-3 && s[def.from] >= MIN_SCORE && s[def.to] >= MIN_SCORE) {
        angles[b] = wrap(Math.atan2(q.y - p.y, q.x - p.x) - restAngle[b]);
        // The head keeps its size: its keypoint is a face centre, not a bone end.
        if (b !== 1) along[b] = ratio(len, refLen[b]);
      } else if (i === 0 || b === 0) {
        angles[b] = b === 0 ? angles[b] : angles[def.parent];
      }
    }
    if (s[3] >= MIN_SCORE && s[6] >= MIN_SCORE) across = ratio(shoulderW(d), refShoulder);
    angles[1] = angles[0] + Math.max(-HEAD_LIMIT, Math.min(HEAD_LIMIT, wrap(angles[1] - angles[0])));
    const root = d[0];
    for (let b = 0; b < BONE_COUNT; b++) {
      const def = BONES[b];
      const piv = rest[def.from];
      let px: number, py: number;
      if (def.parent < 0) {
        px = root.x * k;
        py = root.y * k + offsetY;
      } else {
        const o = def.parent * AFFINE;
        px = out[o] * piv.x + out[o + 2] * piv.y + out[o + 4];
        py = out[o + 1] * piv.x + out[o + 3] * piv.y + out[o + 5];
      }
      // M = scale · R(angle) · R(φ) · diag(along, across) · R(−φ), φ = the bone's rest direction:
      // stretched along the bone by its foreshortening, across it only for the torso (turning).
      const f = along[b],
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

  // Vertical alignment: median over frames of (performer's lowest ankle − character's lowest ankle).
  const tmp = new Float64Array(BONE_COUNT * AFFINE);
  const posed: Point[] = [];
  const diffs: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < track.frames.length; i++) {
    solve(i, tmp, posed);
    const perf = Math.max(driving[i][11].y, driving[i][14].y) * k;
    const char = Math.max(posed[11].y, posed[14].y);
    diffs.push(perf - char);
    floors.push(perf);
  }
  offsetY = diffs.length ? percentile(diffs, 0.5) : 0;
  lastFrame = -2;
  return { scale, pose: solve, floorY: percentile(floors, 0.5) };
}
