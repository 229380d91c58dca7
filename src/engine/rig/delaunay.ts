/**
 * Bowyer–Watson Delaunay triangulation. Quadratic in the worst case, which is fine for the
 * ~1–3 k points of a character mesh (tens of milliseconds). Points are inserted in a spatially
 * sorted order so the search for the containing triangle's neighbourhood stays cheap in practice.
 */

/** Returns triangle vertex indices (counter-clockwise in a y-down frame is not guaranteed). */
export function delaunay(xs: Float64Array, ys: Float64Array): Uint32Array {
  const n = xs.length;
  if (n < 3) return new Uint32Array(0);
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, xs[i]);
    maxX = Math.max(maxX, xs[i]);
    minY = Math.min(minY, ys[i]);
    maxY = Math.max(maxY, ys[i]);
  }
  const span = Math.max(maxX - minX, maxY - minY, 1) * 20;
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  // Coordinates with the super-triangle appended at indices n, n+1, n+2.
  const px = new Float64Array(n + 3);
  const py = new Float64Array(n + 3);
  px.set(xs);
  py.set(ys);
  px[n] = cx - span;
  py[n] = cy - span;
  px[n + 1] = cx + span;
  py[n + 1] = cy - span;
  px[n + 2] = cx;
  py[n + 2] = cy + span;

  // Triangles as parallel arrays with cached circumcircles; dead ones are compacted lazily.
  let a: number[] = [n],
    b: number[] = [n + 1],
    c: number[] = [n + 2];
  let ccx: number[] = [],
    ccy: number[] = [],
    cr2: number[] = [];
  const circum = (i: number, j: number, k: number): [number, number, number] => {
    const ax = px[i],
      ay = py[i],
      bx = px[j],
      by = py[j],
      qx = px[k],
      qy = py[k];
    const d = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by));
    if (Math.abs(d) < 1e-12) return [0, 0, Infinity];
    const a2 = ax * ax + ay * ay,
      b2 = bx * bx + by * by,
      c2 = qx * qx + qy * qy;
    const ux = (a2 * (by - qy) + b2 * (qy - ay) + c2 * (ay - by)) / d;
    const uy = (a2 * (qx - bx) + b2 * (ax - qx) + c2 * (bx - ax)) / d;
    return [ux, uy, (ax - ux) * (ax - ux) + (ay - uy) * (ay - uy)];
  };
  {
    const [ux, uy, r] = circum(n, n + 1, n + 2);
    ccx.push(ux);
    ccy.push(uy);
    cr2.push(r);
  }

  // Insert in row-major bucket order for locality.
  const order = Array.from({ length: n }, (_, i) => i);
  const cell = Math.max(maxX - minX, maxY - minY, 1) / 32;
  order.sort((i, j) => {
    const ri = Math.floor((ys[i] - minY) / cell),
      rj = Math.floor((ys[j] - minY) / cell);
    if (ri !== rj) return ri - rj;
    return ri % 2 === 0 ? xs[i] - xs[j] : xs[j] - xs[i];
  });

  const edges = new Map<number, number>();
  const key = (i: number, j: number): number => (i < j ? i * (n + 3) + j : j * (n + 3) + i);
  for (const p of order) {
    const x = px[p],
      y = py[p];
    edges.clear();
    const na: number[] = [],
      nb: number[] = [],
      nc: number[] = [];
    const nx: number[] = [],
      ny: number[] = [],
      nr: number[] = [];
    for (let t = 0; t < a.length; t++) {
      const dx = x - ccx[t],
        dy = y - ccy[t];
      if (dx * dx + dy * dy < cr2[t]) {
        // Bad triangle: its edges go to the cavity boundary unless shared with another bad one.
        for (const [i, j] of [
          [a[t], b[t]],
          [b[t], c[t]],
          [c[t], a[t]],
        ] as const) {
          const k = key(i, j);
          if (edges.has(k)) edges.set(k, -1);
          else edges.set(k, i * (n + 3) + j);
        }
      } else {
        na.push(a[t]);
        nb.push(b[t]);
        nc.push(c[t]);
        nx.push(ccx[t]);
        ny.push(ccy[t]);
        nr.push(cr2[t]);
      }
    }
    for (const v of edges.values()) {
      if (v < 0) continue;
      const i = Math.floor(v / (n + 3)),
        j = v % (n + 3);
      const [ux, uy, r] = circum(i, j, p);
      na.push(i);
      nb.push(j);
      nc.push(p);
      nx.push(ux);
      ny.push(uy);
      nr.push(r);
    }
    a = na;
    b = nb;
    c = nc;
    ccx = nx;
    ccy = ny;
    cr2 = nr;
  }
  const out: number[] = [];
  for (let t = 0; t < a.length; t++) {
    if (a[t] >= n || b[t] >= n || c[t] >= n) continue;
    out.push(a[t], b[t], c[t]);
  }
  return Uint32Array.from(out);
}
