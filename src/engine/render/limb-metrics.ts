/**
 * Whether a limb keeps its drawn shape as it moves (issue 10: "rigid along the bone, bending only at
 * the joint"). A bone's region (the rig's triangles it dominates) is laid out on a grid twice: at rest,
 * and as posed, carried back into the rest picture by the inverse of that bone's own transform. A bone
 * that moves rigidly maps back onto its rest region (overlap 1, area 1); where blending at a joint or a
 * seam bends, squeezes or stretches the region, the two differ. The bench and the tests use it; it never
 * steers the render.
 */
import type { Rig } from '../rig/build-rig.js';
import type { Point } from '../rig/skeleton.js';
import { AFFINE } from './retarget.js';

export interface LimbShape {
  /** Intersection over union of the rest region and the posed one carried back (1 = kept exactly). */
  overlap: number;
  /** Posed area carried back over rest area. */
  area: number;
}

/** Fills every grid cell whose centre lies in the triangle (cell size `cell` px). */
function fillTriangle(grid: Uint8Array, gw: number, gh: number, cell: number, p: number[]): void {
  const [x0, y0, x1, y1, x2, y2] = p.map((v) => v / cell);
  const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  if (Math.abs(area) < 1e-9) return;
  const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2))),
    maxX = Math.min(gw - 1, Math.ceil(Math.max(x0, x1, x2)));
  const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2))),
    maxY = Math.min(gh - 1, Math.ceil(Math.max(y0, y1, y2)));
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const px = x + 0.5,
        py = y + 0.5;
      const a = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area;
      const b = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area;
      if (a >= 0 && b >= 0 && a + b <= 1) grid[y * gw + x] = 1;
    }
  }
}

/**
 * Shape kept by the union of `bones` (e.g. an upper arm and its forearm, each measured in its own
 * frame). `posed`: deformed vertices (deform.ts, output px); `aff`: the frame's bone affines.
 * `rigidScale` (the retargeter's output px per texture px): carry the posed region back by the bone's
 * turn and that uniform scale only, about its pivot, so a part squashed along its bone (foreshortened)
 * counts as changed; without it the bone's whole affine is undone and only blending shows.
 */
export function limbShape(rig: Rig, posed: Float32Array, aff: Float64Array, bones: number[], cell = 2, rigidScale?: number): LimbShape {
  const gw = Math.ceil(rig.textureWidth / cell) + 1,
    gh = Math.ceil(rig.textureHeight / cell) + 1;
  let inter = 0,
    union = 0,
    rest = 0,
    back = 0;
  for (const b of bones) {
    const o = b * AFFINE;
    let [a, bb, c, d, e, f] = [aff[o], aff[o + 1], aff[o + 2], aff[o + 3], aff[o + 4], aff[o + 5]];
    if (rigidScale) {
      // The affine's rotation (polar decomposition of its 2x2 part) times the uniform scale, fixed at the
      // bone's pivot where the affine puts it.
      const piv = rig.joints[rig.bones[b].from];
      const px = a * piv.x + c * piv.y + e,
        py = bb * piv.x + d * piv.y + f;
      const t = Math.atan2(bb - c, a + d);
      [a, bb, c, d] = [Math.cos(t) * rigidScale, Math.sin(t) * rigidScale, -Math.sin(t) * rigidScale, Math.cos(t) * rigidScale];
      e = px - (a * piv.x + c * piv.y);
      f = py - (bb * piv.x + d * piv.y);
    }
    const det = a * d - bb * c;
    if (Math.abs(det) < 1e-12) continue;
    const R = new Uint8Array(gw * gh),
      P = new Uint8Array(gw * gh);
    const t3 = rig.triangles;
    for (let t = 0; t < rig.triangleBones.length; t++) {
      if (rig.triangleBones[t] !== b) continue;
      const r: number[] = [],
        p: number[] = [];
      for (let k = 0; k < 3; k++) {
        const v = t3[t * 3 + k];
        r.push(rig.vertices[v * 2], rig.vertices[v * 2 + 1]);
        const x = posed[v * 2] - e,
          y = posed[v * 2 + 1] - f;
        p.push((d * x - c * y) / det, (-bb * x + a * y) / det);
      }
      fillTriangle(R, gw, gh, cell, r);
      fillTriangle(P, gw, gh, cell, p);
    }
    for (let i = 0; i < R.length; i++) {
      rest += R[i];
      back += P[i];
      if (R[i] && P[i]) inter++;
      if (R[i] || P[i]) union++;
    }
  }
  return { overlap: union ? inter / union : 1, area: rest ? back / rest : 1 };
}

/** Change of the angle at joint `j` between rest and posed, degrees: `from`–`j`–`to` (RIG_JOINTS indices). */
export function jointTurn(rest: Point[], posed: Point[], from: number, j: number, to: number): number {
  const ang = (p: Point[]): number => Math.atan2(p[to].y - p[j].y, p[to].x - p[j].x) - Math.atan2(p[j].y - p[from].y, p[j].x - p[from].x);
  let d = ang(posed) - ang(rest);
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return (Math.abs(d) * 180) / Math.PI;
}
