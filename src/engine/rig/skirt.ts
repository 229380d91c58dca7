/**
 * Skirts and dresses. Region growing gives the cloth below the hips to the nearer thigh, so when the
 * legs part the skirt splits down the middle into two flaps with a slit of background between them,
 * and the seam cutter (two chains touching) makes that slit a clean cut. Real cloth hangs from the
 * waist and is pushed out by the legs: here the skirt zone is weighted to the torso near the waist,
 * handing over gradually to the thighs towards the hem, and across the zone from one thigh to the
 * other, so it stretches as one piece; its triangles are kept out of the seam cutter.
 *
 * Detection, on the rest pose: foreground continues straight down between the thighs for at least half
 * a thigh below the hips (trousers, shorts and bare legs open a gap just below the crotch) and the
 * figure there is far wider than the hips (a flare; baggy trousers with touching legs are about as
 * wide as the hips). A straight pencil skirt is not detected and keeps the per-leg behaviour.
 */
import type { Mask } from './mask.js';
import type { Point } from './skeleton.js';

/** Rig joint indices used here (RIG_JOINTS order). */
const L_HIP = 9,
  L_KNEE = 10,
  L_ANKLE = 11,
  R_HIP = 12,
  R_KNEE = 13,
  R_ANKLE = 14;
/** Bone indices (BONES order). */
const TORSO = 0,
  L_THIGH = 6,
  L_SHIN = 7,
  R_THIGH = 8,
  R_SHIN = 9;

/** Regions (torso, thighs) whose points inside a skirt zone take the skirt's weights; arms keep theirs. */
export const SKIRT_REGIONS: ReadonlySet<number> = new Set([TORSO, L_THIGH, L_SHIN, R_THIGH, R_SHIN]);
/** Torso, thighs and shins: the parts skirt cloth may join, so triangles between them are never cut. */
export const SKIRT_PARTS: ReadonlySet<number> = new Set([TORSO, L_THIGH, L_THIGH + 1, R_THIGH, R_THIGH + 1]);

/** Continuous cloth between the legs, in thigh lengths below the hip line, from which it is a skirt. */
const MIN_DEPTH = 0.5;
/** Width of the figure's row at 40% of that depth, in hip-joint spans, from which it flares. */
const MIN_FLARE = 2.4;
/**
 * Continuous cloth between the legs, in thigh lengths below the hip line, from which it is a long
 * garment whatever its flare (a straight robe, a long skirt or coat to the ground): trouser legs part
 * below the crotch, so cloth that runs on between them past the knees is not trousers.
 */
const LONG_DEPTH = 1.4;
/** Share of a knee-length hem's motion that follows the thighs (the rest stays with the torso). */
const HEM_FOLLOW = 0.8;

export interface SkirtZone {
  /** Hip line and hem, y in mask pixels. */
  top: number;
  hem: number;
  lHip: Point;
  lKnee: Point;
  lAnkle: Point;
  rHip: Point;
  rKnee: Point;
  rAnkle: Point;
  /** Evidence, for logs and tests. */
  depth: number;
  flare: number;
}

const lerp = (a: Point, b: Point, t: number): Point => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });

/** `measure`: return the zone's evidence even when it is not a skirt (diagnostics). */
export function findSkirt(m: Mask, joints: Point[], measure = false): SkirtZone | null {
  const lHip = joints[L_HIP],
    rHip = joints[R_HIP],
    lKnee = joints[L_KNEE],
    rKnee = joints[R_KNEE];
  const thigh = (Math.hypot(lKnee.x - lHip.x, lKnee.y - lHip.y) + Math.hypot(rKnee.x - rHip.x, rKnee.y - rHip.y)) / 2;
  const span = Math.hypot(lHip.x - rHip.x, lHip.y - rHip.y);
  if (!(thigh > 4) || !(span > 2)) return null;
  const hipMid = lerp(lHip, rHip, 0.5),
    kneeMid = lerp(lKnee, rKnee, 0.5);
  if (kneeMid.y <= hipMid.y) return null;
  const at = (x: number, y: number): number => {
    const ix = Math.floor(x),
      iy = Math.floor(y);
    return ix >= 0 && iy >= 0 && ix < m.w && iy < m.h ? m.data[iy * m.w + ix] : 0;
  };
  // Down the midline between the legs (following the line from the hips' to the knees' midpoint).
  const midX = (y: number): number => hipMid.x + ((kneeMid.x - hipMid.x) * (y - hipMid.y)) / (kneeMid.y - hipMid.y);
  let y = Math.ceil(hipMid.y);
  while (y < m.h && at(midX(y), y)) y++;
  const depth = (y - hipMid.y) / thigh;
  if (depth < MIN_DEPTH && !measure) return null;
  const probe = Math.round(hipMid.y + 0.4 * (y - hipMid.y));
  let x0 = Math.floor(midX(probe)),
    x1 = x0;
  while (x0 > 0 && at(x0 - 1, probe)) x0--;
  while (x1 < m.w - 1 && at(x1 + 1, probe)) x1++;
  const flare = (x1 - x0 + 1) / span;
  if (flare < MIN_FLARE && depth < LONG_DEPTH && !measure) return null;
  return { top: hipMid.y, hem: y, lHip, lKnee, lAnkle: joints[L_ANKLE], rHip, rKnee, rAnkle: joints[R_ANKLE], depth, flare };
}

const smooth = (t: number): number => {
  const u = Math.max(0, Math.min(1, t));
  return u * u * (3 - 2 * u);
};

/**
 * Weights for a point of the skirt zone: torso → thighs with depth, left ↔ right across (by where the
 * point lies between the two thigh lines at its height). Writes (bone, weight) pairs like
 * pointWeights and returns true, or returns false for a point outside the zone.
 */
export function skirtWeights(
  z: SkirtZone,
  x: number,
  y: number,
  outBones: Int32Array,
  outWeights: Float32Array,
  off: number,
  slots: number,
): boolean {
  if (y < z.top || y > z.hem) return false;
  const along = (hip: Point, knee: Point): number =>
    knee.y === hip.y ? hip.x : hip.x + ((knee.x - hip.x) * (y - hip.y)) / (knee.y - hip.y);
  const xl = along(z.lHip, z.lKnee),
    xr = along(z.rHip, z.rKnee);
  // Where the point lies from the right thigh's line (0) to the left one's (1); a figure seen from
  // behind has them the other way round, which the division handles.
  const s = Math.abs(xl - xr) < 1e-6 ? 0.5 : (x - xr) / (xl - xr);
  // Down to the knees the hem hands over to the thighs (HEM_FOLLOW at the knee line); a longer
  // garment hands over the rest below the knees, so at the ankles it moves with the legs alone and the
  // feet under its hem stay under it.
  const kneeY = (z.lKnee.y + z.rKnee.y) / 2,
    ankleY = (z.lAnkle.y + z.rAnkle.y) / 2;
  const above = smooth((y - z.top) / Math.max(1, Math.min(z.hem, kneeY) - z.top));
  const below = y > kneeY && ankleY > kneeY ? smooth((y - kneeY) / (ankleY - kneeY)) : 0;
  const legs = HEM_FOLLOW * above + (1 - HEM_FOLLOW) * below;
  const left = legs * smooth(s);
  const right = legs - left;
  // Each side from thigh to shin around its knee (a quarter of the thigh either side).
  const shinShare = (hip: Point, knee: Point): number =>
    smooth((y - knee.y + 0.25 * Math.hypot(knee.x - hip.x, knee.y - hip.y)) / (0.5 * Math.hypot(knee.x - hip.x, knee.y - hip.y) || 1));
  const ls = shinShare(z.lHip, z.lKnee),
    rs = shinShare(z.rHip, z.rKnee);
  const cand: Array<[number, number]> = [
    [TORSO, 1 - legs],
    [L_THIGH, left * (1 - ls)],
    [L_SHIN, left * ls],
    [R_THIGH, right * (1 - rs)],
    [R_SHIN, right * rs],
  ];
  cand.sort((p, q) => q[1] - p[1]);
  const used = cand.slice(0, slots);
  const sum = used.reduce((a, c) => a + c[1], 0) || 1;
  for (let k = 0; k < slots; k++) {
    outBones[off + k] = k < used.length ? used[k][0] : 0;
    outWeights[off + k] = k < used.length ? used[k][1] / sum : 0;
  }
  return true;
}
