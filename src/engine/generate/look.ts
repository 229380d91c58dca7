/**
 * Per-frame finishing used by generated and character-animation videos: a soft contact shadow under
 * the feet, colour matching of the character to its scene, camera moves as a resample of the whole
 * frame, keyframe blends (first and last frame images) and a watermark.
 */
import sharp from 'sharp';

/** Mean and standard deviation per RGB channel. */
export interface ColourStats {
  mean: [number, number, number];
  std: [number, number, number];
}

/** Statistics of RGBA pixels with alpha >= 128 (or all pixels when `alpha` is false) inside a box. */
export function colourStats(
  px: Uint8Array,
  w: number,
  h: number,
  box: { x0: number; y0: number; x1: number; y1: number } | null,
  channels: 3 | 4,
  useAlpha: boolean,
): ColourStats | null {
  const x0 = Math.max(0, Math.floor(box?.x0 ?? 0)),
    x1 = Math.min(w, Math.ceil(box?.x1 ?? w));
  const y0 = Math.max(0, Math.floor(box?.y0 ?? 0)),
    y1 = Math.min(h, Math.ceil(box?.y1 ?? h));
  const s = [0, 0, 0],
    s2 = [0, 0, 0];
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * w + x) * channels;
      if (useAlpha && channels === 4 && px[o + 3] < 128) continue;
      for (let c = 0; c < 3; c++) {
        s[c] += px[o + c];
        s2[c] += px[o + c] * px[o + c];
      }
      n++;
    }
  }
  if (n < 16) return null;
  const mean = s.map((v) => v / n) as [number, number, number];
  const std = s2.map((v, c) => Math.sqrt(Math.max(1, v / n - mean[c] * mean[c]))) as [number, number, number];
  return { mean, std };
}

/**
 * Moves the character's colours part of the way towards the scene's (Reinhard-style transfer per
 * channel): `strength` of the mean shift (light level and colour cast) and a gentler share of the
 * contrast change, so the figure takes the scene's light without losing its own colours.
 */
export function harmonizeTexture(rgba: Uint8Array, w: number, h: number, scene: ColourStats, strength = 0.35): void {
  const own = colourStats(rgba, w, h, null, 4, true);
  if (!own) return;
  const a = [0, 1, 2].map((c) => 1 + 0.5 * strength * (scene.std[c] / own.std[c] - 1));
  const gain = a.map((v) => Math.min(1.3, Math.max(0.75, v)));
  const shift = [0, 1, 2].map((c) => strength * (scene.mean[c] - own.mean[c]));
  for (let o = 0; o < rgba.length; o += 4) {
    if (rgba[o + 3] === 0) continue;
    for (let c = 0; c < 3; c++) {
      const v = (rgba[o + c] - own.mean[c]) * gain[c] + own.mean[c] + shift[c];
      rgba[o + c] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
}

/**
 * Darkens the background under the feet: an elliptical soft shadow on the floor line, as wide as
 * the figure's lowest part, fading as the figure rises above the floor (a jump).
 */
export function drawContactShadow(frame: Uint8Array, W: number, H: number, pos: Float32Array, floorY: number, strength = 0.45): void {
  let minY = Infinity,
    maxY = -Infinity;
  for (let i = 1; i < pos.length; i += 2) {
    if (pos[i] < minY) minY = pos[i];
    if (pos[i] > maxY) maxY = pos[i];
  }
  const figH = maxY - minY;
  if (!Number.isFinite(figH) || figH < 4) return;
  let x0 = Infinity,
    x1 = -Infinity;
  for (let i = 0; i < pos.length; i += 2) {
    if (pos[i + 1] >= maxY - 0.06 * figH) {
      if (pos[i] < x0) x0 = pos[i];
      if (pos[i] > x1) x1 = pos[i];
    }
  }
  const ground = Number.isFinite(floorY) ? Math.max(floorY, maxY) : maxY;
  const lift = Math.max(0, ground - maxY);
  const k = strength * Math.exp(-lift / (0.12 * figH));
  if (k < 0.01) return;
  const cx = (x0 + x1) / 2,
    rx = (x1 - x0) / 2 + 0.1 * figH,
    ry = 0.035 * figH + 2;
  const ys = Math.max(0, Math.floor(ground - 3 * ry)),
    ye = Math.min(H - 1, Math.ceil(ground + 3 * ry));
  const xs = Math.max(0, Math.floor(cx - 1.6 * rx)),
    xe = Math.min(W - 1, Math.ceil(cx + 1.6 * rx));
  for (let y = ys; y <= ye; y++) {
    const dy = (y - ground) / ry;
    for (let x = xs; x <= xe; x++) {
      const dx = (x - cx) / rx;
      const d2 = dx * dx + dy * dy;
      if (d2 > 2.6) continue;
      const m = 1 - k * Math.exp(-d2 * 1.6);
      const o = (y * W + x) * 4;
      frame[o] *= m;
      frame[o + 1] *= m;
      frame[o + 2] *= m;
    }
  }
}

/** Camera state of one frame: zoom about (cx, cy) in output fractions; 1 = the frame as rendered. */
export interface CameraPose {
  zoom: number;
  cx: number;
  cy: number;
}

/** Resamples `src` (RGBA) into `dst` as seen through the camera (bilinear). */
export function applyCamera(src: Uint8Array, dst: Uint8Array, W: number, H: number, cam: CameraPose): void {
  const z = cam.zoom;
  const ox = cam.cx * W - W / 2 / z,
    oy = cam.cy * H - H / 2 / z;
  const inv = 1 / z;
  for (let y = 0; y < H; y++) {
    const sy = Math.min(H - 1.001, Math.max(0, oy + (y + 0.5) * inv - 0.5));
    const y0 = Math.floor(sy),
      fy = sy - y0;
    const r0 = y0 * W * 4,
      r1 = Math.min(H - 1, y0 + 1) * W * 4;
    for (let x = 0, o = y * W * 4; x < W; x++, o += 4) {
      const sx = Math.min(W - 1.001, Math.max(0, ox + (x + 0.5) * inv - 0.5));
      const x0 = Math.floor(sx),
        fx = sx - x0;
      const a = r0 + x0 * 4,
        b = a + 4,
        c = r1 + x0 * 4,
        d = c + 4;
      for (let ch = 0; ch < 3; ch++) {
        const top = src[a + ch] + (src[b + ch] - src[a + ch]) * fx;
        const bot = src[c + ch] + (src[d + ch] - src[c + ch]) * fx;
        dst[o + ch] = top + (bot - top) * fy;
      }
      dst[o + 3] = 255;
    }
  }
}

/** Blends `img` (RGB, same size) into the RGBA frame with weight `w` (1 = the image exactly). */
export function blendImage(frame: Uint8Array, img: Uint8Array, w: number): void {
  if (w <= 0) return;
  if (w >= 1) {
    for (let i = 0, j = 0; j < img.length; i += 4, j += 3) {
      frame[i] = img[j];
      frame[i + 1] = img[j + 1];
      frame[i + 2] = img[j + 2];
    }
    return;
  }
  for (let i = 0, j = 0; j < img.length; i += 4, j += 3) {
    frame[i] += (img[j] - frame[i]) * w;
    frame[i + 1] += (img[j + 1] - frame[i + 1]) * w;
    frame[i + 2] += (img[j + 2] - frame[i + 2]) * w;
  }
}

/** A small "made with Marionette" mark for the bottom-right corner, as premultiplied RGBA. */
export async function watermarkOverlay(W: number, H: number): Promise<{ px: Uint8Array; w: number; h: number; x: number; y: number }> {
  const h = Math.max(14, Math.round(H * 0.035));
  const w = Math.round(h * 7.5);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" rx="${h / 4}" fill="black" fill-opacity="0.35"/>` +
    `<text x="50%" y="72%" font-family="sans-serif" font-size="${Math.round(h * 0.62)}" fill="white" fill-opacity="0.9" text-anchor="middle">Marionette</text></svg>`;
  const raw = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const margin = Math.round(h * 0.6);
  return {
    px: new Uint8Array(raw.data),
    w: raw.info.width,
    h: raw.info.height,
    x: W - raw.info.width - margin,
    y: H - raw.info.height - margin,
  };
}

export function drawOverlay(frame: Uint8Array, W: number, o: { px: Uint8Array; w: number; h: number; x: number; y: number }): void {
  for (let y = 0; y < o.h; y++) {
    for (let x = 0; x < o.w; x++) {
      const s = (y * o.w + x) * 4;
      const a = o.px[s + 3] / 255;
      if (a === 0) continue;
      const d = ((o.y + y) * W + o.x + x) * 4;
      frame[d] += (o.px[s] - frame[d]) * a;
      frame[d + 1] += (o.px[s + 1] - frame[d + 1]) * a;
      frame[d + 2] += (o.px[s + 2] - frame[d + 2]) * a;
    }
  }
}
