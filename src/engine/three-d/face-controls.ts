/**
 * Face controls of the `expression` and `full` joint sets, driven by the face mesh (468 landmarks,
 * vision/face-landmarks.ts) on a face crop taken from the stored 2D track's head points.
 *
 * Per measured frame, five measures in units of the inter-ocular distance (so they do not depend on
 * the face's size in the frame): mouth opening (inner lips), each eye's opening (lid gap over eye
 * width), each brow's height above its eye, mouth width. The controls they drive:
 * - `FACIAL_C_Jaw` rotates open about its X axis (up to 20 degrees) with the mouth opening;
 *   `FACIAL_C_Chin`, the lower lips and the tongue hang from it;
 * - `FACIAL_<side>_EyelidUpper` / `EyelidLower` close (translate down / up) as the eye's opening
 *   drops below its open level (the clip's 80th percentile);
 * - `FACIAL_<side>_BrowInner/Mid/Outer` move up and down with the brow's height relative to the
 *   clip's median (the neutral brow);
 * - `FACIAL_<side>_LipCorner` move out and in with the mouth width relative to the clip's median.
 * Translated controls are controls, not bones: their offset from the parent is the animation.
 */
import type { MotionTrack } from '../types.js';
import type { RotatedRegion } from '../vision/blazepose-world.js';
import { runFaceMesh } from '../vision/face-landmarks.js';
import { add, qmul, qrotate, type Quat, type Vec3 } from './math3d.js';
import type { SkeletalClip } from './motion3d.js';
import { restOffset } from './skeletons.js';

export interface FaceSample {
  mouthOpen: number;
  eye: [l: number, r: number];
  brow: [l: number, r: number];
  mouthWidth: number;
}

const SEEN = 0.3;
const MIN_FACE = 0.5;
/** Inter-ocular distance of the skeleton's face, metres (its eyes sit at ±0.032). */
const IOD_M = 0.064;

const dist = (p: Array<[number, number]>, a: number, b: number) => Math.hypot(p[a][0] - p[b][0], p[a][1] - p[b][1]);

/** A face crop around the head's points, upright along the eye line; null when the face is not seen. */
export function faceRegion(body: MotionTrack['frames'][number]['body'], sx: number, sy: number): RotatedRegion | null {
  const k = body.map((p) => ({ x: p.x * sx, y: p.y * sy, score: p.score }));
  if (k[0].score < SEEN || k[1].score < SEEN || k[2].score < SEEN) return null;
  const ex = (k[1].x + k[2].x) / 2,
    ey = (k[1].y + k[2].y) / 2;
  const ears = k[3].score >= SEEN && k[4].score >= SEEN ? Math.hypot(k[3].x - k[4].x, k[3].y - k[4].y) : 0;
  const eyes = Math.hypot(k[1].x - k[2].x, k[1].y - k[2].y);
  const shoulders = Math.hypot(k[5].x - k[6].x, k[5].y - k[6].y);
  const width = Math.max(ears, eyes * 2.2, shoulders * 0.45);
  return {
    cx: (ex + k[0].x) / 2,
    cy: (ey + k[0].y) / 2,
    size: Math.max(8, width * 1.7),
    angle: Math.atan2(k[1].y - k[2].y, k[1].x - k[2].x),
  };
}

/** The five measures from one mesh (MediaPipe face-mesh indices; "left" is the person's left). */
export function faceSample(p: Array<[number, number]>): FaceSample {
  const iod = Math.max(1e-6, dist(p, 33, 263));
  const eyeL = dist(p, 386, 374) / Math.max(1e-6, dist(p, 362, 263));
  const eyeR = dist(p, 159, 145) / Math.max(1e-6, dist(p, 33, 133));
  // Image y points down: a brow above its eye has the smaller y.
  const browL = ((p[386][1] + p[374][1]) / 2 - p[334][1]) / iod;
  const browR = ((p[159][1] + p[145][1]) / 2 - p[105][1]) / iod;
  return { mouthOpen: dist(p, 13, 14) / iod, eye: [eyeL, eyeR], brow: [browL, browR], mouthWidth: dist(p, 61, 291) / iod };
}

/** Runs the face mesh on the measured frames of a decode pass (called by world-track.ts per frame). */
export async function measureFace(
  frame: Uint8Array,
  width: number,
  height: number,
  region: RotatedRegion | null,
): Promise<FaceSample | null> {
  if (!region) return null;
  const mesh = await runFaceMesh(frame, width, height, region);
  return mesh.score >= MIN_FACE ? faceSample(mesh.points) : null;
}

/** Linear interpolation of the samples over the frames without one (held at the ends). */
export function interpolateFaces(samples: Array<FaceSample | null>): Array<FaceSample | null> {
  const known = samples.flatMap((s, i) => (s ? [i] : []));
  if (known.length === 0) return samples;
  const out: Array<FaceSample | null> = new Array(samples.length);
  let k = 0;
  for (let i = 0; i < samples.length; i++) {
    while (k + 1 < known.length && known[k + 1] <= i) k++;
    const a = known[k],
      b = known[Math.min(known.length - 1, k + 1)];
    if (samples[i] || i <= a || b === a) out[i] = samples[i] ?? samples[i <= a ? a : b];
    else {
      const u = (i - a) / (b - a);
      const A = samples[a]!,
        B = samples[b]!;
      const l = (x: number, y: number) => x + (y - x) * u;
      out[i] = {
        mouthOpen: l(A.mouthOpen, B.mouthOpen),
        eye: [l(A.eye[0], B.eye[0]), l(A.eye[1], B.eye[1])],
        brow: [l(A.brow[0], B.brow[0]), l(A.brow[1], B.brow[1])],
        mouthWidth: l(A.mouthWidth, B.mouthWidth),
      };
    }
  }
  return out;
}

function quantile(v: number[], q: number): number {
  if (v.length === 0) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((s.length - 1) * q))];
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * Writes the face controls into a MetaHuman clip (in place): the jaw's local rotation, the
 * translated controls' offsets, and the world positions of the face's joints.
 */
export function applyFaceControls(clip: SkeletalClip, faces: Array<FaceSample | null>): void {
  const sk = clip.skeleton;
  const index = new Map(sk.joints.map((j, i) => [j.name, i]));
  const root = index.get('FACIAL_C_FacialRoot');
  const jaw = index.get('FACIAL_C_Jaw');
  if (root === undefined || jaw === undefined) return;
  const seen = faces.filter((f): f is FaceSample => f !== null);
  if (seen.length === 0) return;
  const eyeOpen = [0, 1].map((s) =>
    quantile(
      seen.map((f) => f.eye[s]),
      0.8,
    ),
  );
  const browRest = [0, 1].map((s) =>
    quantile(
      seen.map((f) => f.brow[s]),
      0.5,
    ),
  );
  const widthRest = quantile(
    seen.map((f) => f.mouthWidth),
    0.5,
  );
  const n = sk.joints.length;
  const deltas = new Map<number, Vec3>();
  // The face subtree: FacialRoot and everything under it (parents come before children).
  const inFace = new Uint8Array(n);
  inFace[root] = 1;
  for (let i = root + 1; i < n; i++) if (sk.joints[i].parent >= 0 && inFace[sk.joints[i].parent]) inFace[i] = 1;
  for (let t = 0; t < clip.frameCount; t++) {
    const f = faces[t];
    if (!f) continue;
    deltas.clear();
    const open = clamp((f.mouthOpen - 0.04) / 0.35, 0, 1);
    const a = (open * 20 * Math.PI) / 360;
    clip.rotations.set([Math.sin(a), 0, 0, Math.cos(a)] satisfies Quat, (t * n + jaw) * 4);
    ['L', 'R'].forEach((side, s) => {
      const sign = s === 0 ? 1 : -1;
      const close = clamp(1 - f.eye[s] / Math.max(1e-6, eyeOpen[s]), 0, 1);
      deltas.set(index.get(`FACIAL_${side}_EyelidUpper`)!, [0, -0.009 * close, 0]);
      deltas.set(index.get(`FACIAL_${side}_EyelidLower`)!, [0, 0.002 * close, 0]);
      const brow = clamp((f.brow[s] - browRest[s]) * IOD_M, -0.012, 0.012);
      for (const b of ['BrowInner', 'BrowMid', 'BrowOuter']) deltas.set(index.get(`FACIAL_${side}_${b}`)!, [0, brow, 0]);
      const wide = clamp(((f.mouthWidth - widthRest) * IOD_M) / 2, -0.01, 0.01);
      deltas.set(index.get(`FACIAL_${side}_LipCorner`)!, [sign * wide, 0, 0]);
    });
    for (const [j, d] of deltas) clip.translations.set(add(restOffset(sk, j), d), (t * n + j) * 3);
    // World positions of the face's joints from the head down (globals from the local rotations).
    const g: Quat[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const p = sk.joints[i].parent;
      const local = Array.from(clip.rotations.subarray((t * n + i) * 4, (t * n + i) * 4 + 4)) as Quat;
      g[i] = p < 0 ? local : qmul(g[p], local);
      if (!inFace[i]) continue;
      const tr = Array.from(clip.translations.subarray((t * n + i) * 3, (t * n + i) * 3 + 3)) as Vec3;
      const pw = Array.from(clip.world.subarray((t * n + p) * 3, (t * n + p) * 3 + 3)) as Vec3;
      clip.world.set(add(pw, qrotate(g[p], tr)), (t * n + i) * 3);
    }
  }
}

/** Gaussian smoothing of the measures over time (sigma in frames), as the body's points get. */
export function smoothFaces(faces: Array<FaceSample | null>, sigma: number): Array<FaceSample | null> {
  if (sigma <= 0 || faces.length < 3) return faces;
  const r = Math.ceil(sigma * 2.5);
  const w = Array.from({ length: 2 * r + 1 }, (_, i) => Math.exp(-((i - r) ** 2) / (2 * sigma * sigma)));
  const flat = (f: FaceSample) => [f.mouthOpen, f.eye[0], f.eye[1], f.brow[0], f.brow[1], f.mouthWidth];
  return faces.map((f, t) => {
    if (!f) return null;
    const acc = [0, 0, 0, 0, 0, 0];
    let sw = 0;
    for (let i = -r; i <= r; i++) {
      const g = faces[t + i];
      if (!g) continue;
      flat(g).forEach((v, k) => (acc[k] += v * w[i + r]));
      sw += w[i + r];
    }
    const v = acc.map((x) => x / sw);
    return { mouthOpen: v[0], eye: [v[1], v[2]], brow: [v[3], v[4]], mouthWidth: v[5] };
  });
}
