/**
 * One progress bar for an asset with a 3D part (spec 2.2 `progress` covers all requested work): the
 * 2D job reports on 0..TWO_D_SHARE, the 3D job on TWO_D_SHARE..99 (100 is `ready`). The 3D part is
 * the longer one (a splat of a photo, a second pose model over the video).
 */
export const TWO_D_SHARE = 40;

/** Maps the 3D job's own 0..1 onto the asset's bar. */
export function threeDProgress(fraction: number): number {
  const f = Math.min(1, Math.max(0, fraction));
  return TWO_D_SHARE + f * (99 - TWO_D_SHARE);
}
