/**
 * Limbs the picture does not show. A joint taken from the silhouette's proportions (heuristic-pose.ts:
 * hands at the widest row, feet at the bottom corners) is a guess; where no limb is drawn there (a cup
 * with one arm, a blob, a snake), that limb's bones would claim a slice of the body, and the slice would
 * swing with the performer's arm or leg, torn out of the body. Such a limb is rigged rigid with the torso
 * (`CharacterAnalysis.rigidLimbs`, applied in rig/build-rig.ts).
 *
 * A limb is "there" when its end joint (wrist, ankle) stands clear of the figure's body: the body is the
 * mask opened (square window) at half the figure's own half-thickness, so thin parts (arms, legs, a tail)
 * fall away and a torso, a blob or a box stays; the end joint must lie on the mask and no body pixel
 * within a quarter of that half-thickness of it.
 */
import type { Keypoint } from '../types.js';
import { erode, open } from '../vision/mask-ops.js';

export type LimbName = 'leftArm' | 'rightArm' | 'leftLeg' | 'rightLeg';
export type JointSource = 'model' | 'heuristic' | 'skeleton';

/** COCO indices of each limb: [attach, middle, end]. */
export const LIMB_JOINTS: Record<LimbName, [number, number, number]> = {
  leftArm: [5, 7, 9],
  rightArm: [6, 8, 10],
  leftLeg: [11, 13, 15],
  rightLeg: [12, 14, 16],
};

/** Largest r whose (2r+1)^2 square fits in the mask somewhere (the figure's half-thickness). */
function halfThickness(mask: Uint8Array, w: number, h: number): number {
  let lo = 0,
    hi = Math.ceil(Math.min(w, h) / 2);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (erode(mask, w, h, mid).includes(1)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Limbs whose middle and end joints came from the proportions alone (`sources`, per COCO joint) and whose
 * end joint does not lie on a thin part of the mask standing out of the body. Mask and body at the same
 * (working) size.
 */
export function limbsNotFound(mask: Uint8Array, w: number, h: number, body: Keypoint[], sources: JointSource[]): LimbName[] {
  const guessed = (Object.keys(LIMB_JOINTS) as LimbName[]).filter((l) => {
    const [, mid, end] = LIMB_JOINTS[l];
    return sources[mid] === 'heuristic' && sources[end] === 'heuristic';
  });
  if (!guessed.length) return [];
  const r = Math.max(1, Math.round(0.5 * halfThickness(mask, w, h)));
  const core = open(mask, w, h, r);
  const clear = Math.max(1, Math.round(0.5 * r));
  const stands = (k: Keypoint): boolean => {
    const x = Math.round(k.x),
      y = Math.round(k.y);
    if (x < 0 || y < 0 || x >= w || y >= h || !mask[y * w + x]) return false;
    for (let yy = Math.max(0, y - clear); yy <= Math.min(h - 1, y + clear); yy++)
      for (let xx = Math.max(0, x - clear); xx <= Math.min(w - 1, x + clear); xx++) if (core[yy * w + xx]) return false;
    return true;
  };
  return guessed.filter((l) => !stands(body[LIMB_JOINTS[l][2]]));
}
