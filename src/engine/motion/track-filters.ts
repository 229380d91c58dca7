/**
 * Post-processing of a raw per-frame pose track: gap filling for frames without a detection, and
 * temporal smoothing. Pure functions on PoseFrame arrays.
 */
import type { Keypoint, PoseFrame } from '../types.js';
import { DEFAULT_ONE_EURO, OneEuroFilter, type OneEuroParams } from './one-euro.js';

/** Joints below this score inside a detected frame are treated as missing and filled from neighbours. */
export const JOINT_MIN_SCORE = 0.1;

/**
 * Fills missing frames (detected=false) by linear interpolation between the nearest detected frames and
 * holds the first/last detection at the ends. Filled keypoints carry score 0, as the contract says.
 * Per joint, low-score points inside detected frames are filled the same way but keep their score.
 * Returns null when no frame has a detection.
 */
export function fillGaps(frames: PoseFrame[]): PoseFrame[] | null {
  const n = frames.length;
  if (!frames.some((f) => f.detected)) return null;
  const jointCount = frames.find((f) => f.detected)!.body.length;
  const out: PoseFrame[] = frames.map((f) => ({ ...f, body: f.body.map((k) => ({ ...k })) }));
  for (let j = 0; j < jointCount; j++) {
    const valid = (i: number) => out[i].detected && frames[i].body[j].score >= JOINT_MIN_SCORE;
    // Fall back to any detected frame when this joint is never confidently seen.
    const everValid = frames.some((_, k) => valid(k));
    const anchor = (i: number) => (everValid ? valid(i) : out[i].detected);
    let prev = -1;
    for (let i = 0; i <= n; i++) {
      if (i < n && !anchor(i)) continue;
      const a = prev >= 0 ? frames[prev].body[j] : null;
      const b = i < n ? frames[i].body[j] : null;
      for (let k = prev + 1; k < i; k++) {
        const t = a && b ? (k - prev) / (i - prev) : 0;
        const src: Keypoint = a && b ? { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, score: 0 } : { ...(a ?? b)! };
        const target = out[k].body[j];
        target.x = src.x;
        target.y = src.y;
        if (!out[k].detected) target.score = 0;
      }
      prev = i;
    }
  }
  return out;
}

/**
 * Zero-phase One-Euro smoothing of every keypoint coordinate: the track is filtered forwards and
 * backwards and the two passes averaged, which cancels the filter's lag (extraction is offline, the
 * whole track is known). `scale` (pixels) normalises coordinates so beta is resolution independent.
 * On the dance clips this cuts frame-to-frame acceleration (jitter) 2.8-3.4x while staying within
 * 0.8-1.7 px of a centred 5-frame mean at 346x512 (the forward pass alone lags 2-4.5 px). Scores are
 * left as they are.
 */
export function smoothTrack(frames: PoseFrame[], fps: number, scale: number, params: OneEuroParams = DEFAULT_ONE_EURO): PoseFrame[] {
  if (frames.length === 0) return frames;
  const forward = oneEuroPass(frames, fps, scale, params, false);
  const backward = oneEuroPass(frames, fps, scale, params, true);
  return frames.map((f, i) => ({
    ...f,
    body: f.body.map((k, j) => ({
      x: (forward[i][j * 2] + backward[i][j * 2]) / 2,
      y: (forward[i][j * 2 + 1] + backward[i][j * 2 + 1]) / 2,
      score: k.score,
    })),
  }));
}

/** One directional pass; returns [x0, y0, x1, y1, ...] per frame in the input's order. */
function oneEuroPass(frames: PoseFrame[], fps: number, scale: number, params: OneEuroParams, reverse: boolean): Float64Array[] {
  const jointCount = frames[0].body.length;
  const filters = Array.from({ length: jointCount * 2 }, () => new OneEuroFilter(params));
  const out: Float64Array[] = new Array(frames.length);
  for (let n = 0; n < frames.length; n++) {
    const i = reverse ? frames.length - 1 - n : n;
    const t = n / fps;
    const v = new Float64Array(jointCount * 2);
    frames[i].body.forEach((k, j) => {
      v[j * 2] = filters[j * 2].filter(k.x / scale, t) * scale;
      v[j * 2 + 1] = filters[j * 2 + 1].filter(k.y / scale, t) * scale;
    });
    out[i] = v;
  }
  return out;
}
