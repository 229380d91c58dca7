/**
 * Textured-triangle rasterizer in plain TypeScript.
 *
 * - Scanline traversal with a top-left fill convention: a pixel centre on an edge shared by two
 *   triangles is drawn by exactly one of them, so the mesh has no seams and no double blending.
 * - Edge intercepts are computed from the edge's endpoints ordered by y, so both triangles sharing an
 *   edge compute bit-identical intercepts.
 * - Anti-aliasing comes from the texture: the mesh extends a little beyond the character's alpha
 *   mask, so the silhouette is the bilinearly filtered alpha edge, never a hard triangle edge.
 * - Texture: premultiplied RGBA packed in an Int32Array (little-endian: r | g<<8 | b<<16 | a<<24)
 *   with a transparent border of TEXTURE_PAD texels, which makes bilinear taps need no clamping.
 * - Compositing: premultiplied "over" into an RGBA frame whose alpha channel accumulates coverage
 *   (the mask video for transparent renders).
 */

export const TEXTURE_PAD = 2;

export interface Texture {
  /** Int32, not Uint32: texels with alpha >= 128 would otherwise read as heap doubles in V8. */
  data: Int32Array;
  /** Padded size. */
  width: number;
  height: number;
}

/** Packs straight-alpha RGBA into a padded premultiplied texture. */
export function makeTexture(rgba: Uint8Array, w: number, h: number): Texture {
  const pw = w + TEXTURE_PAD * 2,
    ph = h + TEXTURE_PAD * 2;
  const data = new Int32Array(pw * ph);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 4;
      const a = rgba[s + 3];
      if (a === 0) continue;
      const r = Math.round((rgba[s] * a) / 255),
        g = Math.round((rgba[s + 1] * a) / 255),
        b = Math.round((rgba[s + 2] * a) / 255);
      data[(y + TEXTURE_PAD) * pw + x + TEXTURE_PAD] = r | (g << 8) | (b << 16) | (a << 24);
    }
  }
  return { data, width: pw, height: ph };
}

export interface DrawBounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/**
 * Draws `triangles` in order. `pos` are output-pixel vertex positions, `uv` padded texel
 * coordinates (flat x,y pairs). Returns nothing; grows `bounds` to include every drawn pixel.
 */
export function drawTriangles(
  dst: Uint8Array,
  W: number,
  H: number,
  pos: Float32Array,
  uv: Float32Array,
  triangles: Uint32Array,
  tex: Texture,
  bounds: DrawBounds,
  clip: Uint8Array | null = null,
  labels: Uint8Array | null = null,
): void {
  const T = tex.data,
    tw = tex.width;
  const umax = tex.width - 1.001,
    vmax = tex.height - 1.001;
  for (let t = 0; t < triangles.length; t += 3) {
    // Seam triangles draw only texels labelled with their own chain (or unlabelled edge texels).
    const cc = clip !== null && labels !== null ? clip[t / 3] : 0;
    let i0 = triangles[t],
      i1 = triangles[t + 1],
      i2 = triangles[t + 2];
    // Sort by y (then x) so edges are always evaluated from their upper endpoint.
    let x0 = pos[i0 * 2],
      y0 = pos[i0 * 2 + 1];
    let x1 = pos[i1 * 2],
      y1 = pos[i1 * 2 + 1];
    let x2 = pos[i2 * 2],
      y2 = pos[i2 * 2 + 1];
    let tmp: number;
    if (y1 < y0 || (y1 === y0 && x1 < x0)) {
      tmp = i0;
      i0 = i1;
      i1 = tmp;
      tmp = x0;
      x0 = x1;
      x1 = tmp;
      tmp = y0;
      y0 = y1;
      y1 = tmp;
    }
    if (y2 < y1 || (y2 === y1 && x2 < x1)) {
      tmp = i1;
      i1 = i2;
      i2 = tmp;
      tmp = x1;
      x1 = x2;
      x2 = tmp;
      tmp = y1;
      y1 = y2;
      y2 = tmp;
    }
    if (y1 < y0 || (y1 === y0 && x1 < x0)) {
      tmp = i0;
      i0 = i1;
      i1 = tmp;
      tmp = x0;
      x0 = x1;
      x1 = tmp;
      tmp = y0;
      y0 = y1;
      y1 = tmp;
    }
    const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    if (area === 0 || !(area === area)) continue;
    // Affine texture-coordinate gradients (plane equations).
    const u0 = uv[i0 * 2],
      v0 = uv[i0 * 2 + 1];
    const du1 = uv[i1 * 2] - u0,
      dv1 = uv[i1 * 2 + 1] - v0;
    const du2 = uv[i2 * 2] - u0,
      dv2 = uv[i2 * 2 + 1] - v0;
    const ex1 = x1 - x0,
      ey1 = y1 - y0,
      ex2 = x2 - x0,
      ey2 = y2 - y0;
    const inv = 1 / area;
    const dudx = (du1 * ey2 - du2 * ey1) * inv,
      dudy = (du2 * ex1 - du1 * ex2) * inv;
    const dvdx = (dv1 * ey2 - dv2 * ey1) * inv,
      dvdy = (dv2 * ex1 - dv1 * ex2) * inv;
    // Rows whose centre lies in [y0, y2).
    let rowStart = Math.ceil(y0 - 0.5),
      rowEnd = Math.ceil(y2 - 0.5);
    if (rowStart < 0) rowStart = 0;
    if (rowEnd > H) rowEnd = H;
    // The long edge 0→2 is on the right when vertex 1 lies left of it (area < 0 in y-down terms).
    const longRight = area < 0;
    for (let row = rowStart; row < rowEnd; row++) {
      const yc = row + 0.5;
      const xl0 = x0 + ((yc - y0) * (x2 - x0)) / (y2 - y0);
      let xs: number;
      if (yc < y1) xs = x0 + ((yc - y0) * (x1 - x0)) / (y1 - y0);
      else if (y2 > y1) xs = x1 + ((yc - y1) * (x2 - x1)) / (y2 - y1);
      else continue;
      const left = longRight ? xs : xl0,
        right = longRight ? xl0 : xs;
      let cs = Math.ceil(left - 0.5),
        ce = Math.ceil(right - 0.5);
      if (cs < 0) cs = 0;
      if (ce > W) ce = W;
      if (cs >= ce) continue;
      if (cs < bounds.minX) bounds.minX = cs;
      if (ce > bounds.maxX) bounds.maxX = ce;
      if (row < bounds.minY) bounds.minY = row;
      if (row + 1 > bounds.maxY) bounds.maxY = row + 1;
      let u = u0 + (cs + 0.5 - x0) * dudx + (yc - y0) * dudy;
      let v = v0 + (cs + 0.5 - x0) * dvdx + (yc - y0) * dvdy;
      let o = (row * W + cs) * 4;
      for (let col = cs; col < ce; col++, u += dudx, v += dvdx, o += 4) {
        // Texel centres sit at integer + 0.5; clamp keeps float drift on the hull inside the pad.
        let fu = u - 0.5,
          fv = v - 0.5;
        if (fu < 0) fu = 0;
        else if (fu > umax) fu = umax;
        if (fv < 0) fv = 0;
        else if (fv > vmax) fv = vmax;
        const tx = fu | 0,
          ty = fv | 0;
        const k = ty * tw + tx;
        if (cc !== 0) {
          const lab = labels![((fv + 0.5) | 0) * tw + ((fu + 0.5) | 0)];
          if (lab !== 0 && lab !== cc) continue;
        }
        const p00 = T[k],
          p10 = T[k + 1],
          p01 = T[k + tw],
          p11 = T[k + tw + 1];
        if ((p00 | p10 | p01 | p11) === 0) continue;
        const ax = fu - tx,
          ay = fv - ty;
        const w11 = ax * ay,
          w10 = ax - w11,
          w01 = ay - w11,
          w00 = 1 - ax - ay + w11;
        if ((p00 & p10 & p01 & p11) >>> 24 === 255) {
          // Fully opaque neighbourhood (most of a figure): no alpha maths, no blend.
          dst[o] = (p00 & 255) * w00 + (p10 & 255) * w10 + (p01 & 255) * w01 + (p11 & 255) * w11 + 0.5;
          dst[o + 1] = ((p00 >>> 8) & 255) * w00 + ((p10 >>> 8) & 255) * w10 + ((p01 >>> 8) & 255) * w01 + ((p11 >>> 8) & 255) * w11 + 0.5;
          dst[o + 2] =
            ((p00 >>> 16) & 255) * w00 + ((p10 >>> 16) & 255) * w10 + ((p01 >>> 16) & 255) * w01 + ((p11 >>> 16) & 255) * w11 + 0.5;
          dst[o + 3] = 255;
          continue;
        }
        const a = (p00 >>> 24) * w00 + (p10 >>> 24) * w10 + (p01 >>> 24) * w01 + (p11 >>> 24) * w11;
        if (a < 0.5) continue;
        const r = (p00 & 255) * w00 + (p10 & 255) * w10 + (p01 & 255) * w01 + (p11 & 255) * w11;
        const g = ((p00 >>> 8) & 255) * w00 + ((p10 >>> 8) & 255) * w10 + ((p01 >>> 8) & 255) * w01 + ((p11 >>> 8) & 255) * w11;
        const b = ((p00 >>> 16) & 255) * w00 + ((p10 >>> 16) & 255) * w10 + ((p01 >>> 16) & 255) * w01 + ((p11 >>> 16) & 255) * w11;
        // Premultiplied inputs keep every sum within 0..255; +0.5 rounds.
        if (a >= 254.5) {
          dst[o] = r + 0.5;
          dst[o + 1] = g + 0.5;
          dst[o + 2] = b + 0.5;
          dst[o + 3] = 255;
        } else {
          const ia = 1 - a * (1 / 255);
          dst[o] = r + dst[o] * ia + 0.5;
          dst[o + 1] = g + dst[o + 1] * ia + 0.5;
          dst[o + 2] = b + dst[o + 2] * ia + 0.5;
          dst[o + 3] = a + dst[o + 3] * ia + 0.5;
        }
      }
    }
  }
}
