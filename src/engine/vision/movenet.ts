/**
 * MoveNet single-pose run directly on its graph model rather than through human.detect: human caches
 * one body model per process (asking for Thunder after Lightning silently runs Lightning), and its
 * per-call pipeline costs more than the letterboxing done here in one pass over the frame.
 *
 * MoveNet takes a square int32 RGB image (192 px Lightning, 256 px Thunder) and returns [1,1,17,3]:
 * (y, x, score) per COCO-17 joint, normalised to that square.
 */
import type { Keypoint } from '../types.js';
import { getHuman, graphModelLoader, type GraphModel } from './human-loader.js';

export type MoveNetVariant = 'lightning' | 'thunder';

const INPUT_SIZE: Record<MoveNetVariant, number> = { lightning: 192, thunder: 256 };
const loaders: Record<MoveNetVariant, () => Promise<GraphModel>> = {
  lightning: graphModelLoader('movenet-lightning.json'),
  thunder: graphModelLoader('movenet-thunder.json'),
};
const loadModel = (variant: MoveNetVariant): Promise<GraphModel> => loaders[variant]();

/** A square window of the frame, in frame pixels; it may extend past the edges (padded black). */
export interface CropRegion {
  x: number;
  y: number;
  size: number;
}

/** The whole frame letterboxed: a square centred on it whose side is the long side. */
export function fullFrameRegion(width: number, height: number): CropRegion {
  const size = Math.max(width, height);
  return { x: (width - size) / 2, y: (height - size) / 2, size };
}

/**
 * Samples `region` of an RGBA frame into an n x n int32 RGB array (bilinear, black outside). The
 * column positions and weights are the same for every row, so they are worked out once per call
 * (this runs on every frame, beside a model call of ~50 ms, and took ~8 ms when done per pixel).
 */
function sampleRegion(rgba: Buffer, width: number, height: number, region: CropRegion, n: number): Int32Array {
  const step = region.size / n;
  const out = new Int32Array(n * n * 3);
  const col0 = new Int32Array(n);
  const col1 = new Int32Array(n);
  const colW = new Float64Array(n);
  const colIn = new Uint8Array(n);
  for (let x = 0; x < n; x++) {
    const fx = region.x + (x + 0.5) * step - 0.5;
    colIn[x] = fx < -0.5 || fx > width - 0.5 ? 0 : 1;
    const x0 = Math.max(0, Math.min(width - 1, Math.floor(fx)));
    col0[x] = x0 * 4;
    col1[x] = Math.min(width - 1, x0 + 1) * 4;
    colW[x] = Math.max(0, Math.min(1, fx - x0));
  }
  for (let y = 0; y < n; y++) {
    const fy = region.y + (y + 0.5) * step - 0.5;
    if (fy < -0.5 || fy > height - 0.5) continue;
    const y0 = Math.max(0, Math.min(height - 1, Math.floor(fy)));
    const y1 = Math.min(height - 1, y0 + 1);
    const ay = Math.max(0, Math.min(1, fy - y0));
    const row0 = y0 * width * 4;
    const row1 = y1 * width * 4;
    let o = y * n * 3;
    for (let x = 0; x < n; x++, o += 3) {
      if (colIn[x] === 0) continue;
      const ax = colW[x];
      const i00 = row0 + col0[x],
        i01 = row0 + col1[x];
      const i10 = row1 + col0[x],
        i11 = row1 + col1[x];
      for (let c = 0; c < 3; c++) {
        const top = rgba[i00 + c] * (1 - ax) + rgba[i01 + c] * ax;
        const bot = rgba[i10 + c] * (1 - ax) + rgba[i11 + c] * ax;
        out[o + c] = Math.round(top * (1 - ay) + bot * ay);
      }
    }
  }
  return out;
}

/**
 * 17 keypoints in frame pixels and the mean joint score (MoveNet's usual person score), from the
 * given square `region` of the frame (default: the whole frame letterboxed).
 */
export async function runMoveNet(
  variant: MoveNetVariant,
  rgba: Buffer,
  width: number,
  height: number,
  region: CropRegion = fullFrameRegion(width, height),
): Promise<{ body: Keypoint[]; score: number }> {
  const model = await loadModel(variant);
  const human = await getHuman();
  const size = INPUT_SIZE[variant];
  const data = sampleRegion(rgba, width, height, region, size);
  const input = human.tf.tensor(data, [1, size, size, 3], 'int32');
  let raw: Float32Array;
  try {
    const out = model.execute(input) as ReturnType<typeof human.tf.tensor>;
    raw = (await out.data()) as Float32Array;
    out.dispose();
  } finally {
    input.dispose();
  }
  const body: Keypoint[] = [];
  let sum = 0;
  for (let j = 0; j < 17; j++) {
    const score = raw[j * 3 + 2];
    sum += score;
    body.push({ x: region.x + raw[j * 3 + 1] * region.size, y: region.y + raw[j * 3] * region.size, score });
  }
  return { body, score: sum / 17 };
}
