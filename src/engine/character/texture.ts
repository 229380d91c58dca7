/**
 * texture.png: the crop rectangle of the oriented source at full resolution (capped at
 * MAX_TEXTURE_SIDE on its long side), with alpha from the working-size mask enlarged bilinearly after a
 * small blur, which gives a soft 1-2 px edge instead of the mask's staircase.
 */
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { EngineError } from '../types.js';
import { dilate, erode } from '../vision/mask-ops.js';
import type { PaperModel } from './drawing.js';

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
  /**
   * Drawings on paper: the paper model at working size. The figure's edge is then cut along the ink at
   * full resolution (the outline stroke kept whole, the paper outside it dropped) and the paper's shading
   * (light fall-off, a shadow) is divided out of the colours.
   */
  paper?: PaperModel;
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
  const { crop } = job;
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
  if (job.paper) {
    cutAlongInk(rgba, job);
  } else {
    alphaFromMask(rgba, job);
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

/** Alpha from the working-size mask: softened 3x3 and enlarged bilinearly (or the source's own alpha, gated). */
function alphaFromMask(rgba: Buffer, job: TextureJob): void {
  const { crop, maskWidth: mw, maskHeight: mh, maskScale: s } = job;
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
}

/** Ink from this strength (share darker than the paper in the darkest channel): as the drawing mask's MIN_INK. */
const INK = 28 / 255;

/**
 * Drawings: alpha from the ink at full resolution along the figure's edge, colours without the paper's
 * shading. Inside the working mask shrunk by one working pixel everything is figure; outside it grown by
 * two nothing is; in the ring between, a pixel is figure unless it is paper (not ink) connected to the
 * outside through paper, so the outline stroke stays whole and no rim of paper remains beyond it. Paper
 * pixels touching the stroke keep a partial alpha by how much ink they carry (anti-aliasing).
 */
function cutAlongInk(rgba: Buffer, job: TextureJob): void {
  const { crop, maskWidth: mw, maskHeight: mh, maskScale: s } = job;
  const model = job.paper!;
  const cw = crop.width,
    ch = crop.height;
  const inner = erode(job.mask, mw, mh, 1);
  const outer = dilate(job.mask, mw, mh, 2);
  // Reference paper colour: the brightest-lit paper under the figure (90th percentile per channel of the
  // paper model over the crop), so shading is lifted to it and the paper keeps its own tint.
  const ref = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    const vals: number[] = [];
    const x0 = Math.max(0, Math.floor(crop.x * s)),
      x1 = Math.min(mw - 1, Math.ceil((crop.x + cw) * s));
    const y0 = Math.max(0, Math.floor(crop.y * s)),
      y1 = Math.min(mh - 1, Math.ceil((crop.y + ch) * s));
    for (let y = y0; y <= y1; y += 2) for (let x = x0; x <= x1; x += 2) vals.push(model.paper[(y * mw + x) * 3 + c]);
    vals.sort((a, b) => a - b);
    ref[c] = vals.length ? vals[Math.floor(vals.length * 0.9)] : 255;
  }
  // 0 outside, 1 ring, 2 inside; strength per ring pixel.
  const cls = new Uint8Array(cw * ch);
  const strength = new Float32Array(cw * ch);
  const paper = [0, 0, 0];
  for (let ty = 0; ty < ch; ty++) {
    const my = Math.min(mh - 1, Math.max(0, (crop.y + ty + 0.5) * s - 0.5));
    const y0 = Math.floor(my),
      y1 = Math.min(mh - 1, y0 + 1),
      ay = my - y0;
    const ny = Math.min(mh - 1, Math.round(my));
    for (let tx = 0; tx < cw; tx++) {
      const mx = Math.min(mw - 1, Math.max(0, (crop.x + tx + 0.5) * s - 0.5));
      const x0 = Math.floor(mx),
        x1 = Math.min(mw - 1, x0 + 1),
        ax = mx - x0;
      const q = ny * mw + Math.min(mw - 1, Math.round(mx));
      const t = ty * cw + tx;
      const o = t * 4;
      for (let c = 0; c < 3; c++) {
        const pp = model.paper;
        paper[c] =
          (pp[(y0 * mw + x0) * 3 + c] * (1 - ax) + pp[(y0 * mw + x1) * 3 + c] * ax) * (1 - ay) +
          (pp[(y1 * mw + x0) * 3 + c] * (1 - ax) + pp[(y1 * mw + x1) * 3 + c] * ax) * ay;
      }
      let st = 0;
      for (let c = 0; c < 3; c++) st = Math.max(st, 1 - rgba[o + c] / Math.max(1, paper[c]));
      strength[t] = st;
      cls[t] = model.offSheet?.[q] ? 0 : inner[q] ? 2 : outer[q] ? 1 : 0;
      for (let c = 0; c < 3; c++) rgba[o + c] = Math.min(255, Math.round((rgba[o + c] * ref[c]) / Math.max(1, paper[c])));
    }
  }
  // Paper in the ring reachable from the outside through paper (4-connected).
  const out = new Uint8Array(cw * ch);
  const stack = new Int32Array(cw * ch);
  let top = 0;
  const push = (t: number): void => {
    if (!out[t] && cls[t] === 1 && strength[t] < INK) {
      out[t] = 1;
      stack[top++] = t;
    }
  };
  for (let t = 0; t < cw * ch; t++) {
    if (cls[t] !== 0) continue;
    out[t] = 1;
    const x = t % cw;
    if (x > 0) push(t - 1);
    if (x < cw - 1) push(t + 1);
    if (t >= cw) push(t - cw);
    if (t < (ch - 1) * cw) push(t + cw);
  }
  while (top > 0) {
    const t = stack[--top];
    const x = t % cw;
    if (x > 0) push(t - 1);
    if (x < cw - 1) push(t + 1);
    if (t >= cw) push(t - cw);
    if (t < (ch - 1) * cw) push(t + cw);
  }
  for (let t = 0; t < cw * ch; t++) {
    const a = !out[t] ? 255 : cls[t] === 1 ? Math.round(255 * Math.min(1, Math.max(0, strength[t] / INK))) : 0;
    rgba[t * 4 + 3] = a;
  }
}
