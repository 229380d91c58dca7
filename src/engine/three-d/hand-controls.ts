/**
 * Fingers of the `full` joint set, driven by the hand landmark model (vision/hand-landmarks.ts) on
 * hand crops placed by BlazePose's own hand points (wrist, index, pinky), which are measured in the
 * same pass.
 *
 * Per hand and measured frame: the bend of each finger joint, the angle between consecutive
 * segments of the model's 3D points (wrist → knuckle → middle → end → tip; the thumb from its base).
 * Each finger joint of both export skeletons rotates by its bend about the palm's across axis (the
 * skeletons lay fingers along the hand with the palm across +Z, skeletons.ts), towards the palm.
 * Hyperextension is not represented (bends are unsigned, at most 100 degrees).
 */
import type { RotatedRegion, WorldPose } from '../vision/blazepose-world.js';
import { runHandLandmarks } from '../vision/hand-landmarks.js';
import { add, qmul, qrotate, type Quat, type Vec3 } from './math3d.js';
import type { SkeletalClip } from './motion3d.js';

/** Bends in radians: index, middle, ring, pinky, thumb × 3 joints (base to tip). */
export type HandSample = number[];
/** Per frame, left and right hand. */
export type HandTrack = Array<[HandSample | null, HandSample | null]>;

const FINGERS = ['index', 'middle', 'ring', 'pinky', 'thumb'] as const;
const CHAINS: Record<(typeof FINGERS)[number], number[]> = {
  index: [0, 5, 6, 7, 8],
  middle: [0, 9, 10, 11, 12],
  ring: [0, 13, 14, 15, 16],
  pinky: [0, 17, 18, 19, 20],
  thumb: [0, 1, 2, 3, 4],
};
const MIN_HAND = 0.5;
/**
 * Smallest hand crop (decoded pixels) the model is run on: below it the fingers are a few pixels
 * wide and the model returns a plausible hand whatever the picture; those fingers stay at rest.
 */
const MIN_CROP = 64;
const MAX_BEND = (100 * Math.PI) / 180;

/** BlazePose indices of the wrist, pinky and index points of each hand (left, right). */
const BP_HAND = [
  [15, 17, 19],
  [16, 18, 20],
] as const;

/** A hand crop from BlazePose's hand points: along wrist → knuckles, fingers up. */
export function handRegion(pose: WorldPose, side: 0 | 1): RotatedRegion | null {
  const [w, p, i] = BP_HAND[side].map((k) => pose.image[k]);
  if (Math.min(w.score, p.score, i.score) < 0.5) return null;
  const vx = (p.x + i.x) / 2 - w.x,
    vy = (p.y + i.y) / 2 - w.y;
  const len = Math.hypot(vx, vy);
  if (len * 2.8 < MIN_CROP) return null;
  return { cx: w.x + vx * 0.6, cy: w.y + vy * 0.6, size: len * 2.8, angle: Math.atan2(vx, -vy) };
}

export function fingerBends(world: Array<[number, number, number]>): HandSample {
  const out: number[] = [];
  for (const f of FINGERS) {
    const c = CHAINS[f].map((k) => world[k]);
    for (let s = 0; s < 3; s++) {
      const a = c[s],
        b = c[s + 1],
        d = c[s + 2];
      const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
        v = [d[0] - b[0], d[1] - b[1], d[2] - b[2]];
      const cos = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (Math.hypot(...u) * Math.hypot(...v) || 1);
      // The knuckle's angle is measured against the palm line (wrist → knuckle), which is itself
      // tilted against the finger's rest line by ~10-20 degrees; the thumb's base less bent still.
      out.push(Math.min(MAX_BEND, Math.acos(Math.max(-1, Math.min(1, cos)))));
    }
  }
  return out;
}

export async function measureHands(
  frame: Uint8Array,
  width: number,
  height: number,
  pose: WorldPose,
): Promise<[HandSample | null, HandSample | null]> {
  const out: [HandSample | null, HandSample | null] = [null, null];
  for (const side of [0, 1] as const) {
    const region = handRegion(pose, side);
    if (!region) continue;
    const h = await runHandLandmarks(frame, width, height, region);
    if (h.score >= MIN_HAND) out[side] = fingerBends(h.world);
  }
  return out;
}

/** Linear interpolation per hand over the frames without a sample (held at the ends). */
export function interpolateHands(hands: HandTrack): HandTrack {
  const out: HandTrack = hands.map((h) => [h[0], h[1]]);
  for (const side of [0, 1] as const) {
    const known = hands.flatMap((h, i) => (h[side] ? [i] : []));
    if (known.length === 0) continue;
    let k = 0;
    for (let i = 0; i < hands.length; i++) {
      while (k + 1 < known.length && known[k + 1] <= i) k++;
      if (hands[i][side]) continue;
      const a = known[k],
        b = known[Math.min(known.length - 1, k + 1)];
      if (i <= a || b === a) {
        out[i][side] = hands[i <= a ? a : b][side];
        continue;
      }
      const u = (i - a) / (b - a);
      out[i][side] = hands[a][side]!.map((x, j) => x + (hands[b][side]![j] - x) * u);
    }
  }
  return out;
}

/** Joint names of finger f, joint k (0..2), side (0 left, 1 right) on each export skeleton. */
function fingerJoint(skeleton: 'metahuman' | 'mixamo', f: (typeof FINGERS)[number], k: number, side: 0 | 1): string {
  if (skeleton === 'metahuman') return `${f}_0${k + 1}_${side === 0 ? 'l' : 'r'}`;
  return `mixamorig:${side === 0 ? 'Left' : 'Right'}Hand${f[0].toUpperCase()}${f.slice(1)}${k + 1}`;
}

/** Writes the finger bends into a clip (in place): local rotations and the world positions under the hands. */
export function applyFingerBends(clip: SkeletalClip, hands: HandTrack): void {
  const sk = clip.skeleton;
  const n = sk.joints.length;
  const index = new Map(sk.joints.map((j, i) => [j.name, i]));
  const targets: Array<{ joint: number; side: 0 | 1; slot: number }> = [];
  for (const side of [0, 1] as const)
    FINGERS.forEach((f, fi) => {
      for (let k = 0; k < 3; k++) {
        const joint = index.get(fingerJoint(sk.id, f, k, side));
        if (joint !== undefined) targets.push({ joint, side, slot: fi * 3 + k });
      }
    });
  if (targets.length === 0) return;
  const first = Math.min(...targets.map((t) => t.joint));
  // Joints below a driven finger joint (parents come before children).
  const driven = new Uint8Array(n);
  for (const { joint } of targets) driven[joint] = 1;
  const under = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = sk.joints[i].parent;
    if (p >= 0 && (driven[p] || under[p])) under[i] = 1;
  }
  for (let t = 0; t < clip.frameCount; t++) {
    const h = hands[t];
    if (!h || (!h[0] && !h[1])) continue;
    for (const { joint, side, slot } of targets) {
      const bend = h[side]?.[slot];
      if (bend === undefined) continue;
      // Towards the palm: about -Z for the left hand (fingers along +X), +Z for the right.
      const a = ((side === 0 ? -1 : 1) * bend) / 2;
      clip.rotations.set([0, 0, Math.sin(a), Math.cos(a)] satisfies Quat, (t * n + joint) * 4);
    }
    // World positions from the first finger joint on (fingers come after their hands in the skeleton).
    const g: Quat[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const p = sk.joints[i].parent;
      const local = Array.from(clip.rotations.subarray((t * n + i) * 4, (t * n + i) * 4 + 4)) as Quat;
      g[i] = p < 0 ? local : qmul(g[p], local);
      if (i < first || p < 0 || !under[i]) continue;
      const tr = Array.from(clip.translations.subarray((t * n + i) * 3, (t * n + i) * 3 + 3)) as Vec3;
      const pw = Array.from(clip.world.subarray((t * n + p) * 3, (t * n + p) * 3 + 3)) as Vec3;
      clip.world.set(add(pw, qrotate(g[p], tr)), (t * n + i) * 3);
    }
  }
}
