/**
 * Lifts a 2D pose track (COCO-17, pixels) to 3D joint positions with constant bone lengths.
 *
 * Method (orthographic, one camera per clip): each bone's true length is its longest steady 2D
 * length over the clip (90th percentile, left and right sides shared); in a frame where the bone
 * looks shorter, the missing length is depth, |dz| = sqrt(L² - l²). The sign of dz is the ambiguity
 * of any single-view lifting; it is chosen from the figure's facing (shoulder and hip order, nose
 * offset): knees, elbows and hands in front of the body, shins behind the knees. A 2D bone longer
 * than its length is shortened to it, so every lifted bone has exactly its length in every frame.
 *
 * Output space: x right, y up, z towards the camera, in the track's pixels (scale comes later).
 */
import type { MotionTrack } from '../types.js';
import { add, cross, length, normalize, scale, sub, type Vec3 } from './math3d.js';

/** Indices 0..16 are COCO-17; then the derived points. */
export const PELVIS = 17;
export const NECK = 18;
export const HEAD = 19;
export const LIFTED_POINTS = 20;

type Bone = [parent: number, child: number, group: string, depthSign: 'forward' | 'backward' | 'side-l' | 'side-r'];
/** Parents before children. `group` pairs left/right bones that share a length. */
const BONES: Bone[] = [
  [PELVIS, NECK, 'torso', 'forward'],
  [PELVIS, 11, 'hip', 'side-l'],
  [PELVIS, 12, 'hip', 'side-r'],
  [NECK, 5, 'shoulder', 'side-l'],
  [NECK, 6, 'shoulder', 'side-r'],
  [NECK, 0, 'nose', 'forward'],
  [NECK, HEAD, 'head', 'forward'],
  [5, 7, 'upperarm', 'forward'],
  [7, 9, 'forearm', 'forward'],
  [6, 8, 'upperarm', 'forward'],
  [8, 10, 'forearm', 'forward'],
  [11, 13, 'thigh', 'forward'],
  [13, 15, 'shin', 'backward'],
  [12, 14, 'thigh', 'forward'],
  [14, 16, 'shin', 'backward'],
];

export interface LiftedTrack {
  fps: number;
  /** Per frame, LIFTED_POINTS points. */
  frames: Vec3[][];
  /** Bone length per group, pixels. */
  lengths: Record<string, number>;
  /** Pixels of the track per metre of the performer's body (from a 1.75 m stature proportion). */
  pixelsPerMetre: number;
}

const SEEN = 0.3;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((s.length - 1) * p)))];
}

/** 2D points of one frame with the derived ones, y flipped up. Scores kept beside them. */
function points2d(body: MotionTrack['frames'][number]['body']): { p: Vec3[]; score: number[] } {
  const p: Vec3[] = body.map((k) => [k.x, -k.y, 0]);
  const score = body.map((k) => k.score);
  const mid = (a: number, b: number): Vec3 => scale(add(p[a], p[b]), 0.5);
  p[PELVIS] = mid(11, 12);
  p[NECK] = mid(5, 6);
  // The head's centre: between the ears when seen, else the eyes, else the nose.
  p[HEAD] = score[3] >= SEEN && score[4] >= SEEN ? mid(3, 4) : score[1] >= SEEN && score[2] >= SEEN ? mid(1, 2) : p[0];
  score[PELVIS] = Math.min(score[11], score[12]);
  score[NECK] = Math.min(score[5], score[6]);
  score[HEAD] = Math.max(Math.min(score[3], score[4]), Math.min(score[1], score[2]), score[0]);
  return { p, score };
}

export function boneLengths(track: MotionTrack): Record<string, number> {
  const samples: Record<string, number[]> = {};
  for (const f of track.frames) {
    if (f.body.length < 17) continue;
    const { p, score } = points2d(f.body);
    for (const [a, b, g] of BONES) {
      if (score[a] < SEEN || score[b] < SEEN) continue;
      (samples[g] ??= []).push(length(sub(p[b], p[a])));
    }
  }
  const out: Record<string, number> = {};
  for (const [, , g] of BONES) out[g] = percentile(samples[g] ?? [], 0.9);
  // Fallbacks from body proportions when a bone was never seen (a cropped clip).
  const torso = out.torso || Math.max(out.thigh, out.shin, 1) * 1.2;
  out.torso = torso;
  const defaults: Record<string, number> = {
    hip: 0.17,
    shoulder: 0.36,
    nose: 0.45,
    head: 0.42,
    upperarm: 0.55,
    forearm: 0.5,
    thigh: 0.85,
    shin: 0.8,
  };
  for (const [g, k] of Object.entries(defaults)) if (!out[g]) out[g] = torso * k;
  return out;
}

/**
 * Per frame, 3D points in COCO-17 order plus the derived ones (metres, x right, y up, z towards the
 * camera; BlazePose's world landmarks mapped by world-track.ts), or null where none were measured.
 */
export type WorldDepth = Array<Vec3[] | null>;

/** Pixels of the track per metre of the world points: the clip's bone lengths over their 3D lengths. */
function pixelsPerWorldMetre(lengths: Record<string, number>, world: WorldDepth): number {
  const ratios: number[] = [];
  for (const w of world) {
    if (!w) continue;
    const m = length(sub(w[NECK], w[PELVIS])) + length(sub(w[13], w[11])) + length(sub(w[15], w[13]));
    if (m > 1e-3) ratios.push((lengths.torso + lengths.thigh + lengths.shin) / m);
  }
  return percentile(ratios, 0.5);
}

/**
 * Lifts every frame of `track`; frames must already be gap-filled (17 keypoints each). With `world`
 * (measured 3D points per frame), each bone's depth direction is the measured one; without, the
 * facing heuristic below decides it.
 */
export function liftTrack(track: MotionTrack, world?: WorldDepth): LiftedTrack {
  const lengths = boneLengths(track);
  const kPx = world ? pixelsPerWorldMetre(lengths, world) : 0;
  const frames: Vec3[][] = [];
  for (const [t, f] of track.frames.entries()) {
    const w = kPx > 0 ? (world?.[t] ?? null) : null;
    const { p, score } = points2d(f.body);
    // Facing: the figure's left shoulder/hip on the image's right means it faces the camera.
    const sideX = p[5][0] - p[6][0] + (p[11][0] - p[12][0]);
    const facing = sideX >= 0 ? 1 : -1;
    // Turn direction from the nose: a nose right of the neck turns the figure's front to the right.
    const noseOff = score[0] >= SEEN ? p[0][0] - p[NECK][0] : 0;
    const sideSign = noseOff === 0 ? 0 : -Math.sign(noseOff) * facing;
    const out: Vec3[] = p.map((v) => [v[0], v[1], 0] as Vec3);
    const done = new Set<number>([PELVIS]);
    out[PELVIS] = [p[PELVIS][0], p[PELVIS][1], 0];
    for (const [a, b, g, rule] of BONES) {
      const L = lengths[g];
      let d = sub(p[b], p[a]);
      d[2] = 0;
      const l = length(d);
      if (l > L) d = scale(d, L / l);
      const dz = Math.sqrt(Math.max(0, L * L - Math.min(l, L) ** 2));
      let sign: number;
      // Measured depth: the bone's own direction (its magnitude stays the one the 2D length leaves).
      if (w && w[b][2] !== w[a][2]) sign = Math.sign(w[b][2] - w[a][2]);
      else if (rule === 'forward') sign = facing;
      else if (rule === 'backward') sign = -facing;
      else sign = (rule === 'side-l' ? 1 : -1) * sideSign * facing;
      out[b] = add(out[a], [d[0], d[1], sign * dz]);
      done.add(b);
    }
    // Eyes and ears ride with the nose (only the head frame uses them); measured, they turn the head.
    for (const k of [1, 2, 3, 4])
      out[k] = [p[k][0], p[k][1], w ? out[0][2] + (w[k][2] - w[0][2]) * kPx : out[0][2] - (k >= 3 ? lengths.nose * 0.3 * facing : 0)];
    frames.push(out);
  }
  // A 1.75 m person: the torso (pelvis to neck) is about 0.29 of the stature, thigh + shin 0.47.
  const pixelsPerMetre = (lengths.torso + lengths.thigh + lengths.shin) / (1.75 * (0.29 + 0.47));
  return { fps: track.fps, frames, lengths, pixelsPerMetre };
}

/** Gaussian smoothing of every point over time (sigma in frames); used when smoothing is on. */
export function smoothLifted(frames: Vec3[][], sigma: number): Vec3[][] {
  if (sigma <= 0 || frames.length < 3) return frames;
  const r = Math.ceil(sigma * 2.5);
  const w = Array.from({ length: 2 * r + 1 }, (_, i) => Math.exp(-((i - r) ** 2) / (2 * sigma * sigma)));
  return frames.map((_, t) =>
    frames[t].map((_, k) => {
      let acc: Vec3 = [0, 0, 0];
      let sw = 0;
      for (let i = -r; i <= r; i++) {
        const u = t + i;
        if (u < 0 || u >= frames.length) continue;
        acc = add(acc, scale(frames[u][k], w[i + r]));
        sw += w[i + r];
      }
      return scale(acc, 1 / sw);
    }),
  );
}

/** Unit vector of the figure's forward direction in a lifted frame (horizontal). */
export function forwardOf(pts: Vec3[]): Vec3 {
  const side = add(sub(pts[5], pts[6]), sub(pts[11], pts[12]));
  const f = cross(side, [0, 1, 0]);
  return normalize([f[0], 0, f[2]], [0, 0, 1]);
}
