/**
 * Pose fidelity of a render: PCK@α between the driving pose and the pose a detector finds in the
 * rendered frame. Both skeletons are aligned on the hip centre and scaled to the same torso + leg
 * length first (a character keeps its own proportions and size, so raw pixel distances would measure the
 * drawing, not the motion). A keypoint counts when it lies within α × torso length of the driving
 * keypoint; the better of the detection and its left/right mirror labelling is scored, as 2D views
 * are flip-ambiguous (a back view is animated by image side). Only the 12 limb and torso keypoints are scored: a drawn face rarely has COCO's eyes and
 * ears where a detector expects them.
 */
import type { Keypoint } from '../types.js';

const SCORED = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
/** Driving keypoints below this confidence are not scored (they are guesses themselves). */
const MIN_DRIVING_SCORE = 0.3;

function frame(body: Keypoint[]): { cx: number; cy: number; torso: number; size: number } {
  const cx = (body[11].x + body[12].x) / 2,
    cy = (body[11].y + body[12].y) / 2;
  const sx = (body[5].x + body[6].x) / 2,
    sy = (body[5].y + body[6].y) / 2;
  const d = (a: number, b: number): number => Math.hypot(body[a].x - body[b].x, body[a].y - body[b].y);
  const torso = Math.hypot(sx - cx, sy - cy);
  return { cx, cy, torso, size: torso + (d(11, 13) + d(13, 15) + d(12, 14) + d(14, 16)) / 2 };
}

/**
 * Fraction of scored keypoints of one frame that match, or null when the driving frame has nothing
 * to score. A missing detection (`rendered` null) scores 0.
 */
export function pckFrame(driving: Keypoint[], rendered: Keypoint[] | null, alpha = 0.2): { hits: number; total: number } | null {
  const d = frame(driving);
  const scored = SCORED.filter((i) => driving[i].score >= MIN_DRIVING_SCORE);
  if (scored.length === 0 || d.torso < 1) return null;
  if (!rendered) return { hits: 0, total: scored.length };
  // Left/right are ambiguous in 2D (a character drawn from behind is animated on the performer's
  // image sides, see retarget.ts): score the better of the detection and its mirror labelling.
  const mirrored = rendered.map((_, i) => rendered[MIRROR[i] ?? i]);
  return [countHits(driving, d, scored, rendered, alpha), countHits(driving, d, scored, mirrored, alpha)].reduce((a, b) =>
    b.hits > a.hits ? b : a,
  );
}

const MIRROR: Record<number, number> = {
  1: 2,
  2: 1,
  3: 4,
  4: 3,
  5: 6,
  6: 5,
  7: 8,
  8: 7,
  9: 10,
  10: 9,
  11: 12,
  12: 11,
  13: 14,
  14: 13,
  15: 16,
  16: 15,
};

function countHits(
  driving: Keypoint[],
  d: ReturnType<typeof frame>,
  scored: number[],
  rendered: Keypoint[],
  alpha: number,
): { hits: number; total: number } {
  const r = frame(rendered);
  // Scale by torso + legs rather than torso alone: a character keeps its own proportions, and
  // the renderer sizes it by this same measure, so torso-only scaling would penalise every
  // long-bodied or short-legged figure at the ankles whatever the motion.
  const s = r.size > 1 ? d.size / r.size : 1;
  let hits = 0;
  for (const i of scored) {
    const rx = (rendered[i].x - r.cx) * s,
      ry = (rendered[i].y - r.cy) * s;
    const dx = driving[i].x - d.cx,
      dy = driving[i].y - d.cy;
    if (Math.hypot(rx - dx, ry - dy) <= alpha * d.torso) hits++;
  }
  return { hits, total: scored.length };
}

/**
 * PCK@α as the fidelity issue defines it: the reference is a fresh detection on the driving frame
 * (not the smoothed track), the rendered skeleton is aligned to it by the translation and uniform
 * scale that best fit (least squares) the keypoints both score, no mirror, and a keypoint counts
 * within α × the driving torso length (shoulder centre to hip centre). Returns per-keypoint hits so
 * callers can see which joints fail; `hit[i]` is null for keypoints not scored on this frame.
 */
export function pckFrameStrict(
  driving: Keypoint[],
  rendered: Keypoint[] | null,
  alpha = 0.2,
): { hits: number; total: number; hit: Array<boolean | null> } | null {
  const d = frame(driving);
  const scored = SCORED.filter((i) => driving[i].score >= MIN_DRIVING_SCORE);
  if (scored.length === 0 || d.torso < 1) return null;
  const hit: Array<boolean | null> = driving.map(() => null);
  if (!rendered) {
    for (const i of scored) hit[i] = false;
    return { hits: 0, total: scored.length, hit };
  }
  // Least-squares fit of s·r + t to d over the scored keypoints (closed form).
  let rx = 0,
    ry = 0,
    dx = 0,
    dy = 0;
  for (const i of scored) {
    rx += rendered[i].x;
    ry += rendered[i].y;
    dx += driving[i].x;
    dy += driving[i].y;
  }
  const n = scored.length;
  rx /= n;
  ry /= n;
  dx /= n;
  dy /= n;
  let num = 0,
    den = 0;
  for (const i of scored) {
    const ax = rendered[i].x - rx,
      ay = rendered[i].y - ry;
    num += ax * (driving[i].x - dx) + ay * (driving[i].y - dy);
    den += ax * ax + ay * ay;
  }
  const s = den > 1e-6 && num > 0 ? num / den : 1;
  let hits = 0;
  for (const i of scored) {
    const ex = (rendered[i].x - rx) * s + dx - driving[i].x,
      ey = (rendered[i].y - ry) * s + dy - driving[i].y;
    hit[i] = Math.hypot(ex, ey) <= alpha * d.torso;
    if (hit[i]) hits++;
  }
  return { hits, total: n, hit };
}

/** Accumulates PCK over frames (keypoint-weighted mean). */
export class PckAccumulator {
  hits = 0;
  total = 0;
  frames = 0;
  add(driving: Keypoint[], rendered: Keypoint[] | null, alpha = 0.2): void {
    const r = pckFrame(driving, rendered, alpha);
    if (!r) return;
    this.hits += r.hits;
    this.total += r.total;
    this.frames++;
  }
  get value(): number {
    return this.total ? this.hits / this.total : NaN;
  }
}

/** Accumulates the PCK (`pckFrameStrict`) over frames, with per-keypoint hit rates. */
export class StrictPckAccumulator {
  hits = 0;
  total = 0;
  frames = 0;
  readonly perJoint = Array.from({ length: 17 }, () => ({ hits: 0, total: 0 }));
  add(driving: Keypoint[], rendered: Keypoint[] | null, alpha = 0.2): ReturnType<typeof pckFrameStrict> {
    const r = pckFrameStrict(driving, rendered, alpha);
    if (!r) return r;
    this.hits += r.hits;
    this.total += r.total;
    this.frames++;
    r.hit.forEach((h, i) => {
      if (h !== null) {
        this.perJoint[i].total++;
        if (h) this.perJoint[i].hits++;
      }
    });
    return r;
  }
  get value(): number {
    return this.total ? this.hits / this.total : NaN;
  }
}
