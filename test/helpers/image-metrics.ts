/**
 * Image comparison for tests: mean SSIM over 8x8 windows (stride 4) on luma, the usual constants
 * (K1 0.01, K2 0.03, L 255). Inputs are RGB or RGBA buffers of the same size.
 */
export function lumaOf(px: Uint8Array, w: number, h: number, channels: number): Float64Array {
  const out = new Float64Array(w * h);
  for (let i = 0; i < w * h; i++) out[i] = 0.299 * px[i * channels] + 0.587 * px[i * channels + 1] + 0.114 * px[i * channels + 2];
  return out;
}

export function ssim(a: Float64Array, b: Float64Array, w: number, h: number, win = 8, stride = 4): number {
  const c1 = (0.01 * 255) ** 2,
    c2 = (0.03 * 255) ** 2;
  let sum = 0,
    n = 0;
  for (let y = 0; y + win <= h; y += stride) {
    for (let x = 0; x + win <= w; x += stride) {
      let ma = 0,
        mb = 0;
      for (let j = 0; j < win; j++)
        for (let i = 0; i < win; i++) {
          const o = (y + j) * w + x + i;
          ma += a[o];
          mb += b[o];
        }
      const k = win * win;
      ma /= k;
      mb /= k;
      let va = 0,
        vb = 0,
        cov = 0;
      for (let j = 0; j < win; j++)
        for (let i = 0; i < win; i++) {
          const o = (y + j) * w + x + i;
          const da = a[o] - ma,
            db = b[o] - mb;
          va += da * da;
          vb += db * db;
          cov += da * db;
        }
      va /= k - 1;
      vb /= k - 1;
      cov /= k - 1;
      sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      n++;
    }
  }
  return n ? sum / n : 1;
}
