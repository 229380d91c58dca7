/**
 * Still pictures through human in one pass: BlazePose (full) for the body, reduced to COCO-17 so the
 * rest of the engine sees one format, plus the face mesh (BlazeFace + 468-point mesh) and hand
 * landmarks (HandTrack + 21-point landmarks). Nothing here decides whether a face or hand belongs to
 * the figure; the character analysis does that against the body.
 *
 * Why for stills and not for video: on the sample characters it places knees and ankles under skirts
 * and in sheer stockings where MoveNet Thunder puts them at mid-shin, and it tells a figure seen from
 * behind by its labelling; at ~100 ms per picture it is too slow for 25 frames/s of driving video,
 * where MoveNet Lightning stays. human keeps one body model per process, so this module is the only
 * caller of `human.detect` with a body model (MoveNet runs on its graph models directly).
 */
import type { Keypoint, Landmarks } from '../types.js';
import { getHuman, rgbaToTensor, type Config } from './human-loader.js';
import type { PoseResult } from './pose-detector.js';

/** BlazePose landmark names (as human reports them) for each COCO-17 joint, in BODY_JOINTS order. */
const COCO_FROM_BLAZE = [
  'nose',
  'leftEye',
  'rightEye',
  'leftEar',
  'rightEar',
  'leftShoulder',
  'rightShoulder',
  'leftElbow',
  'rightElbow',
  'leftWrist',
  'rightWrist',
  'leftHip',
  'rightHip',
  'leftKnee',
  'rightKnee',
  'leftAnkle',
  'rightAnkle',
] as const;

const CONFIG = {
  body: {
    enabled: true,
    modelPath: 'blazepose-full.json',
    detector: { modelPath: 'blazepose-detector.json' },
    maxDetected: 1,
    minConfidence: 0.1,
  },
  face: {
    enabled: true,
    detector: { modelPath: 'blazeface.json', rotation: false, maxDetected: 1, minConfidence: 0.3 },
    mesh: { enabled: true, modelPath: 'facemesh.json' },
    iris: { enabled: false },
    emotion: { enabled: false },
    description: { enabled: false },
    antispoof: { enabled: false },
    liveness: { enabled: false },
    attention: { enabled: false },
  },
  hand: {
    enabled: true,
    rotation: true,
    maxDetected: 2,
    minConfidence: 0.3,
    detector: { modelPath: 'handtrack.json' },
    skeleton: { modelPath: 'handlandmark-full.json' },
  },
} as unknown as Partial<Config>;

export interface StillLandmarks {
  body: PoseResult | null;
  face: Landmarks | null;
  hands: Landmarks[];
}

let queue: Promise<unknown> = Promise.resolve();

/** Body (COCO-17), face and hands in the picture's pixels; each may be missing. */
export function detectStillLandmarks(rgba: Buffer, width: number, height: number): Promise<StillLandmarks> {
  // human's detect pipeline keeps per-call state on the instance: calls are run one after another.
  const run = queue.then(() => detectOnce(rgba, width, height));
  queue = run.catch(() => undefined);
  return run;
}

async function detectOnce(rgba: Buffer, width: number, height: number): Promise<StillLandmarks> {
  if (rgba.length !== width * height * 4) throw new RangeError('rgba length does not match width*height*4');
  const human = await getHuman();
  const input = rgbaToTensor(human, rgba, width, height);
  let result: Awaited<ReturnType<typeof human.detect>>;
  try {
    result = await human.detect(input, CONFIG);
  } finally {
    human.tf.dispose(input);
  }
  const points = (list: ArrayLike<number | undefined>[]) => Array.from(list, (p) => ({ x: p[0] ?? 0, y: p[1] ?? 0 }));
  const f = result.face[0];
  const face = f && f.mesh.length >= 468 ? { score: f.score, points: points(f.mesh) } : null;
  const hands = result.hand.filter((h) => h.keypoints.length === 21).map((h) => ({ score: h.score, points: points(h.keypoints) }));
  const found = result.body[0];
  if (!found) return { body: null, face, hands };
  const byName = new Map(found.keypoints.map((k) => [k.part as string, k]));
  const body: Keypoint[] = COCO_FROM_BLAZE.map((name) => {
    const k = byName.get(name);
    return k ? { x: k.position[0], y: k.position[1], score: k.score } : { x: 0, y: 0, score: 0 };
  });
  return { body: { body, score: found.score }, face, hands };
}
