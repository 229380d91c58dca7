/**
 * Linear blend skinning in 2D: each vertex is the weighted sum of its bones' affine transforms
 * applied to its rest position. Weights come from the rig (region-restricted, so limbs are rigid and
 * only joint bands blend).
 */
import type { Rig } from '../rig/build-rig.js';
import { AFFINE } from './retarget.js';

export function deform(rig: Rig, aff: Float64Array, out: Float32Array): void {
  const vs = rig.vertices,
    bi = rig.boneIndices,
    bw = rig.boneWeights,
    n = rig.influences;
  const nv = vs.length / 2;
  for (let v = 0; v < nv; v++) {
    const x = vs[v * 2],
      y = vs[v * 2 + 1];
    let ox = 0,
      oy = 0;
    for (let k = 0; k < n; k++) {
      const w = bw[v * n + k];
      if (w === 0) continue;
      const o = bi[v * n + k] * AFFINE;
      ox += w * (aff[o] * x + aff[o + 2] * y + aff[o + 4]);
      oy += w * (aff[o + 1] * x + aff[o + 3] * y + aff[o + 5]);
    }
    out[v * 2] = ox;
    out[v * 2 + 1] = oy;
  }
}
