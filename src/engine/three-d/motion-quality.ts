/**
 * Scores of a skeletal clip against the 2D track it came from (for tests and the 3D bench):
 * - PCK@0.2 by reprojection: one orthographic camera per clip (scale and offset, least squares)
 *   projects the skeleton's joints onto the frames; a joint is correct when it lands within 0.2 of
 *   the frame's torso diameter (left shoulder to right hip) from the detected keypoint.
 * - Bone-length variation: the largest relative change of any bone's world length over the clip
 *   (MetaHuman's root-to-pelvis offset is root motion, not a bone).
 * - Foot sliding: the largest horizontal move of a foot between two frames in which it is planted.
 */
import type { MotionTrack } from '../types.js';
import type { SkeletalClip } from './motion3d.js';

const SEEN = 0.3;

function worldAt(clip: SkeletalClip, t: number, j: number): [number, number, number] {
  const o = (t * clip.skeleton.joints.length + j) * 3;
  return [clip.world[o], clip.world[o + 1], clip.world[o + 2]];
}

export function reprojectionPck(clip: SkeletalClip, track: MotionTrack, threshold = 0.2): number {
  const pairs: Array<{ X: number; Y: number; x: number; y: number; t: number }> = [];
  const frames = Math.min(clip.frameCount, track.frames.length);
  for (let t = 0; t < frames; t++) {
    const body = track.frames[t].body;
    for (const [coco, joint] of Object.entries(clip.skeleton.cocoJoints)) {
      const k = body[Number(coco)];
      if (!k || k.score < SEEN) continue;
      const w = worldAt(clip, t, joint);
      pairs.push({ X: w[0], Y: w[1], x: k.x, y: k.y, t });
    }
  }
  if (pairs.length === 0) return 0;
  // x = s·X + a, y = -s·Y + b: linear least squares in (s, a, b).
  let sXX = 0,
    sX = 0,
    sY = 0,
    sx = 0,
    sy = 0,
    sXx = 0,
    sYy = 0;
  for (const p of pairs) {
    sXX += p.X * p.X + p.Y * p.Y;
    sX += p.X;
    sY += p.Y;
    sx += p.x;
    sy += p.y;
    sXx += p.X * p.x;
    sYy += p.Y * p.y;
  }
  const n = pairs.length;
  // Normal equations with a and b eliminated.
  const s = (sXx - (sX * sx) / n - sYy + (sY * sy) / n) / (sXX - (sX * sX) / n - (sY * sY) / n);
  const a = (sx - s * sX) / n;
  const b = (sy + s * sY) / n;
  let ok = 0;
  for (const p of pairs) {
    const body = track.frames[p.t].body;
    const torso = Math.hypot(body[5].x - body[12].x, body[5].y - body[12].y);
    const err = Math.hypot(s * p.X + a - p.x, -s * p.Y + b - p.y);
    if (err <= threshold * torso) ok++;
  }
  return ok / n;
}

export function boneLengthVariation(clip: SkeletalClip): number {
  const sk = clip.skeleton;
  let worst = 0;
  for (let j = 0; j < sk.joints.length; j++) {
    const p = sk.joints[j].parent;
    // The pelvis's offset from a ground-level root is root motion (its height), not a bone.
    // Face controls move by translation (face-controls.ts): controls, not bones.
    if (p < 0 || j === sk.hipsJoint || sk.joints[j].control) continue;
    let min = Infinity;
    let max = 0;
    for (let t = 0; t < clip.frameCount; t++) {
      const a = worldAt(clip, t, j);
      const b = worldAt(clip, t, p);
      const l = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      min = Math.min(min, l);
      max = Math.max(max, l);
    }
    if (max > 1e-4) worst = Math.max(worst, (max - min) / max);
  }
  return worst;
}

/** Largest between-frame horizontal move (metres) of a foot planted in both frames. */
export function plantedFootSlide(clip: SkeletalClip): number {
  let worst = 0;
  for (let t = 1; t < clip.frameCount; t++) {
    clip.skeleton.feet.forEach((foot, side) => {
      if (!clip.planted[t][side] || !clip.planted[t - 1][side]) return;
      const a = worldAt(clip, t, foot);
      const b = worldAt(clip, t - 1, foot);
      worst = Math.max(worst, Math.hypot(a[0] - b[0], a[2] - b[2]));
    });
  }
  return worst;
}

/** Share of frames in which at least one foot is planted. */
export function plantedShare(clip: SkeletalClip): number {
  return clip.planted.filter(([l, r]) => l || r).length / Math.max(1, clip.frameCount);
}
