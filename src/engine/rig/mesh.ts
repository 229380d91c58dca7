/**
 * Silhouette mesh: points along the outline of a slightly dilated mask (so the texture's soft alpha
 * edge lies inside the mesh and provides the anti-aliased silhouette), interior points on a grid,
 * Delaunay triangulation, then every triangle that would bridge a gap (between limbs, or across a
 * hole) is dropped by testing points along its edges and inside it against the dilated mask.
 */
import { delaunay } from './delaunay.js';
import { inside, type Mask } from './mask.js';

export interface MeshResult {
  /** Vertex coordinates in working pixels. */
  xs: Float64Array;
  ys: Float64Array;
  triangles: Uint32Array;
}

/**
 * Outline pixels of `m` (inside pixels with an outside 4-neighbour), thinned so no two kept points
 * are closer than `spacing`: the same thing contour tracing plus resampling gives, but robust to
 * holes and several components without ordering the contours.
 */
function outlinePoints(m: Mask, spacing: number): Array<[number, number]> {
  const { w, h, data } = m;
  const cs = spacing;
  const gw = Math.ceil(w / cs) + 1;
  const gh = Math.ceil(h / cs) + 1;
  const grid = new Map<number, Array<[number, number]>>();
  const out: Array<[number, number]> = [];
  const isIn = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < w && y < h && data[y * w + x] === 1;
  const s2 = spacing * spacing;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!data[y * w + x]) continue;
      if (isIn(x - 1, y) && isIn(x + 1, y) && isIn(x, y - 1) && isIn(x, y + 1)) continue;
      // Place the point on the outer pixel edge so the mesh covers the whole outline pixel.
      let ox = x + 0.5,
        oy = y + 0.5;
      if (!isIn(x - 1, y)) ox -= 0.5;
      if (!isIn(x + 1, y)) ox += 0.5;
      if (!isIn(x, y - 1)) oy -= 0.5;
      if (!isIn(x, y + 1)) oy += 0.5;
      const gx = Math.floor(ox / cs),
        gy = Math.floor(oy / cs);
      let ok = true;
      for (let dy = -1; dy <= 1 && ok; dy++) {
        for (let dx = -1; dx <= 1 && ok; dx++) {
          const list = grid.get((gy + dy) * gw + gx + dx);
          if (!list) continue;
          for (const [px, py] of list) {
            if ((px - ox) ** 2 + (py - oy) ** 2 < s2) {
              ok = false;
              break;
            }
          }
        }
      }
      if (!ok) continue;
      const k = gy * gw + gx;
      const list = grid.get(k);
      if (list) list.push([ox, oy]);
      else grid.set(k, [[ox, oy]]);
      out.push([ox, oy]);
    }
  }
  void gh;
  return out;
}

/**
 * @param dil mask already dilated by a couple of pixels
 * @param dist distance of each `dil` pixel to the outside of `dil`
 * @param edgeSpacing spacing of outline points (working px)
 * @param gridSpacing spacing of interior points (working px)
 * @param probeMask `dil` dilated by one more pixel: triangle edges are tested against it, because a
 *   chord between two outline points on a diagonal pixel staircase runs up to ~0.7 px outside `dil`
 */
export function buildMesh(dil: Mask, dist: Float32Array, edgeSpacing: number, gridSpacing: number, probeMask: Mask): MeshResult {
  const pts = outlinePoints(dil, edgeSpacing);
  // Interior grid, staggered rows (near-equilateral triangles), away from the outline so no
  // slivers form between grid and outline points.
  const rowH = gridSpacing * 0.866;
  let row = 0;
  for (let y = rowH / 2; y < dil.h; y += rowH, row++) {
    for (let x = (row % 2 ? gridSpacing / 2 : 0) + gridSpacing / 4; x < dil.w; x += gridSpacing) {
      const ix = Math.floor(x),
        iy = Math.floor(y);
      if (dist[iy * dil.w + ix] > gridSpacing * 0.45) pts.push([x, y]);
    }
  }
  const xs = new Float64Array(pts.length);
  const ys = new Float64Array(pts.length);
  // Deterministic tiny jitter breaks the co-circular grid configurations Bowyer–Watson dislikes.
  for (let i = 0; i < pts.length; i++) {
    const j = Math.sin(i * 12.9898) * 43758.5453;
    const f = j - Math.floor(j);
    xs[i] = pts[i][0] + (f - 0.5) * 1e-3;
    ys[i] = pts[i][1] + (((f * 7.31) % 1) - 0.5) * 1e-3;
  }
  const tris = delaunay(xs, ys);
  const kept: number[] = [];
  // A triangle is kept when its centroid and samples along each edge (strictly inside the edge,
  // since outline vertices sit on the pixel border) fall in the dilated mask.
  const probe = (x: number, y: number): boolean => inside(probeMask, x, y);
  for (let t = 0; t < tris.length; t += 3) {
    const i = tris[t],
      j = tris[t + 1],
      k = tris[t + 2];
    const cx = (xs[i] + xs[j] + xs[k]) / 3,
      cy = (ys[i] + ys[j] + ys[k]) / 3;
    if (!inside(probeMask, cx, cy)) continue;
    let ok = true;
    for (const [p, q] of [
      [i, j],
      [j, k],
      [k, i],
    ] as const) {
      const len = Math.hypot(xs[q] - xs[p], ys[q] - ys[p]);
      const steps = Math.max(2, Math.ceil(len / 1.5));
      for (let s = 1; s < steps && ok; s++) {
        const u = s / steps;
        // Nudge toward the centroid: an edge running exactly along the outline must not count as
        // leaving the mask.
        let x = xs[p] + (xs[q] - xs[p]) * u,
          y = ys[p] + (ys[q] - ys[p]) * u;
        const dx = cx - x,
          dy = cy - y,
          dl = Math.hypot(dx, dy) || 1;
        x += (dx / dl) * 0.6;
        y += (dy / dl) * 0.6;
        if (!probe(x, y)) ok = false;
      }
      if (!ok) break;
    }
    if (ok) kept.push(i, j, k);
  }
  return compact(xs, ys, Uint32Array.from(kept));
}

/** Drops vertices no kept triangle references. */
function compact(xs: Float64Array, ys: Float64Array, tris: Uint32Array): MeshResult {
  const map = new Int32Array(xs.length).fill(-1);
  let n = 0;
  for (const v of tris) if (map[v] < 0) map[v] = n++;
  const nx = new Float64Array(n),
    ny = new Float64Array(n);
  for (let i = 0; i < xs.length; i++) {
    if (map[i] >= 0) {
      nx[map[i]] = xs[i];
      ny[map[i]] = ys[i];
    }
  }
  const nt = new Uint32Array(tris.length);
  for (let i = 0; i < tris.length; i++) nt[i] = map[tris[i]];
  return { xs: nx, ys: ny, triangles: nt };
}
