/**
 * One picture → a 3D Gaussian-splat body, on CPU.
 *
 * The character's cut-out (texture alpha) is inflated into a closed body: every pixel's depth is a
 * circular profile across its limb, z = sqrt(r² - (r - d)²), where d is the pixel's distance to
 * the silhouette and r the limb's own half-thickness (the largest distance found along the rig bone
 * nearest to it), scaled per body part (a torso is flatter than it is wide). Front splats sit on
 * +z with the picture's colours, back splats on -z with the colours blurred and shaded (a plausible
 * back: no second face). Each splat is a flat Gaussian lying in the surface: its normal from the
 * depth gradient, stretched along the slope so steep flanks stay closed when seen from the side.
 * Colours are the spherical-harmonic DC term, as in 3DGS. Splats are skinned to the joint set's
 * skeleton: joints lifted from the 2D pose, each splat weighted to its two nearest bones.
 */
import type { CharacterAnalysis } from '../types.js';
import { cross, normalize, qfromBasis, type Vec3 } from './math3d.js';
import { metahumanSkeleton, restOffset, type JointSet } from './skeletons.js';

/** 3DGS's SH band-0 constant: colour = 0.5 + SH_C0 · f_dc. */
export const SH_C0 = 0.28209479177387814;

export interface SplatCloud {
  count: number;
  /** xyz per splat, metres, Y up, figure facing +Z. */
  positions: Float32Array;
  /** log of the three axis scales (metres). */
  scales: Float32Array;
  /** Unit quaternion per splat, [w, x, y, z] (3DGS PLY order). */
  rotations: Float32Array;
  /** Opacity as a logit (3DGS stores pre-sigmoid values). */
  opacities: Float32Array;
  /** SH DC coefficients, 3 per splat. */
  dc: Float32Array;
  /** Four joint indices and weights per splat (indices into `joints`). */
  jointIndices: Uint16Array;
  jointWeights: Float32Array;
  joints: Array<{ name: string; parent: number; position: Vec3 }>;
  /** Metres per texture pixel and the texture-pixel position of the world origin (for cameras). */
  metresPerPixel: number;
  origin: { x: number; y: number };
}

export interface SplatOptions {
  jointSet: JointSet;
  /** 0 < x <= 1: share of the splat budget (default 0.5). */
  precision?: number;
  /** Twice the budget and thinner splats (a sharper result, more work). */
  enhance?: boolean;
  /** Prunes splats of low opacity or size. */
  filterLowQuality?: boolean;
}

/** Front splats at precision 1 (the back adds as many). */
const BUDGET = 240_000;
const STATURE_M = 1.75;

export interface Rgba {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Euclidean-ish distance to the nearest outside pixel (two-pass chamfer 3-4, in pixels). */
export function distanceInside(mask: Uint8Array, w: number, h: number): Float32Array {
  const INF = 1e9;
  const d = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) d[i] = mask[i] ? INF : 0;
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? 0 : d[y * w + x]);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!d[i]) continue;
      d[i] = Math.min(d[i], at(x - 1, y) + 3, at(x, y - 1) + 3, at(x - 1, y - 1) + 4, at(x + 1, y - 1) + 4);
    }
  for (let y = h - 1; y >= 0; y--)
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x;
      if (!d[i]) continue;
      d[i] = Math.min(d[i], at(x + 1, y) + 3, at(x, y + 1) + 3, at(x + 1, y + 1) + 4, at(x - 1, y + 1) + 4);
    }
  for (let i = 0; i < w * h; i++) d[i] /= 3;
  return d;
}

function boxBlur(src: Uint8Array, w: number, h: number, r: number, mask: Uint8Array): Float32Array {
  // Mask-weighted blur of RGB so background never bleeds in. Running sums in scalars: this walks
  // every pixel of a full-size texture twice (an array per step made it most of the build's time).
  const out = new Float32Array(w * h * 3);
  const tmp = new Float32Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    let a0 = 0,
      a1 = 0,
      a2 = 0,
      a3 = 0;
    const row = y * w;
    const add = (x: number, s: number) => {
      if (x < 0 || x >= w || !mask[row + x]) return;
      const i = (row + x) * 4;
      a0 += s * src[i];
      a1 += s * src[i + 1];
      a2 += s * src[i + 2];
      a3 += s;
    };
    for (let x = -r; x < r; x++) add(x, 1);
    for (let x = 0; x < w; x++) {
      add(x + r, 1);
      const o = (row + x) * 4;
      tmp[o] = a0;
      tmp[o + 1] = a1;
      tmp[o + 2] = a2;
      tmp[o + 3] = a3;
      add(x - r, -1);
    }
  }
  for (let x = 0; x < w; x++) {
    let a0 = 0,
      a1 = 0,
      a2 = 0,
      a3 = 0;
    const add = (y: number, s: number) => {
      if (y < 0 || y >= h) return;
      const i = (y * w + x) * 4;
      a0 += s * tmp[i];
      a1 += s * tmp[i + 1];
      a2 += s * tmp[i + 2];
      a3 += s * tmp[i + 3];
    };
    for (let y = -r; y < r; y++) add(y, 1);
    for (let y = 0; y < h; y++) {
      add(y + r, 1);
      const n = Math.max(a3, 1e-6);
      const o = (y * w + x) * 3;
      out[o] = a0 / n;
      out[o + 1] = a1 / n;
      out[o + 2] = a2 / n;
      add(y - r, -1);
    }
  }
  return out;
}

/** Two passes of a mask-weighted separable box blur of a scalar field, in place. */
function smoothInside(f: Float32Array, mask: Uint8Array, w: number, h: number, r: number): void {
  const tmp = new Float32Array(w * h);
  for (let pass = 0; pass < 2; pass++) {
    for (let y = 0; y < h; y++) {
      let sum = 0,
        n = 0;
      const row = y * w;
      for (let x = -r; x <= r + w; x++) {
        const inX = x + r,
          outX = x - r - 1;
        if (inX >= 0 && inX < w && mask[row + inX]) {
          sum += f[row + inX];
          n++;
        }
        if (outX >= 0 && outX < w && mask[row + outX]) {
          sum -= f[row + outX];
          n--;
        }
        if (x >= 0 && x < w) tmp[row + x] = n > 0 ? sum / n : 0;
      }
    }
    for (let x = 0; x < w; x++) {
      let sum = 0,
        n = 0;
      for (let y = -r; y <= r + h; y++) {
        const inY = y + r,
          outY = y - r - 1;
        if (inY >= 0 && inY < h && mask[inY * w + x]) {
          sum += tmp[inY * w + x];
          n++;
        }
        if (outY >= 0 && outY < h && mask[outY * w + x]) {
          sum -= tmp[outY * w + x];
          n--;
        }
        if (y >= 0 && y < h && mask[y * w + x]) f[y * w + x] = n > 0 ? sum / n : 0;
      }
    }
  }
}

interface Bone {
  a: [number, number];
  b: [number, number];
  joint: number;
  flat: number;
  radius: number;
}

/** Joints of the skeleton placed on the picture (texture pixels, y down) from the 2D pose. */
function placeJoints(
  analysis: CharacterAnalysis,
  set: JointSet,
  w: number,
  h: number,
): { pos: Array<[number, number]>; names: string[]; parents: number[]; bones: Bone[] } {
  const sk = metahumanSkeleton(set);
  const kp = analysis.body.map((k) => [k.x - analysis.crop.x, k.y - analysis.crop.y] as [number, number]);
  const has = kp.length >= 17;
  const mid = (a: number, b: number): [number, number] => [(kp[a][0] + kp[b][0]) / 2, (kp[a][1] + kp[b][1]) / 2];
  const fixed = new Map<string, [number, number]>();
  if (has) {
    const pelvis = mid(11, 12);
    const neck = mid(5, 6);
    fixed.set('pelvis', pelvis);
    for (let k = 1; k <= 5; k++)
      fixed.set(`spine_0${k}`, [pelvis[0] + ((neck[0] - pelvis[0]) * k) / 6, pelvis[1] + ((neck[1] - pelvis[1]) * k) / 6]);
    fixed.set('neck_01', neck);
    fixed.set('head', kp[0]);
    for (const [s, o] of [
      ['l', 0],
      ['r', 1],
    ] as const) {
      fixed.set(`upperarm_${s}`, kp[5 + o]);
      fixed.set(`clavicle_${s}`, [(kp[5 + o][0] + neck[0]) / 2, (kp[5 + o][1] + neck[1]) / 2]);
      fixed.set(`lowerarm_${s}`, kp[7 + o]);
      fixed.set(`hand_${s}`, kp[9 + o]);
      fixed.set(`thigh_${s}`, kp[11 + o]);
      fixed.set(`calf_${s}`, kp[13 + o]);
      fixed.set(`foot_${s}`, kp[15 + o]);
    }
  }
  // Pixels per metre of the skeleton: the figure's height against the skeleton's head-to-foot span.
  const pxPerM = h / STATURE_M;
  const pos: Array<[number, number]> = [];
  sk.joints.forEach((j, i) => {
    const f = fixed.get(j.name);
    if (f) pos.push(f);
    else if (j.parent < 0) pos.push([w / 2, h]);
    else {
      const o = restOffset(sk, i);
      pos.push([pos[j.parent][0] + o[0] * pxPerM * -1, pos[j.parent][1] - o[1] * pxPerM]);
    }
  });
  const bones: Bone[] = [];
  const seg = (from: string, to: string, flat: number) => {
    const a = sk.joints.findIndex((j) => j.name === from);
    const b = sk.joints.findIndex((j) => j.name === to);
    bones.push({ a: pos[a], b: pos[b], joint: a, flat, radius: 0 });
  };
  if (has) {
    seg('pelvis', 'spine_03', 0.6);
    seg('spine_03', 'neck_01', 0.6);
    seg('neck_01', 'head', 0.9);
    for (const s of ['l', 'r']) {
      seg(`clavicle_${s}`, `upperarm_${s}`, 0.7);
      seg(`upperarm_${s}`, `lowerarm_${s}`, 1);
      seg(`lowerarm_${s}`, `hand_${s}`, 1);
      seg(`thigh_${s}`, `calf_${s}`, 1);
      seg(`calf_${s}`, `foot_${s}`, 1);
    }
  } else {
    bones.push({ a: [w / 2, 0], b: [w / 2, h], joint: 0, flat: 0.6, radius: 0 });
  }
  return { pos, names: sk.joints.map((j) => j.name), parents: sk.joints.map((j) => j.parent), bones };
}

function segDist(px: number, py: number, b: Bone): number {
  const vx = b.b[0] - b.a[0],
    vy = b.b[1] - b.a[1];
  const l2 = vx * vx + vy * vy;
  const t = l2 > 0 ? Math.max(0, Math.min(1, ((px - b.a[0]) * vx + (py - b.a[1]) * vy) / l2)) : 0;
  const dx = px - b.a[0] - t * vx,
    dy = py - b.a[1] - t * vy;
  return Math.sqrt(dx * dx + dy * dy);
}

export function buildSplats(tex: Rgba, analysis: CharacterAnalysis, opts: SplatOptions): SplatCloud {
  const { width: w, height: h, data } = tex;
  const mask = new Uint8Array(w * h);
  let area = 0;
  for (let i = 0; i < w * h; i++)
    if (data[i * 4 + 3] >= 128) {
      mask[i] = 1;
      area++;
    }
  if (area < 16) throw new Error('the character has no visible figure to turn into splats');
  const dist = distanceInside(mask, w, h);
  const rig = placeJoints(analysis, opts.jointSet, w, h);
  // Per-bone half-thickness: the largest inside distance along the bone's middle part.
  for (const b of rig.bones) {
    let r = 0;
    for (let k = 1; k < 20; k++) {
      const t = 0.15 + (0.7 * k) / 20;
      const x = Math.round(b.a[0] + (b.b[0] - b.a[0]) * t);
      const y = Math.round(b.a[1] + (b.b[1] - b.a[1]) * t);
      if (x >= 0 && y >= 0 && x < w && y < h) r = Math.max(r, dist[y * w + x]);
    }
    b.radius = Math.max(r, 2);
  }
  const precision = Math.min(1, Math.max(0.01, opts.precision ?? 0.5));
  const budget = BUDGET * precision * (opts.enhance ? 2 : 1);
  const stride = Math.max(1, Math.sqrt(area / budget));
  // Depth field (pixels) and the two nearest bones, for every pixel inside the figure, computed once.
  const zField = new Float32Array(w * h);
  const bone0 = new Uint8Array(w * h);
  const bone1 = new Uint8Array(w * h);
  const weight0 = new Float32Array(w * h);
  const nb = rig.bones.length;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!mask[i]) continue;
      let best = 0,
        second = -1,
        bd = Infinity,
        sd = Infinity;
      for (let k = 0; k < nb; k++) {
        const sdist = segDist(x, y, rig.bones[k]);
        if (sdist < bd) {
          second = best;
          sd = bd;
          best = k;
          bd = sdist;
        } else if (sdist < sd) {
          second = k;
          sd = sdist;
        }
      }
      const b = rig.bones[best];
      const r = b.radius;
      zField[i] = Math.sqrt(Math.max(0, r * r - Math.max(0, r - dist[i]) ** 2)) * b.flat;
      bone0[i] = best;
      bone1[i] = second < 0 ? best : second;
      weight0[i] = second < 0 ? 1 : sd / (bd + sd + 1e-6);
    }
  // Neighbouring bones have different thicknesses: smoothing the depth removes the step (a crack
  // seen from the side) where the nearest bone changes.
  smoothInside(zField, mask, w, h, Math.max(2, Math.round(Math.min(w, h) / 50)));
  const zAt = (x: number, y: number) =>
    zField[Math.min(h - 1, Math.max(0, Math.round(y))) * w + Math.min(w - 1, Math.max(0, Math.round(x)))];

  const back = boxBlur(data, w, h, Math.max(3, Math.round(Math.min(w, h) / 40)), mask);
  const mPerPx = STATURE_M / h;
  const origin = { x: w / 2, y: h };
  const samples: number[] = [];
  for (let y = stride / 2; y < h; y += stride)
    for (let x = stride / 2; x < w; x += stride) {
      const i = Math.floor(y) * w + Math.floor(x);
      if (mask[i]) samples.push(x, y);
    }
  const nFront = samples.length / 2;
  const count = nFront * 2;
  const cloud: SplatCloud = {
    count,
    positions: new Float32Array(count * 3),
    scales: new Float32Array(count * 3),
    rotations: new Float32Array(count * 4),
    opacities: new Float32Array(count),
    dc: new Float32Array(count * 3),
    jointIndices: new Uint16Array(count * 4),
    jointWeights: new Float32Array(count * 4),
    joints: rig.names.map((name, i) => ({
      name,
      parent: rig.parents[i],
      position: [(rig.pos[i][0] - origin.x) * mPerPx, (origin.y - rig.pos[i][1]) * mPerPx, 0] as Vec3,
    })),
    metresPerPixel: mPerPx,
    origin,
  };
  const sigmaT = stride * (opts.enhance ? 0.45 : 0.5) * mPerPx;
  const sigmaN = Math.max(0.25, stride * 0.25) * mPerPx;
  const logit = (a: number) => Math.log(a / (1 - a));
  for (let s = 0; s < nFront; s++) {
    const x = samples[s * 2],
      y = samples[s * 2 + 1];
    const i = Math.floor(y) * w + Math.floor(x);
    const c = { z: zField[i], b0: bone0[i], b1: bone1[i], w0: weight0[i] };
    const gx = (zAt(x + stride, y) - zAt(x - stride, y)) / (2 * stride);
    const gy = (zAt(x, y + stride) - zAt(x, y - stride)) / (2 * stride);
    // Front and back splats of a rim pixel overlap in a front view: thinner and fainter there, so
    // together they do not paint a ring of background pixels around the silhouette.
    const rim = dist[i] < 1.5 ? 0.55 : 1;
    const alpha = Math.min(0.99, Math.max(0.05, (rim * data[i * 4 + 3]) / 255));
    for (const side of [1, -1]) {
      const k = side === 1 ? s : s + nFront;
      const X = (x - origin.x) * mPerPx,
        Y = (origin.y - y) * mPerPx,
        Z = side * c.z * mPerPx;
      cloud.positions.set([X, Y, Z], k * 3);
      // Outward normal of the front (Z = z) or back (Z = -z) surface in world axes (pixel y points down).
      const n = normalize([-gx, gy, side] as Vec3);
      const slope = Math.hypot(gx, gy);
      let t: Vec3 = slope > 1e-4 ? normalize([gx, -gy, 0]) : [1, 0, 0];
      t = normalize(cross(cross(n, t), n).map((v) => -v) as Vec3, [1, 0, 0]);
      const b = cross(n, t);
      const q = qfromBasis(t, b, n);
      cloud.rotations.set([q[3], q[0], q[1], q[2]], k * 4);
      const stretch = Math.min(4, Math.sqrt(1 + slope * slope));
      cloud.scales.set([Math.log(sigmaT * stretch * (rim < 1 ? 0.8 : 1)), Math.log(sigmaT * (rim < 1 ? 0.8 : 1)), Math.log(sigmaN)], k * 3);
      cloud.opacities[k] = logit(alpha);
      const rgb =
        side === 1 ? [data[i * 4], data[i * 4 + 1], data[i * 4 + 2]] : [back[i * 3] * 0.85, back[i * 3 + 1] * 0.85, back[i * 3 + 2] * 0.85];
      cloud.dc.set(
        rgb.map((v) => (v / 255 - 0.5) / SH_C0),
        k * 3,
      );
      const j0 = rig.bones[c.b0].joint,
        j1 = rig.bones[c.b1].joint;
      cloud.jointIndices.set([j0, j1, 0, 0], k * 4);
      cloud.jointWeights.set(j0 === j1 ? [1, 0, 0, 0] : [c.w0, 1 - c.w0, 0, 0], k * 4);
    }
  }
  return opts.filterLowQuality ? pruneLowQuality(cloud) : cloud;
}

/** Drops splats of low opacity (< 0.2) or negligible size (< a quarter of the median); returns a new cloud. */
export function pruneLowQuality(c: SplatCloud): SplatCloud {
  const sizes = Array.from({ length: c.count }, (_, i) => c.scales[i * 3] + c.scales[i * 3 + 1]).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)] ?? 0;
  const keep: number[] = [];
  for (let i = 0; i < c.count; i++) {
    const opacity = 1 / (1 + Math.exp(-c.opacities[i]));
    if (opacity >= 0.2 && c.scales[i * 3] + c.scales[i * 3 + 1] >= median + 2 * Math.log(0.25)) keep.push(i);
  }
  const pick = <T extends Float32Array | Uint16Array>(src: T, k: number): T => {
    const out = new (src.constructor as new (n: number) => T)(keep.length * k);
    keep.forEach((i, j) => out.set(src.subarray(i * k, i * k + k), j * k));
    return out;
  };
  return {
    ...c,
    count: keep.length,
    positions: pick(c.positions, 3),
    scales: pick(c.scales, 3),
    rotations: pick(c.rotations, 4),
    opacities: pick(c.opacities, 1),
    dc: pick(c.dc, 3),
    jointIndices: pick(c.jointIndices, 4),
    jointWeights: pick(c.jointWeights, 4),
  };
}
