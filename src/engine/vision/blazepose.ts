/**
 * BlazePose (full) through human, for still pictures only: 33 landmarks from its own person detector
 * and a 256 px landmark model, reduced here to COCO-17 so the rest of the engine sees one format.
 *
 * Why for stills and not for video: on the sample characters it places knees and ankles under skirts
 * and in sheer stockings where MoveNet Thunder puts them at mid-shin, and it tells a figure seen from
 * behind by its labelling; at ~100 ms per picture it is too slow for 25 frames/s of driving video,
 * where MoveNet Lightning stays. human keeps one body model per process, so this module is the only
 * caller of `human.detect` with a body model (MoveNet runs on its graph models directly).
 */
import type { Keypoint } from '../types.js';
import { getHuman, rgbaToTensor, type Config } from './human-loader.js';
import type { PoseResult } from './pose-detector.js';

/** BlazePose landmark names (as human reports them) for each COCO-17 joint, in BODY_JOINTS order. */
const COCO_FROM_BLAZE = [
  'nose', 'leftEye', 'rightEye', 'leftEar', 'rightEar',
  'leftShoulder', 'rightShoulder', 'leftElbow', 'rightElbow', 'leftWrist', 'rightWrist',
  'leftHip', 'rightHip', 'leftKnee', 'rightKnee', 'leftAnkle', 'rightAnkle',
] as const;

const CONFIG = {
  body: {
    enabled: true,
    modelPath: 'blazepose-full.json',
    detector: { modelPath: 'blazepose-detector.json' },
    maxDetected: 1,
    minConfidence: 0.1,
  },
} as unknown as Partial<Config>;

let queue: Promise<unknown> = Promise.resolve();

/** One person's COCO-17 keypoints in the picture's pixels, or null when BlazePose finds nobody. */
export function detectBlazePose(rgba: Buffer, width: number, height: number): Promise<PoseResult | null> {
  // human's detect pipeline keeps per-call state on the instance: calls are run one after another.
  const run = queue.then(() => detectOnce(rgba, width, height));
  queue = run.catch(() => undefined);
  return run;
}

async function detectOnce(rgba: Buffer, width: number, height: number): Promise<PoseResult | null> {
  if (rgba.length !== width * height * 4) throw new RangeError('rgba length does not match width*height*4');
  const human = await getHuman();
  const input = rgbaToTensor(human, rgba, width, height);
  let result: Awaited<ReturnType<typeof human.detect>>;
  try {
    result = await human.detect(input, CONFIG);
  } finally {
    human.tf.dispose(input);
  }
  const found = result.body[0];
  if (!found) return null;
  const byName = new Map(found.keypoints.map((k) => [k.part as string, k]));
  const body: Keypoint[] = COCO_FROM_BLAZE.map((name) => {
    const k = byName.get(name);
    return k ? { x: k.position[0], y: k.position[1], score: k.score } : { x: 0, y: 0, score: 0 };
  });
  return { body, score: found.score };
}
