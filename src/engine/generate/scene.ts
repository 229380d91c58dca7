/**
 * Settings painted from a plan: simple layered shapes (gradients, discs, soft ellipses, stripes)
 * drawn at the output size, so every resolution is sharp. Each setting has a floor line where the
 * subject's feet stand. The seed moves the sun, clouds, stars, trees and buildings; colour words tint
 * the main surface (sky, wall or curtain) and accent the details.
 */
import type { ScenePlan, Setting } from './plan.js';
import { mulberry32 } from './random.js';

export type Rgb = [number, number, number];

export interface PaintedScene {
  /** RGBA, alpha 0 (the rasterizer accumulates coverage there). */
  pixels: Uint8Array;
  width: number;
  height: number;
  /** Where the subject's feet stand, in px from the top. */
  floorY: number;
}

/** Fraction of the height where the feet stand, per setting. */
const FLOOR: Record<Setting, number> = {
  studio: 0.88,
  sky: 0.88,
  room: 0.9,
  beach: 0.88,
  night: 0.88,
  forest: 0.89,
  city: 0.9,
  snow: 0.88,
  stage: 0.88,
};

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);

class Canvas {
  readonly px: Float32Array;
  constructor(
    readonly w: number,
    readonly h: number,
  ) {
    this.px = new Float32Array(w * h * 3);
  }
  /** Vertical gradient between rows y0..y1 (fractions), colour stops top → bottom. */
  vgrad(y0: number, y1: number, top: Rgb, bottom: Rgb): void {
    const a = Math.max(0, Math.floor(y0 * this.h)),
      b = Math.min(this.h, Math.ceil(y1 * this.h));
    for (let y = a; y < b; y++) {
      const c = mix(top, bottom, b - a <= 1 ? 0 : (y - a) / (b - a - 1));
      for (let x = 0, o = y * this.w * 3; x < this.w; x++, o += 3) {
        this.px[o] = c[0];
        this.px[o + 1] = c[1];
        this.px[o + 2] = c[2];
      }
    }
  }
  /** Soft-edged ellipse (centre and radii in px), blended with opacity `alpha`. */
  ellipse(cx: number, cy: number, rx: number, ry: number, c: Rgb, alpha = 1, soft = 1.5): void {
    const x0 = Math.max(0, Math.floor(cx - rx - soft)),
      x1 = Math.min(this.w - 1, Math.ceil(cx + rx + soft));
    const y0 = Math.max(0, Math.floor(cy - ry - soft)),
      y1 = Math.min(this.h - 1, Math.ceil(cy + ry + soft));
    const r = Math.max(rx, ry);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const dx = (x + 0.5 - cx) / rx,
          dy = (y + 0.5 - cy) / ry;
        const d = (Math.sqrt(dx * dx + dy * dy) - 1) * r;
        const t = clamp01(0.5 - d / (2 * soft)) * alpha;
        if (t <= 0) continue;
        const o = (y * this.w + x) * 3;
        this.px[o] += (c[0] - this.px[o]) * t;
        this.px[o + 1] += (c[1] - this.px[o + 1]) * t;
        this.px[o + 2] += (c[2] - this.px[o + 2]) * t;
      }
    }
  }
  rect(x0: number, y0: number, x1: number, y1: number, c: Rgb, alpha = 1): void {
    const a = Math.max(0, Math.round(x0)),
      b = Math.min(this.w, Math.round(x1));
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(this.h, Math.round(y1)); y++) {
      for (let x = a, o = (y * this.w + a) * 3; x < b; x++, o += 3) {
        this.px[o] += (c[0] - this.px[o]) * alpha;
        this.px[o + 1] += (c[1] - this.px[o + 1]) * alpha;
        this.px[o + 2] += (c[2] - this.px[o + 2]) * alpha;
      }
    }
  }
  /** Fills below a curve y = f(x) (px) down to the bottom with a vertical gradient. */
  below(f: (x: number) => number, top: Rgb, bottom: Rgb): void {
    for (let x = 0; x < this.w; x++) {
      const y0 = f(x);
      for (let y = Math.max(0, Math.floor(y0)); y < this.h; y++) {
        const edge = clamp01(y + 1 - y0);
        const c = mix(top, bottom, clamp01((y - y0) / Math.max(1, this.h - y0)));
        const o = (y * this.w + x) * 3;
        this.px[o] += (c[0] - this.px[o]) * edge;
        this.px[o + 1] += (c[1] - this.px[o + 1]) * edge;
        this.px[o + 2] += (c[2] - this.px[o + 2]) * edge;
      }
    }
  }
  toRgba(): Uint8Array {
    const out = new Uint8Array(this.w * this.h * 4);
    for (let i = 0, j = 0; i < this.px.length; i += 3, j += 4) {
      out[j] = this.px[i];
      out[j + 1] = this.px[i + 1];
      out[j + 2] = this.px[i + 2];
    }
    return out;
  }
}

export function paintScene(plan: ScenePlan, width: number, height: number): PaintedScene {
  const c = new Canvas(width, height);
  const rnd = mulberry32(plan.seed ^ 0x5ce4e);
  const tint = plan.colours[0] ?? null;
  const accent = plan.colours[1] ?? plan.colours[0] ?? null;
  const t = (base: Rgb, k = 0.45): Rgb => (tint ? mix(base, tint, k) : base);
  const W = width,
    H = height,
    S = Math.min(W, H);
  const floorY = Math.round(FLOOR[plan.setting] * H);
  const clouds = (n: number, col: Rgb, yMax: number) => {
    for (let i = 0; i < n; i++) {
      const cx = rnd() * W,
        cy = (0.06 + rnd() * yMax) * H,
        r = (0.05 + rnd() * 0.05) * S;
      for (let k = 0; k < 5; k++)
        c.ellipse(cx + (k - 2) * r * 0.7, cy + (k % 2) * r * 0.25, r * (0.8 + 0.3 * Math.sin(k * 1.7)), r * 0.55, col, 0.85, r * 0.25);
    }
  };
  switch (plan.setting) {
    case 'studio': {
      const horizon = floorY - 0.05 * H;
      c.vgrad(0, horizon / H, t([236, 233, 228], 0.3), t([214, 209, 201], 0.3));
      c.vgrad(horizon / H, 1, t([200, 195, 187], 0.2), t([176, 170, 160], 0.2));
      break;
    }
    case 'sky': {
      c.vgrad(0, 0.75, t([92, 156, 230]), t([186, 218, 245]));
      c.ellipse((0.15 + rnd() * 0.7) * W, (0.1 + rnd() * 0.12) * H, 0.07 * S, 0.07 * S, [255, 244, 200], 1, 0.04 * S);
      clouds(3 + Math.floor(rnd() * 3), [250, 250, 252], 0.3);
      const ph = rnd() * 6.28;
      c.below(
        (x) => 0.7 * H + Math.sin((x / W) * 5 + ph) * 0.03 * H,
        accent ? mix([104, 170, 86], accent, 0.3) : [104, 170, 86],
        [70, 130, 60],
      );
      c.below((x) => floorY - 0.03 * H + Math.sin((x / W) * 9 + ph * 2) * 0.008 * H, [88, 150, 72], [60, 118, 52]);
      break;
    }
    case 'room': {
      const wall = t(rnd() < 0.5 ? [226, 214, 190] : [205, 220, 222]);
      c.vgrad(0, floorY / H - 0.1, wall, mix(wall, [120, 110, 100], 0.15));
      const wx = (0.08 + rnd() * 0.6) * W,
        ww = 0.22 * W,
        wy = 0.12 * H,
        wh = 0.38 * H;
      c.rect(wx - 0.012 * S, wy - 0.012 * S, wx + ww + 0.012 * S, wy + wh + 0.012 * S, [245, 245, 240]);
      c.rect(wx, wy, wx + ww, wy + wh, [150, 200, 240]);
      c.rect(wx + ww / 2 - 0.006 * S, wy, wx + ww / 2 + 0.006 * S, wy + wh, [245, 245, 240]);
      const px = wx > W / 2 ? 0.1 * W : 0.68 * W;
      c.rect(px, 0.2 * H, px + 0.14 * W, 0.38 * H, [90, 70, 50]);
      c.rect(px + 0.01 * S, 0.2 * H + 0.01 * S, px + 0.14 * W - 0.01 * S, 0.38 * H - 0.01 * S, accent ?? [200, 120, 80]);
      const base = floorY - 0.1 * H;
      c.rect(0, base - 0.02 * H, W, base, [240, 236, 228]);
      c.vgrad(base / H, 1, [150, 105, 70], [120, 82, 52]);
      const planks = 9;
      for (let i = 0; i <= planks; i++) {
        const x0 = (i / planks) * W;
        for (let y = Math.floor(base); y < H; y++) {
          const k = (y - base) / (H - base);
          const x = W / 2 + (x0 - W / 2) * (1 + k * 0.9);
          c.rect(x - 0.8, y, x + 0.8, y + 1, [95, 65, 42], 0.6);
        }
      }
      break;
    }
    case 'beach': {
      c.vgrad(0, 0.5, t([80, 160, 230], 0.3), [190, 225, 245]);
      c.ellipse((0.2 + rnd() * 0.6) * W, 0.14 * H, 0.06 * S, 0.06 * S, [255, 246, 210], 1, 0.04 * S);
      clouds(2 + Math.floor(rnd() * 2), [252, 252, 252], 0.2);
      // The sea runs under where the sand's wavy edge starts, so no row between them stays unpainted.
      c.vgrad(0.5, 0.72, [40, 130, 170], [70, 175, 190]);
      for (let i = 0; i < 6; i++) {
        const y = (0.53 + i * 0.028 + rnd() * 0.01) * H;
        c.rect(0, y, W, y + Math.max(1, 0.003 * H), [200, 235, 240], 0.35);
      }
      const ph = rnd() * 6.28;
      c.below((x) => 0.7 * H + Math.sin((x / W) * 7 + ph) * 0.01 * H, [236, 220, 180], [222, 200, 155]);
      break;
    }
    case 'night': {
      c.vgrad(0, 0.78, t([10, 14, 40], 0.2), [40, 48, 90]);
      const stars = Math.round((W * H) / 9000);
      for (let i = 0; i < stars; i++) {
        const r = (0.6 + rnd() * 1.2) * (S / 720);
        c.ellipse(rnd() * W, rnd() * 0.7 * H, r, r, [255, 255, 235], 0.5 + rnd() * 0.5, 0.8);
      }
      const mx = (0.15 + rnd() * 0.7) * W;
      c.ellipse(mx, 0.16 * H, 0.055 * S, 0.055 * S, [245, 242, 220], 1, 0.03 * S);
      c.ellipse(mx + 0.02 * S, 0.15 * H, 0.045 * S, 0.045 * S, [24, 30, 62], 0.9, 0.01 * S);
      c.below((x) => 0.76 * H + Math.sin((x / W) * 4 + mx) * 0.02 * H, [30, 40, 52], [18, 22, 30]);
      break;
    }
    case 'forest': {
      c.vgrad(0, 0.7, t([130, 190, 230], 0.3), [210, 232, 220]);
      // A meadow from the horizon down, so nothing between the sky and the grass stays unpainted.
      c.below(() => 0.7 * H, [128, 178, 96], [96, 160, 70]);
      const trees = 7 + Math.floor(rnd() * 4);
      for (let i = 0; i < trees; i++) {
        const side = i % 2 === 0 ? rnd() * 0.3 : 0.7 + rnd() * 0.3;
        const x = side * W,
          hgt = (0.45 + rnd() * 0.3) * H,
          base = floorY - 0.04 * H;
        c.rect(x - 0.015 * S, base - hgt * 0.6, x + 0.015 * S, base, [92, 64, 40]);
        const leaf: Rgb = accent ? mix([50, 120, 55], accent, 0.3) : [50 + rnd() * 30, 120 + rnd() * 30, 55];
        c.ellipse(x, base - hgt * 0.7, 0.09 * S, hgt * 0.3, leaf, 1, 0.02 * S);
      }
      c.below(() => floorY - 0.04 * H, [96, 160, 70], [70, 126, 52]);
      break;
    }
    case 'city': {
      // The sky reaches the road: the gaps between buildings show sky, not an unpainted band.
      c.vgrad(0, floorY / H - 0.08, t([250, 190, 120], 0.3), [250, 225, 180]);
      let x = 0;
      while (x < W) {
        const bw = (0.05 + rnd() * 0.08) * W,
          bh = (0.25 + rnd() * 0.35) * H,
          top = floorY - 0.08 * H - bh;
        const tone = 60 + rnd() * 40;
        c.rect(x, top, x + bw, floorY, [tone, tone * 0.9, tone * 1.1]);
        for (let wy = top + 0.02 * H; wy < floorY - 0.1 * H; wy += 0.04 * H) {
          for (let wx = x + 0.01 * W; wx < x + bw - 0.015 * W; wx += 0.025 * W) {
            if (rnd() < 0.55) c.rect(wx, wy, wx + 0.01 * W, wy + 0.018 * H, accent ?? [255, 220, 140], 0.9);
          }
        }
        x += bw + 0.005 * W;
      }
      c.vgrad(floorY / H - 0.08, 1, [120, 118, 122], [80, 80, 86]);
      break;
    }
    case 'snow': {
      c.vgrad(0, 0.7, t([190, 210, 230], 0.3), [232, 238, 245]);
      const ph = rnd() * 6.28;
      c.below((x) => 0.62 * H + Math.sin((x / W) * 4 + ph) * 0.05 * H, [236, 240, 248], [214, 222, 236]);
      c.below(() => floorY - 0.04 * H, [248, 250, 255], [226, 232, 242]);
      const flakes = Math.round((W * H) / 6000);
      for (let i = 0; i < flakes; i++) {
        const r = (0.8 + rnd() * 1.5) * (S / 720);
        c.ellipse(rnd() * W, rnd() * H, r, r, [255, 255, 255], 0.8, 0.8);
      }
      break;
    }
    case 'stage': {
      const curtain = t([120, 20, 30], 0.5);
      c.vgrad(0, floorY / H - 0.06, curtain, mix(curtain, [0, 0, 0], 0.4));
      const folds = 14;
      for (let x = 0; x < W; x++) {
        const k = 0.75 + 0.25 * Math.sin((x / W) * folds * Math.PI * 2);
        for (let y = 0; y < floorY - 0.06 * H; y++) {
          const o = (y * W + x) * 3;
          c.px[o] *= k;
          c.px[o + 1] *= k;
          c.px[o + 2] *= k;
        }
      }
      c.vgrad(floorY / H - 0.06, 1, [70, 50, 36], [40, 28, 20]);
      c.ellipse(plan.subjectX * W, floorY, 0.22 * W, 0.05 * H, accent ?? [255, 236, 190], 0.45, 0.05 * H);
      break;
    }
  }
  return { pixels: c.toRgba(), width, height, floorY };
}
