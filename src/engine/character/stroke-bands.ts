/**
 * What a figure drawn as lines stands for on the sheet (drawing.ts, mainFigureInk): a stick figure
 * encloses little more than its head, yet its limbs reach round a body as a figure's would. See
 * docs/figures.md, "Which drawing is the figure; faint drawings".
 */
import { close, dilate, fillHoles, forEachComponent8 } from '../vision/mask-ops.js';

/**
 * Half-width of a limb's band as a share of its strokes' spread across their main direction (the
 * standard deviation of their pixels along the minor axis): a straight or zigzag line spreads little
 * across itself and stays a line, strokes reaching out in several directions (arms and legs round a
 * spine) count as the body they outline.
 */
const BAND_PER_SPREAD = 1;
/** Open strokes spreading across their direction by less than this many times their thickness are a line. */
const LINE_SPREAD = 1.5;
/**
 * A piece whose open strokes reach at least this many times the size of its largest hole (the diameter
 * of a disc of the hole's area), along an axis that runs through its holes, is a figure: a head with a
 * body and limbs hanging from it. A house's eaves, a tree's trunk under its crown or a sun's rays reach
 * less than the outline they leave; a zigzag held by a sun's ray runs across the way to the disc.
 */
const FIGURE_REACH = 2;

/**
 * The bands of the open strokes attached to an outline, each pixel labelled with the drawing (`labels`)
 * whose strokes it is a band of (0: none). An ink piece (8-connected after a 1 px closing) that encloses
 * a hole at least three strokes wide is an outline with what hangs from it: its pixels bounding the hole
 * are the outline, the rest are its open strokes (a stick figure's body and limbs under its head, a
 * sun's rays). Each connected part of those spreading in two directions (LINE_SPREAD) is grown by
 * BAND_PER_SPREAD of its own spread. A piece whose open strokes hang from its head as a figure's body and
 * limbs do (FIGURE_REACH) stands for what it spans: its convex hull, as a body drawn round them would
 * cover, instead of its parts' bands. Pieces that enclose nothing (a zigzag, a name's letters, a lone ray)
 * get no band: a line is not a body.
 */
export function strokeBands(ink: Uint8Array, w: number, h: number, labels: Int32Array): Int32Array {
  const owner = new Int32Array(w * h);
  const open = new Uint8Array(w * h);
  forEachComponent8(close(ink, w, h, 1), w, h, (members, count, b) => {
    // The piece in its box with a 1 px frame, so the frame joins the outside for the holes' fill.
    const bw = b.x1 - b.x0 + 3,
      bh = b.y1 - b.y0 + 3;
    const piece = new Uint8Array(bw * bh);
    for (let i = 0; i < count; i++) {
      const x = members[i] % w,
        y = (members[i] - x) / w;
      piece[(y - b.y0 + 1) * bw + x - b.x0 + 1] = 1;
    }
    const filled = fillHoles(piece, bw, bh);
    const hole = new Uint8Array(bw * bh);
    let holes = 0,
      edge = 0;
    for (let q = 0; q < bw * bh; q++) {
      hole[q] = filled[q] && !piece[q] ? 1 : 0;
      holes += hole[q];
      if (piece[q] && (!piece[q - 1] || !piece[q + 1] || !piece[q - bw] || !piece[q + bw])) edge++;
    }
    // The strokes' thickness: twice their area over their edge (a line of width t has 2 edges per t).
    const thick = Math.ceil((2 * count) / Math.max(1, edge));
    if (holes < 9 * thick * thick) return;
    const outline = dilate(hole, bw, bh, thick + 1);
    let largest = 0;
    forEachComponent8(hole, bw, bh, (_m, n) => {
      largest = Math.max(largest, n);
    });
    const head = 2 * Math.sqrt(largest / Math.PI);
    // The holes' centre and the open strokes' extent and main axis (piece px).
    let hx = 0,
      hy = 0;
    const m = { n: 0, sx: 0, sy: 0, sxx: 0, syy: 0, sxy: 0, x0: bw, y0: bh, x1: -1, y1: -1 };
    for (let q = 0; q < bw * bh; q++) {
      const x = q % bw,
        y = (q - x) / bw;
      if (hole[q]) [hx, hy] = [hx + x, hy + y];
      if (!piece[q] || outline[q]) continue;
      m.n++;
      m.sx += x;
      m.sy += y;
      m.sxx += x * x;
      m.syy += y * y;
      m.sxy += x * y;
      [m.x0, m.y0, m.x1, m.y1] = [Math.min(m.x0, x), Math.min(m.y0, y), Math.max(m.x1, x), Math.max(m.y1, y)];
    }
    if (m.n > 0 && Math.max(m.x1 - m.x0, m.y1 - m.y0) + 1 >= FIGURE_REACH * head) {
      const cx = m.sx / m.n,
        cy = m.sy / m.n;
      const vx = m.sxx / m.n - cx * cx,
        vy = m.syy / m.n - cy * cy,
        cxy = m.sxy / m.n - cx * cy;
      const major = (vx + vy) / 2 + Math.sqrt(((vx - vy) / 2) ** 2 + cxy * cxy);
      const [ax, ay] = Math.abs(cxy) > 1e-9 ? [major - vy, cxy] : vx >= vy ? [1, 0] : [0, 1];
      const off = Math.abs((hx / holes - cx) * ay - (hy / holes - cy) * ax) / (Math.hypot(ax, ay) || 1);
      if (off <= head / 2) {
        const id = labels[members[0]];
        const pts: Array<[number, number]> = [];
        for (let i = 0; i < count; i++) pts.push([members[i] % w, Math.floor(members[i] / w)]);
        fillHull(hull(pts), w, h, (p) => {
          if (!owner[p]) owner[p] = id;
        });
        return;
      }
    }
    for (let q = 0; q < bw * bh; q++) {
      if (!piece[q] || outline[q]) continue;
      const x = (q % bw) + b.x0 - 1,
        y = Math.floor(q / bw) + b.y0 - 1;
      open[y * w + x] = 1;
    }
  });
  forEachComponent8(open, w, h, (members, count, b) => {
    let sx = 0,
      sy = 0,
      sxx = 0,
      syy = 0,
      sxy = 0;
    for (let i = 0; i < count; i++) {
      const x = members[i] % w,
        y = (members[i] - x) / w;
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
    }
    const vx = sxx / count - (sx / count) ** 2,
      vy = syy / count - (sy / count) ** 2,
      cxy = sxy / count - (sx / count) * (sy / count);
    const spread = Math.sqrt(Math.max(0, (vx + vy) / 2 - Math.sqrt(((vx - vy) / 2) ** 2 + cxy * cxy)));
    let edge = 0;
    for (let i = 0; i < count; i++) {
      const q = members[i];
      if (!open[q - 1] || !open[q + 1] || !open[q - w] || !open[q + w]) edge++;
    }
    // Spreading across itself by less than LINE_SPREAD of its own thickness, it is a line: a zigzag's
    // wiggle, or a thick marker's stroke (a sun standing on its zigzag holds the zigzag by a ray).
    if (spread < LINE_SPREAD * ((2 * count) / Math.max(1, edge))) return;
    const r = Math.round(BAND_PER_SPREAD * spread);
    if (r < 1) return;
    const id = labels[members[0]];
    const bw = b.x1 - b.x0 + 1 + 2 * r,
      bh = b.y1 - b.y0 + 1 + 2 * r;
    const part = new Uint8Array(bw * bh);
    for (let i = 0; i < count; i++) {
      const x = members[i] % w,
        y = (members[i] - x) / w;
      part[(y - b.y0 + r) * bw + x - b.x0 + r] = 1;
    }
    const band = dilate(part, bw, bh, r);
    for (let y = 0; y < bh; y++) {
      const yy = y + b.y0 - r;
      if (yy < 0 || yy >= h) continue;
      for (let x = 0; x < bw; x++) {
        const xx = x + b.x0 - r;
        if (band[y * bw + x] && xx >= 0 && xx < w && !owner[yy * w + xx]) owner[yy * w + xx] = id;
      }
    }
  });
  return owner;
}

/** Convex hull of points (monotone chain), counter-clockwise in picture coordinates. */
function hull(pts: Array<[number, number]>): Array<[number, number]> {
  const p = pts.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: [number, number], a: [number, number], b: [number, number]): number =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Array<[number, number]> = [],
    upper: Array<[number, number]> = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
    lower.push(q);
  }
  for (let i = p.length - 1; i >= 0; i--) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p[i]) <= 0) upper.pop();
    upper.push(p[i]);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** Visits every pixel whose centre lies in a convex polygon (or on its edge). */
function fillHull(poly: Array<[number, number]>, w: number, h: number, visit: (p: number) => void): void {
  if (poly.length === 0) return;
  let y0 = h,
    y1 = -1;
  for (const [, y] of poly) [y0, y1] = [Math.min(y0, y), Math.max(y1, y)];
  for (let y = Math.max(0, y0); y <= Math.min(h - 1, y1); y++) {
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < poly.length; i++) {
      const [ax, ay] = poly[i],
        [bx, by] = poly[(i + 1) % poly.length];
      if (ay === by) {
        if (ay === y) [lo, hi] = [Math.min(lo, ax, bx), Math.max(hi, ax, bx)];
        continue;
      }
      if (y < Math.min(ay, by) || y > Math.max(ay, by)) continue;
      const x = ax + ((y - ay) / (by - ay)) * (bx - ax);
      [lo, hi] = [Math.min(lo, x), Math.max(hi, x)];
    }
    if (poly.length === 1) [lo, hi] = [poly[0][0], poly[0][0]];
    for (let x = Math.max(0, Math.ceil(lo - 1e-9)); x <= Math.min(w - 1, Math.floor(hi + 1e-9)); x++) visit(y * w + x);
  }
}
