/**
 * Clean background plate of a driving video: a per-pixel temporal median over a bounded sample of
 * frames, counting a pixel only in frames where the performer's (dilated) body region does not cover
 * it; pixels the performer covers in every sample are filled by push-pull diffusion from their
 * surroundings.
 *
 * Memory budget: at most `maxSamples` RGB frames at `plateLongSide` — about 60 x 480x325x3 = 28 MB,
 * whatever the video length.
 */
import type { Keypoint } from '../types.js';
import { drawBodyRegion } from '../vision/body-region.js';
import { downsampleRgba } from '../vision/image-ops.js';
import { dilate } from '../vision/mask-ops.js';

export interface PlateOptions {
  maxSamples?: number;
  plateLongSide?: number;
  /**
   * Person segmentation (probability 0..255 per pixel). When given, each sample's exclusion region is
   * the union of the keypoint region and the dilated segmentation, which also catches hair, loose
   * clothes and skirts that keypoint capsules miss.
   */
  segment?: (rgba: Buffer, width: number, height: number) => Promise<Uint8Array | null>;
}

interface Sample {
  index: number;
  rgb: Uint8Array;
  person: Promise<Uint8Array | null> | null;
}

/** Fraction of the samples in which a pixel must be uncovered for its median to be trusted. */
const MIN_SEEN_FRACTION = 0.15;

/** Segmentation probability (0..255) from which a plate pixel counts as the performer's. */
const SEG_THRESHOLD = 64;

export class PlateBuilder {
  readonly width: number;
  readonly height: number;
  private readonly stride: number;
  private readonly maxSamples: number;
  private readonly samples: Sample[] = [];
  private readonly segment: PlateOptions['segment'];

  /**
   * @param srcWidth,srcHeight size of the frames given to `offer`
   * @param expectedFrames estimate of the frame count, used to spread samples over the whole clip
   */
  constructor(
    private readonly srcWidth: number,
    private readonly srcHeight: number,
    expectedFrames: number,
    opts: PlateOptions = {},
  ) {
    this.segment = opts.segment;
    // Segmentation costs ~40-70 ms of CPU a sample, so fewer (but cleaner) samples are taken with it:
    // one per 6 frames, 16..32, which keeps it near 10% of the pose cost.
    const segmented = Math.min(32, Math.max(16, Math.round(expectedFrames / 6)));
    this.maxSamples = opts.maxSamples ?? (opts.segment ? segmented : 60);
    const long = opts.plateLongSide ?? 480;
    const s = Math.min(1, long / Math.max(srcWidth, srcHeight));
    this.width = Math.max(1, Math.round(srcWidth * s));
    this.height = Math.max(1, Math.round(srcHeight * s));
    this.stride = Math.max(1, Math.ceil(expectedFrames / this.maxSamples));
  }

  wants(index: number): boolean {
    return index % this.stride === 0 && this.samples.length < this.maxSamples;
  }

  /** Keeps a reduced copy of frame `index` when it is on the sampling schedule. */
  offer(index: number, rgba: Buffer): void {
    if (!this.wants(index)) return;
    const small =
      this.width === this.srcWidth && this.height === this.srcHeight
        ? rgba
        : downsampleRgba(rgba, this.srcWidth, this.srcHeight, this.width, this.height);
    const rgb = new Uint8Array(this.width * this.height * 3);
    for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
      rgb[j] = small[i];
      rgb[j + 1] = small[i + 1];
      rgb[j + 2] = small[i + 2];
    }
    let person: Promise<Uint8Array | null> | null = null;
    if (this.segment) {
      person = this.segment(small, this.width, this.height).catch(() => null);
    }
    this.samples.push({ index, rgb, person });
  }

  get sampleCount(): number {
    return this.samples.length;
  }

  /**
   * Builds the plate (RGB, this.width x this.height). `bodyAt(index)` gives the performer's keypoints for
   * a sampled frame in source-frame pixels, or null when nobody is there.
   */
  async build(bodyAt: (index: number) => Keypoint[] | null): Promise<{ rgb: Uint8Array; unseenFraction: number }> {
    const w = this.width;
    const h = this.height;
    const n = this.samples.length;
    const sx = w / this.srcWidth;
    const sy = h / this.srcHeight;
    const grow = Math.max(1, Math.round(Math.max(w, h) * 0.015));
    const masks: Uint8Array[] = [];
    for (const s of this.samples) {
      let m: Uint8Array = new Uint8Array(w * h);
      const body = bodyAt(s.index);
      if (body)
        drawBodyRegion(
          m,
          w,
          h,
          body.map((k) => ({ x: k.x * sx, y: k.y * sy, score: k.score })),
        );
      const person = s.person ? await s.person : null;
      if (person) {
        const seg = new Uint8Array(w * h);
        for (let p = 0; p < w * h; p++) seg[p] = person[p] >= SEG_THRESHOLD ? 1 : 0;
        const grown = dilate(seg, w, h, grow);
        for (let p = 0; p < w * h; p++) m[p] |= grown[p];
      }
      masks.push(m);
    }
    const rgb = new Uint8Array(w * h * 3);
    const known = new Uint8Array(w * h);
    const luma = new Float32Array(n);
    const order = new Int32Array(n);
    let unseen = 0;
    // A pixel uncovered in only a sample or two is usually a segmentation miss at the performer's
    // edge (hair, a fast hand), not background: it is inpainted instead of trusted.
    const minSeen = Math.min(n, Math.max(2, Math.ceil(n * MIN_SEEN_FRACTION)));
    for (let p = 0; p < w * h; p++) {
      let count = 0;
      for (let k = 0; k < n; k++) {
        if (masks[k][p]) continue;
        const o = p * 3;
        const rgbK = this.samples[k].rgb;
        const l = 0.299 * rgbK[o] + 0.587 * rgbK[o + 1] + 0.114 * rgbK[o + 2];
        // Insertion into the sorted prefix: n <= 60, so this beats a general sort per pixel.
        let q = count++;
        while (q > 0 && luma[q - 1] > l) {
          luma[q] = luma[q - 1];
          order[q] = order[q - 1];
          q--;
        }
        luma[q] = l;
        order[q] = k;
      }
      if (count < minSeen) {
        unseen++;
        continue;
      }
      // The median by luminance keeps one real colour instead of mixing channels from different frames.
      const pick = this.samples[order[count >> 1]].rgb;
      const o = p * 3;
      rgb[o] = pick[o];
      rgb[o + 1] = pick[o + 1];
      rgb[o + 2] = pick[o + 2];
      known[p] = 1;
    }
    if (unseen > 0) fillUnseen(rgb, known, w, h);
    return { rgb, unseenFraction: unseen / (w * h) };
  }
}

/** Pixels at the border of a hole skipped as mirror sources (mask edges carry blended colours). */
const FILL_MARGIN = 2;

/**
 * Width of the strip beside a hole that is mirrored into it (back and forth for wider holes): close
 * enough to the hole to belong to the same surface, so a letterbox bar or another object further
 * along the row is never copied in.
 */
const FILL_BAND = 16;

/**
 * Inpaints pixels with known=0. Scenes behind a dancer are mostly horizontal bands (floor, wall,
 * horizon, sea) and the hole a performer leaves is mostly vertical, so each row's gap is filled from
 * the same row: the known strip on each side is mirrored into the gap and the two are cross-faded
 * over its width, which continues bands, colours and grain instead of smearing the sky into the
 * floor as an isotropic diffusion does. Rows with no known pixel at all take the push-pull fill, and
 * a short vertical blur over the filled pixels hides the row-to-row independence.
 */
export function fillUnseen(rgb: Uint8Array, known: Uint8Array, w: number, h: number): void {
  // The push-pull fallback is only needed when some row has no known pixel at all.
  let smooth: Uint8Array | null = null;
  const fallback = (): Uint8Array => {
    if (!smooth) {
      smooth = new Uint8Array(rgb);
      pushPullFill(smooth, known, w, h);
    }
    return smooth;
  };
  const filled = new Float32Array(w * h * 3);
  // Offset `o` from the hole's edge (0 = the pixel next to it) folded back and forth into a strip of `len` pixels.
  const reflect = (o: number, len: number): number => {
    const period = 2 * len;
    const q = o % period;
    return q < len ? q : period - 1 - q;
  };
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let x = 0;
    while (x < w) {
      if (known[row + x]) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < w && !known[row + x]) x++;
      const x1 = x - 1;
      // Known runs on each side of the gap [x0, x1].
      let l0 = x0 - 1;
      while (l0 > 0 && known[row + l0 - 1]) l0--;
      const leftLen = x0 > 0 ? x0 - l0 : 0;
      let r1 = x1 + 1;
      while (r1 < w - 1 && known[row + r1 + 1]) r1++;
      const rightLen = x1 < w - 1 ? r1 - x1 : 0;
      const lm = Math.min(FILL_MARGIN, Math.max(0, leftLen - 1)),
        rm = Math.min(FILL_MARGIN, Math.max(0, rightLen - 1));
      for (let xi = x0; xi <= x1; xi++) {
        const p = (row + xi) * 3;
        let wl = leftLen > 0 ? x1 + 1 - xi : 0;
        let wr = rightLen > 0 ? xi - x0 + 1 : 0;
        if (wl + wr === 0) {
          const f = fallback();
          filled[p] = f[p];
          filled[p + 1] = f[p + 1];
          filled[p + 2] = f[p + 2];
          continue;
        }
        const sum = wl + wr;
        wl /= sum;
        wr /= sum;
        const ls = leftLen > 0 ? (row + x0 - 1 - lm - reflect(xi - x0, Math.min(FILL_BAND, leftLen - lm))) * 3 : 0;
        const rs = rightLen > 0 ? (row + x1 + 1 + rm + reflect(x1 - xi, Math.min(FILL_BAND, rightLen - rm))) * 3 : 0;
        for (let c = 0; c < 3; c++) filled[p + c] = wl * rgb[ls + c] + wr * rgb[rs + c];
      }
    }
  }
  // Vertical [1 2 1] passes over the filled pixels only (known pixels are read, never changed).
  const col = new Float32Array(h * 3);
  for (let pass = 0; pass < 3; pass++) {
    for (let x = 0; x < w; x++) {
      for (let y = 0; y < h; y++) {
        const p = (y * w + x) * 3;
        for (let c = 0; c < 3; c++) col[y * 3 + c] = known[y * w + x] ? rgb[p + c] : filled[p + c];
      }
      for (let y = 0; y < h; y++) {
        if (known[y * w + x]) continue;
        const up = Math.max(0, y - 1),
          dn = Math.min(h - 1, y + 1);
        const p = (y * w + x) * 3;
        for (let c = 0; c < 3; c++) filled[p + c] = 0.25 * col[up * 3 + c] + 0.5 * col[y * 3 + c] + 0.25 * col[dn * 3 + c];
      }
    }
  }
  for (let p = 0; p < w * h; p++) {
    if (known[p]) continue;
    for (let c = 0; c < 3; c++) rgb[p * 3 + c] = Math.round(filled[p * 3 + c]);
  }
}

/**
 * Fills pixels with known=0 by push-pull: average known pixels down an image pyramid (weights carried
 * along), then pull coarse values back up into the holes. Smooth, boundary-continuous, O(pixels).
 */
export function pushPullFill(rgb: Uint8Array, known: Uint8Array, w: number, h: number): void {
  interface Level {
    w: number;
    h: number;
    c: Float32Array;
    wt: Float32Array;
  }
  const base: Level = { w, h, c: new Float32Array(w * h * 3), wt: new Float32Array(w * h) };
  for (let p = 0; p < w * h; p++) {
    if (!known[p]) continue;
    base.wt[p] = 1;
    for (let ch = 0; ch < 3; ch++) base.c[p * 3 + ch] = rgb[p * 3 + ch];
  }
  const levels: Level[] = [base];
  while (levels[levels.length - 1].w > 1 || levels[levels.length - 1].h > 1) {
    const f = levels[levels.length - 1];
    const cw = Math.max(1, Math.ceil(f.w / 2));
    const chh = Math.max(1, Math.ceil(f.h / 2));
    const c: Level = { w: cw, h: chh, c: new Float32Array(cw * chh * 3), wt: new Float32Array(cw * chh) };
    for (let y = 0; y < f.h; y++) {
      for (let x = 0; x < f.w; x++) {
        const p = y * f.w + x;
        const q = (y >> 1) * cw + (x >> 1);
        const wt = f.wt[p];
        if (wt === 0) continue;
        c.wt[q] += wt;
        for (let ch = 0; ch < 3; ch++) c.c[q * 3 + ch] += f.c[p * 3 + ch] * wt;
      }
    }
    for (let q = 0; q < cw * chh; q++) {
      const wt = c.wt[q];
      if (wt > 0) for (let ch = 0; ch < 3; ch++) c.c[q * 3 + ch] /= wt;
      c.wt[q] = Math.min(1, wt);
    }
    levels.push(c);
  }
  for (let li = levels.length - 2; li >= 0; li--) {
    const f = levels[li];
    const c = levels[li + 1];
    for (let y = 0; y < f.h; y++) {
      for (let x = 0; x < f.w; x++) {
        const p = y * f.w + x;
        const wt = f.wt[p];
        if (wt >= 1) continue;
        // Bilinear sample of the coarse level at this pixel's centre.
        const fx = Math.min(c.w - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
        const fy = Math.min(c.h - 1, Math.max(0, (y + 0.5) / 2 - 0.5));
        const x0 = Math.floor(fx),
          y0 = Math.floor(fy);
        const x1 = Math.min(c.w - 1, x0 + 1),
          y1 = Math.min(c.h - 1, y0 + 1);
        const ax = fx - x0,
          ay = fy - y0;
        for (let ch = 0; ch < 3; ch++) {
          const v =
            (c.c[(y0 * c.w + x0) * 3 + ch] * (1 - ax) + c.c[(y0 * c.w + x1) * 3 + ch] * ax) * (1 - ay) +
            (c.c[(y1 * c.w + x0) * 3 + ch] * (1 - ax) + c.c[(y1 * c.w + x1) * 3 + ch] * ax) * ay;
          f.c[p * 3 + ch] = f.c[p * 3 + ch] * wt + v * (1 - wt);
        }
        f.wt[p] = 1;
      }
    }
  }
  for (let p = 0; p < w * h; p++) {
    if (known[p]) continue;
    for (let ch = 0; ch < 3; ch++) rgb[p * 3 + ch] = Math.round(base.c[p * 3 + ch]);
  }
}
