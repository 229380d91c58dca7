/**
 * Single-person 2D body pose (COCO-17) with MoveNet through @vladmandic/human.
 *
 * MoveNet Lightning takes a 192x192 input, so feeding it more pixels than that buys nothing but tensor
 * conversion time; frames are resampled to at most `inputSize` on the long side before inference and the
 * keypoints mapped back to source pixels.
 */
import { BODY_JOINTS, type Keypoint } from '../types.js';
import { getHuman, rgbaToTensor, type Config } from './human-loader.js';
import { downsampleRgba } from './image-ops.js';

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
  /** Long-side size frames are box-resampled to before inference, in pixels. */
  inputSize?: number;
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
  const inputSize = opts.inputSize ?? 256;
  const minScore = opts.minScore ?? 0.2;
  const config = {
    body: {
      enabled: true,
      modelPath: `movenet-${model}.json`,
      maxDetected: 1,
      minConfidence: 0.1,
      skipFrames: 0,
      skipTime: 0,
    },
  } as unknown as Partial<Config>;

  return {
    async detect(rgba, width, height) {
      if (rgba.length !== width * height * 4) throw new RangeError('rgba length does not match width*height*4');
      const human = await getHuman();
      const scale = Math.min(1, inputSize / Math.max(width, height));
      const w = Math.max(1, Math.round(width * scale));
      const h = Math.max(1, Math.round(height * scale));
      const pixels = scale < 1 ? downsampleRgba(rgba, width, height, w, h) : rgba;
      const tensor = rgbaToTensor(human, pixels, w, h);
      try {
        const result = await human.detect(tensor, config);
        if (result.error) throw new Error(`pose detection failed: ${String(result.error)}`);
        const person = result.body[0];
        if (!person || person.score < minScore) return null;
        // Keypoints come in the tensor's pixel space; positionRaw (0..1) maps back without rounding loss.
        const byName = new Map(person.keypoints.map((k) => [k.part as string, k]));
        const body: Keypoint[] = BODY_JOINTS.map((name) => {
          const k = byName.get(name);
          if (!k) return { x: 0, y: 0, score: 0 };
          return { x: k.positionRaw[0] * width, y: k.positionRaw[1] * height, score: k.score };
        });
        return { body, score: person.score };
      } finally {
        human.tf.dispose(tensor);
      }
    },
  };
}
