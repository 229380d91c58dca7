/**
 * MoveNet single-pose run directly on its graph model rather than through human.detect: human caches
 * one body model per process (asking for Thunder after Lightning silently runs Lightning), and its
 * per-call pipeline costs more than the letterboxing done here in one pass over the frame.
 *
 * MoveNet takes a square int32 RGB image (192 px Lightning, 256 px Thunder) and returns [1,1,17,3]:
 * (y, x, score) per COCO-17 joint, normalised to that square.
 */
import type { Keypoint } from '../types.js';
import { getHuman, modelUrl } from './human-loader.js';

export type MoveNetVariant = 'lightning' | 'thunder';

type GraphModel = Awaited<ReturnType<Awaited<ReturnType<typeof getHuman>>['tf']['loadGraphModel']>>;

const INPUT_SIZE: Record<MoveNetVariant, number> = { lightning: 192, thunder: 256 };
const models = new Map<MoveNetVariant, Promise<GraphModel>>();

function loadModel(variant: MoveNetVariant): Promise<GraphModel> {
  let m = models.get(variant);
  if (!m) {
    m = getHuman().then((human) => human.tf.loadGraphModel(modelUrl(`movenet-${variant}.json`), { fetchFunc: globalThis.fetch }));
    m.catch(() => models.delete(variant));
    models.set(variant, m);
  }
  return m;
}

/**
 * Letterboxes an RGBA frame into a size x size int32 RGB array (bilinear, black padding), returning
 * the mapping back to frame pixels: frame = (square - offset) / scale.
 */
function letterbox(rgba: Buffer, width: number, height: number, size: number) {
  const scale = size / Math.max(width, height);
  const offX = (size - width * scale) / 2;
  const offY = (size - height * scale) / 2;
  const out = new Int32Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    const fy = (y + 0.5 - offY) / scale - 0.5;
    if (fy < -0.5 || fy > height - 0.5) continue;
    const y0 = Math.max(0, Math.min(height - 1, Math.floor(fy)));
    const y1 = Math.min(height - 1, y0 + 1);
    const ay = Math.max(0, Math.min(1, fy - y0));
    for (let x = 0; x < size; x++) {
      const fx = (x + 0.5 - offX) / scale - 0.5;
      if (fx < -0.5 || fx > width - 0.5) continue;
      const x0 = Math.max(0, Math.min(width - 1, Math.floor(fx)));
      const x1 = Math.min(width - 1, x0 + 1);
      const ax = Math.max(0, Math.min(1, fx - x0));
      const i00 = (y0 * width + x0) * 4, i01 = (y0 * width + x1) * 4;
      const i10 = (y1 * width + x0) * 4, i11 = (y1 * width + x1) * 4;
      const o = (y * size + x) * 3;
      for (let c = 0; c < 3; c++) {
        const top = rgba[i00 + c] * (1 - ax) + rgba[i01 + c] * ax;
        const bot = rgba[i10 + c] * (1 - ax) + rgba[i11 + c] * ax;
        out[o + c] = Math.round(top * (1 - ay) + bot * ay);
      }
    }
  }
  return { data: out, scale, offX, offY };
}

/** 17 keypoints in frame pixels and the mean joint score (MoveNet's usual person score). */
export async function runMoveNet(
  variant: MoveNetVariant,
  rgba: Buffer,
  width: number,
  height: number,
): Promise<{ body: Keypoint[]; score: number }> {
  const model = await loadModel(variant);
  const human = await getHuman();
  const size = INPUT_SIZE[variant];
  const { data, scale, offX, offY } = letterbox(rgba, width, height, size);
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
    const y = raw[j * 3] * size;
    const x = raw[j * 3 + 1] * size;
    const score = raw[j * 3 + 2];
    sum += score;
    body.push({ x: (x - offX) / scale, y: (y - offY) / scale, score });
  }
  return { body, score: sum / 17 };
}
