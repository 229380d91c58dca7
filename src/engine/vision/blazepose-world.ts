/**
 * BlazePose GHUM (the detector-free landmark model, "full") run directly on its graph model for its
 * world landmarks: 3D joint positions in metres around the hip centre.
 *
 * Why not through human.detect: @vladmandic/human 3.x reads the `world_3d` output with a stride of 5
 * (the stride of `ld_3d`), so its world landmarks are scrambled. Here the output is read by its own
 * layout. The model's outputs (found by loading it and printing `model.outputs`):
 * - `Identity_4` world_3d [1, 117]: 39 points × (x, y, z), metres, origin at the hip centre, x right,
 *   y down, z away from the camera, in the crop's (rotated) axes. The first 33 are BlazePose's
 *   landmarks; 33..38 are auxiliary (ROI) points.
 * - `Identity_2` ld_3d [1, 195]: 39 × (x, y, z, visibility, presence), x and y in crop pixels (256).
 * - `Identity_3` output_poseflag [1, 1]: person presence (a probability).
 * The segmentation and heatmap heads are not asked for, so the executor skips them.
 *
 * Input: a 256×256 RGB float crop in [0, 1], the person upright in it (the crop is rotated so the
 * hip-centre → shoulder-centre line points up, as MediaPipe's own tracking crops are).
 */
import { getHuman, graphModelLoader } from './human-loader.js';

type Tensor = ReturnType<Awaited<ReturnType<typeof getHuman>>['tf']['tensor']>;

export const BLAZEPOSE_SIZE = 256;
/** BlazePose landmark indices of COCO-17's joints, in COCO order. */
export const BLAZEPOSE_OF_COCO = [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28] as const;

const loadModel = graphModelLoader('blazepose-full.json');

/** Loads the model ahead of the first frame. */
export async function warmUpBlazePose(): Promise<void> {
  await loadModel();
}

/** A square, rotated window of the frame: centre and side in frame pixels, angle in radians. */
export interface RotatedRegion {
  cx: number;
  cy: number;
  size: number;
  /** The crop's up direction is the frame's (sin a, -cos a) (image axes, y down). */
  angle: number;
}

export interface WorldPose {
  /** 33 points, metres, around the hip centre: x right, y up, z towards the camera, frame axes. */
  world: Array<[number, number, number]>;
  /** 33 points in frame pixels with BlazePose's visibility (a probability). */
  image: Array<{ x: number; y: number; score: number }>;
  /** Person presence. */
  score: number;
}

/** Bilinear sample of the rotated region of an RGBA frame into n×n RGB floats in [0, 1] (black outside). */
export function sampleRotated(rgba: Uint8Array, width: number, height: number, r: RotatedRegion, n: number): Float32Array {
  const out = new Float32Array(n * n * 3);
  const c = Math.cos(r.angle),
    s = Math.sin(r.angle);
  const step = r.size / n;
  for (let v = 0; v < n; v++) {
    const oy = (v + 0.5) * step - r.size / 2;
    for (let u = 0; u < n; u++) {
      const ox = (u + 0.5) * step - r.size / 2;
      const fx = r.cx + c * ox - s * oy - 0.5;
      const fy = r.cy + s * ox + c * oy - 0.5;
      if (fx < -0.5 || fy < -0.5 || fx > width - 0.5 || fy > height - 0.5) continue;
      const x0 = Math.max(0, Math.min(width - 1, Math.floor(fx)));
      const y0 = Math.max(0, Math.min(height - 1, Math.floor(fy)));
      const x1 = Math.min(width - 1, x0 + 1),
        y1 = Math.min(height - 1, y0 + 1);
      const ax = Math.max(0, Math.min(1, fx - x0)),
        ay = Math.max(0, Math.min(1, fy - y0));
      const i00 = (y0 * width + x0) * 4,
        i01 = (y0 * width + x1) * 4,
        i10 = (y1 * width + x0) * 4,
        i11 = (y1 * width + x1) * 4;
      const o = (v * n + u) * 3;
      for (let k = 0; k < 3; k++) {
        const top = rgba[i00 + k] * (1 - ax) + rgba[i01 + k] * ax;
        const bot = rgba[i10 + k] * (1 - ax) + rgba[i11 + k] * ax;
        out[o + k] = (top * (1 - ay) + bot * ay) / 255;
      }
    }
  }
  return out;
}

/** BlazePose on one rotated region of an RGBA frame. */
export async function runBlazePoseWorld(rgba: Uint8Array, width: number, height: number, region: RotatedRegion): Promise<WorldPose> {
  const m = await loadModel();
  const human = await getHuman();
  const n = BLAZEPOSE_SIZE;
  const input = human.tf.tensor(sampleRotated(rgba, width, height, region, n), [1, n, n, 3], 'float32');
  let world: Float32Array, ld: Float32Array, flag: Float32Array;
  try {
    const outs = m.execute(input, ['Identity_4', 'Identity_2', 'Identity_3']) as Tensor[];
    [world, ld, flag] = (await Promise.all(outs.map((t) => t.data()))) as Float32Array[];
    outs.forEach((t) => t.dispose());
  } finally {
    input.dispose();
  }
  const c = Math.cos(region.angle),
    s = Math.sin(region.angle);
  const sig = (x: number) => 1 / (1 + Math.exp(-x));
  const out: WorldPose = { world: [], image: [], score: flag[0] };
  for (let j = 0; j < 33; j++) {
    // Crop axes → frame axes (the crop's rotation), then y up and z towards the camera.
    const x = world[j * 3],
      y = world[j * 3 + 1],
      z = world[j * 3 + 2];
    out.world.push([c * x - s * y, -(s * x + c * y), -z]);
    const u = ld[j * 5] / n - 0.5,
      v = ld[j * 5 + 1] / n - 0.5;
    out.image.push({
      x: region.cx + (c * u - s * v) * region.size,
      y: region.cy + (s * u + c * v) * region.size,
      score: sig(ld[j * 5 + 3]),
    });
  }
  return out;
}
