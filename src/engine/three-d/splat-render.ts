/**
 * A small CPU rasteriser for Gaussian splats (thumbnails and tests): orthographic camera turned
 * about the vertical axis, each splat's 3D covariance projected to a 2D ellipse (plus 0.3 px² of
 * low-pass, as 3DGS does), splats sorted by depth and alpha-blended front to back.
 */
import { SH_C0, type SplatCloud } from './splat-build.js';

export interface SplatCamera {
  width: number;
  height: number;
  /** Pixels per metre. */
  scale: number;
  /** Pixel position of the world origin. */
  cx: number;
  cy: number;
  /** Turn of the camera about the vertical axis, degrees (0: front, looking along -Z). */
  yawDeg: number;
}

/** Returns RGBA (straight alpha) of the render. */
export function renderSplats(c: SplatCloud, cam: SplatCamera): Uint8Array {
  const { width: W, height: H } = cam;
  const yaw = (cam.yawDeg * Math.PI) / 180;
  const cy = Math.cos(yaw),
    sy = Math.sin(yaw);
  const n = c.count;
  const sx = new Float32Array(n),
    syy = new Float32Array(n),
    depth = new Float32Array(n);
  const conic = new Float32Array(n * 3);
  const radius = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const X = c.positions[i * 3],
      Y = c.positions[i * 3 + 1],
      Z = c.positions[i * 3 + 2];
    // Rotating the figure by -yaw is the camera turning by +yaw around it.
    const xr = cy * X - sy * Z,
      zr = sy * X + cy * Z;
    sx[i] = cam.cx + xr * cam.scale;
    syy[i] = cam.cy - Y * cam.scale;
    depth[i] = zr;
    const w = c.rotations[i * 4],
      x = c.rotations[i * 4 + 1],
      y = c.rotations[i * 4 + 2],
      z = c.rotations[i * 4 + 3];
    const r00 = 1 - 2 * (y * y + z * z),
      r01 = 2 * (x * y - w * z),
      r02 = 2 * (x * z + w * y);
    const r10 = 2 * (x * y + w * z),
      r11 = 1 - 2 * (x * x + z * z),
      r12 = 2 * (y * z - w * x);
    const r20 = 2 * (x * z - w * y),
      r21 = 2 * (y * z + w * x),
      r22 = 1 - 2 * (x * x + y * y);
    const s0 = Math.exp(2 * c.scales[i * 3]),
      s1 = Math.exp(2 * c.scales[i * 3 + 1]),
      s2 = Math.exp(2 * c.scales[i * 3 + 2]);
    // Σ = R diag(s) Rᵀ; only the rows for the turned camera's x and for y are needed.
    const rx0 = cy * r00 - sy * r20,
      rx1 = cy * r01 - sy * r21,
      rx2 = cy * r02 - sy * r22;
    const p2 = cam.scale * cam.scale;
    const a = (rx0 * rx0 * s0 + rx1 * rx1 * s1 + rx2 * rx2 * s2) * p2 + 0.3;
    const d = (r10 * r10 * s0 + r11 * r11 * s1 + r12 * r12 * s2) * p2 + 0.3;
    // Screen y points down, so the cross term changes sign.
    const b = -(rx0 * r10 * s0 + rx1 * r11 * s1 + rx2 * r12 * s2) * p2;
    const det = a * d - b * b;
    conic[i * 3] = d / det;
    conic[i * 3 + 1] = -b / det;
    conic[i * 3 + 2] = a / det;
    const mid = (a + d) / 2;
    radius[i] = 3 * Math.sqrt(mid + Math.sqrt(Math.max(0.1, mid * mid - det)));
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((p, q) => depth[q] - depth[p]);
  const T = new Float32Array(W * H).fill(1);
  const acc = new Float32Array(W * H * 3);
  for (const i of order) {
    const op = 1 / (1 + Math.exp(-c.opacities[i]));
    const c0 = Math.min(1, Math.max(0, 0.5 + SH_C0 * c.dc[i * 3]));
    const c1 = Math.min(1, Math.max(0, 0.5 + SH_C0 * c.dc[i * 3 + 1]));
    const c2 = Math.min(1, Math.max(0, 0.5 + SH_C0 * c.dc[i * 3 + 2]));
    const r = radius[i];
    const x0 = Math.max(0, Math.floor(sx[i] - r)),
      x1 = Math.min(W - 1, Math.ceil(sx[i] + r));
    const y0 = Math.max(0, Math.floor(syy[i] - r)),
      y1 = Math.min(H - 1, Math.ceil(syy[i] + r));
    const ca = conic[i * 3],
      cb = conic[i * 3 + 1],
      cc = conic[i * 3 + 2];
    for (let py = y0; py <= y1; py++) {
      const dy = py + 0.5 - syy[i];
      for (let px = x0; px <= x1; px++) {
        const p = py * W + px;
        if (T[p] < 1e-3) continue;
        const dx = px + 0.5 - sx[i];
        const power = -0.5 * (ca * dx * dx + 2 * cb * dx * dy + cc * dy * dy);
        if (power > 0) continue;
        const alpha = Math.min(0.99, op * Math.exp(power));
        if (alpha < 1 / 255) continue;
        const wgt = alpha * T[p];
        acc[p * 3] += wgt * c0;
        acc[p * 3 + 1] += wgt * c1;
        acc[p * 3 + 2] += wgt * c2;
        T[p] *= 1 - alpha;
      }
    }
  }
  const out = new Uint8Array(W * H * 4);
  for (let p = 0; p < W * H; p++) {
    const a = 1 - T[p];
    out[p * 4 + 3] = Math.round(a * 255);
    if (a > 1e-4) for (let k = 0; k < 3; k++) out[p * 4 + k] = Math.round(Math.min(1, acc[p * 3 + k] / a) * 255);
  }
  return out;
}

/** The front camera that lines a render up pixel for pixel with the character's texture. */
export function textureCamera(c: SplatCloud, width: number, height: number, yawDeg = 0): SplatCamera {
  return { width, height, scale: 1 / c.metresPerPixel, cx: c.origin.x, cy: c.origin.y, yawDeg };
}
