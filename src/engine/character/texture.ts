/**
 * texture.png: the crop rectangle of the oriented source at full resolution (capped at
 * MAX_TEXTURE_SIDE on its long side), with alpha from the working-size mask enlarged bilinearly after a
 * small blur, which gives a soft 1-2 px edge instead of the mask's staircase.
 */
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { EngineError } from '../types.js';
import { dilate } from '../vision/mask-ops.js';

/** Long-side cap of texture.png; above it the crop is downscaled (scale = texture width / crop.width). */
export const MAX_TEXTURE_SIDE = 2048;
const THUMBNAIL_SIDE = 256;

export interface TextureJob {
  imageFile: string;
  crop: { x: number; y: number; width: number; height: number };
  /** 0/1 mask at working size; working px = source px * maskScale. */
  mask: Uint8Array;
  maskWidth: number;
  maskHeight: number;
  maskScale: number;
  /** Alpha images keep their own alpha (limited to the cleaned mask's neighbourhood). */
  keepSourceAlpha: boolean;
  textureFile: string;
  thumbnailFile: string | null;
}

/** 3x3 box blur of a 0/1 mask into 0..255. */
function soften(mask: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0,
        n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          s += mask[yy * w + xx];
          n++;
        }
      }
      out[y * w + x] = Math.round((255 * s) / n);
    }
  }
  return out;
}

export async function writeTexture(job: TextureJob): Promise<void> {
  const { crop, maskWidth: mw, maskHeight: mh, maskScale: s } = job;
  let rgba: Buffer;
  try {
    rgba = await sharp(job.imageFile)
      .rotate()
      .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
      .ensureAlpha()
      .raw()
      .toBuffer();
  } catch (err) {
    throw new EngineError('UNSUPPORTED_MEDIA', `Image cannot be decoded: ${(err as Error).message}`, { imageFile: job.imageFile });
  }
  const soft = job.keepSourceAlpha ? dilate(job.mask, mw, mh, 2) : soften(job.mask, mw, mh);
  for (let ty = 0; ty < crop.height; ty++) {
    const my = Math.min(mh - 1, Math.max(0, (crop.y + ty + 0.5) * s - 0.5));
    const y0 = Math.floor(my);
    const y1 = Math.min(mh - 1, y0 + 1);
    const ay = my - y0;
    for (let tx = 0; tx < crop.width; tx++) {
      const mx = Math.min(mw - 1, Math.max(0, (crop.x + tx + 0.5) * s - 0.5));
      const x0 = Math.floor(mx);
      const x1 = Math.min(mw - 1, x0 + 1);
      const ax = mx - x0;
      const o = (ty * crop.width + tx) * 4 + 3;
      if (job.keepSourceAlpha) {
        // Nearest lookup: the dilated mask only gates stray specks; the edge quality is the source's.
        if (!soft[Math.round(my) * mw + Math.round(mx)]) rgba[o] = 0;
        continue;
      }
      const top = soft[y0 * mw + x0] * (1 - ax) + soft[y0 * mw + x1] * ax;
      const bot = soft[y1 * mw + x0] * (1 - ax) + soft[y1 * mw + x1] * ax;
      rgba[o] = Math.round(top * (1 - ay) + bot * ay);
    }
  }
  let img = sharp(rgba, { raw: { width: crop.width, height: crop.height, channels: 4 } });
  if (Math.max(crop.width, crop.height) > MAX_TEXTURE_SIDE) {
    img = img.resize({ width: MAX_TEXTURE_SIDE, height: MAX_TEXTURE_SIDE, fit: 'inside' });
  }
  const png = await img.png({ compressionLevel: 4 }).toBuffer();
  await writeFile(job.textureFile, png);
  if (job.thumbnailFile) {
    await sharp(png).resize({ width: THUMBNAIL_SIDE, height: THUMBNAIL_SIDE, fit: 'inside' }).png().toFile(job.thumbnailFile);
  }
}
