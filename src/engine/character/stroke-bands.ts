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
 * The bands of the open strokes attached to an outline, each pixel labelled with the drawing (`labels`)
 * whose strokes it is a band of (0: none). An ink piece (8-connected after a 1 px closing) that encloses
 * a hole at least three strokes wide is an outline with what hangs from it: its pixels bounding the hole
 * are the outline, the rest are its open strokes (a stick figure's body and limbs under its head, a
 * sun's rays). Each connected part of those spreading in two directions (LINE_SPREAD) is grown by
 * BAND_PER_SPREAD of its own spread. Pieces that
 * enclose nothing (a zigzag, a name's letters, a lone ray) get no band: a line is not a body.
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
