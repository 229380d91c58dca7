/**
 * The sheet's ruled or squared lines where they cross a drawn figure, taken out of its texture
 * (texture.ts, cutAlongInk, finds their pixels): over the figure's bare paper (paperOverLines) and under
 * its coloured fills (liftLines).
 */
import { dilate } from '../vision/mask-ops.js';
import { LINE_TONE_TOLERANCE, type PaperModel } from './drawing.js';
import { pullPush } from './edge-colour.js';

/** Ink from this strength (share darker than the paper in the darkest channel): as the drawing mask's MIN_INK. */
export const INK = 28 / 255;
/** Texture pixels either side of a ruled line's pixels that are its blurred edge (paperOverLines). */
const LINE_EDGE = 2;
/** Pixels along a ruled line over which liftLines reads its colours. */
const ALONG_TAPS = 5;

/**
 * A ruled line across the figure's bare paper, taken out above (`onLine`), and its blurred edge LINE_EDGE
 * pixels either side (as light as a line, off its hue, so the hue test left it: a dotted line along it)
 * take the colour of the paper around them, pulled in from the figure's bare paper nearby. The reference
 * paper colour they were given is the brightest-lit paper's, so the line stayed as a band lighter than
 * the grainy paper beside it (the pig on a 12 MP photo: a light stripe with a dotted edge every line).
 */
export function paperOverLines(
  out8: Uint8ClampedArray,
  onLine: Uint8Array,
  strength: Float32Array,
  cls: Uint8Array,
  tw: number,
  th: number,
  lineLimit: number,
): void {
  const n = tw * th;
  if (!onLine.includes(1)) return;
  const near = dilate(onLine, tw, th, LINE_EDGE);
  // The paper read for the band lies beyond the line's blur.
  const clear = dilate(near, tw, th, 1);
  // A stroke crossing the line is ink reaching in from beyond the band and keeps its pixels; the
  // edge's specks of ink (JPEG chroma, the blur) lie within the band.
  const stroke = new Uint8Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  for (let t = 0; t < n; t++) {
    if (!cls[t] || near[t] || strength[t] < INK) continue;
    stroke[t] = 1;
    stack[top++] = t;
  }
  const visit = (u: number): void => {
    if (stroke[u] || !near[u] || onLine[u] || strength[u] < INK) return;
    stroke[u] = 1;
    stack[top++] = u;
  };
  while (top > 0) {
    const t = stack[--top];
    const x = t % tw;
    if (x > 0) visit(t - 1);
    if (x < tw - 1) visit(t + 1);
    if (t >= tw) visit(t - tw);
    if (t + tw < n) visit(t + tw);
  }
  const band = new Uint8Array(n);
  const known = new Uint8Array(n);
  const values = new Float32Array(n * 3);
  for (let t = 0; t < n; t++) {
    if (cls[t] !== 2) continue;
    if (near[t] && (onLine[t] || (!stroke[t] && strength[t] <= lineLimit))) band[t] = 1;
    else if (!clear[t] && strength[t] < INK) {
      known[t] = 1;
      for (let c = 0; c < 3; c++) values[t * 3 + c] = out8[t * 4 + c];
    }
  }
  const paper = pullPush(values, known, tw, th, band);
  if (!paper) return;
  for (let t = 0; t < n; t++) {
    if (!band[t]) continue;
    for (let c = 0; c < 3; c++) out8[t * 4 + c] = paper[t * 3 + c];
  }
}

/**
 * Ruled or squared lines crossing the figure's coloured fill. The sheet's line shows through crayon,
 * marker and paint as a darkening by the line's own transmittance (per channel, relative to the paper:
 * 1 - its strength x its hue), which the hue test of the ink mask cannot see under a colour. A pixel
 * inside the figure, on the lines' direction (the sheet's angle), is a line pixel when the fill on both
 * sides across the line (just beyond the widest line) is the same colour and the pixel is that colour
 * darkened by the line's transmittance at one coverage for all three channels, and the pixel a little
 * further along the line is one too. Such pixels are divided by the line's transmittance at their
 * coverage, so the fill's own texture stays and the line is gone; a drawn stroke across the line darkens
 * the channels the line does not and stays. Measured on the synthetic photos (bench/_drawing-cases.ts):
 * see docs/figures.md.
 */
export function liftLines(o: {
  out8: Uint8ClampedArray;
  strength: Float32Array;
  cls: Uint8Array;
  onLine: Uint8Array;
  tw: number;
  th: number;
  lines: NonNullable<PaperModel['lines']>;
  lineStrength: number;
  ref: number[];
  texPerWork: number;
}): void {
  const { out8, strength, cls, onLine, tw, th, lines, ref } = o;
  // Across the line: just beyond the widest line the ink mask took out, in texture pixels.
  const reach = Math.max(2, Math.ceil(lines.thickness * o.texPerWork) + 1);
  const along = 2 * reach;
  const a = (lines.angle * Math.PI) / 180;
  const n = tw * th;
  const cover = new Float32Array(n);
  // Planar (channel c of pixel t at c * n + t): the reading across the lines mostly reads one channel.
  const smooth = new Float32Array(n * 3);
  for (const family of lines.families) {
    // The line's darkness is measured on the main family's pixels; a second family takes its own hue.
    const absorb = [0, 1, 2].map((c) => Math.min(0.95, o.lineStrength * family.tone[c]));
    let j = 0;
    for (let c = 1; c < 3; c++) if (absorb[c] > absorb[j]) j = c;
    if (absorb[j] < 0.08) continue;
    // A second family of another hue is not the sheet's (a fill's streaks can line up too).
    const dt = Math.max(...[0, 1, 2].map((c) => Math.abs(family.tone[c] - lines.tone[c])));
    if (dt > LINE_TONE_TOLERANCE) continue;
    const [ux, uy] = family.vertical ? [-Math.sin(a), Math.cos(a)] : [Math.cos(a), Math.sin(a)];
    // Perpendicular to the line (nx, ny); offsets across it from just past the line's blur to the
    // widest line.
    const nx = -uy,
      ny = ux;
    const pairs: Array<[number, number]> = [];
    // Offsets grow by a third each step: a line's blur is a few pixels whatever its width.
    for (let d = 2; d <= reach; d = Math.max(d + 1, Math.round(d * 1.34))) {
      const o2: [number, number] = [Math.round(nx * d), Math.round(ny * d)];
      if (!pairs.some((q) => q[0] === o2[0] && q[1] === o2[1])) pairs.push(o2);
    }
    const offsets = Int32Array.from(pairs.flat());
    const adx = Math.round(ux * along),
      ady = Math.round(uy * along);
    // Inside the figure: the working mask's inside, or ink in its ring (a thin limb is mostly ring).
    const inFigure = new Uint8Array(n);
    for (let t = 0; t < n; t++) if (cls[t] === 2 || (cls[t] === 1 && strength[t] >= INK)) inFigure[t] = 1;
    // Crayon and marker are grainy: colours are read averaged along the line (ALONG_TAPS pixels), where
    // the line itself does not change, and only the lift is applied to each pixel.
    const taps: number[] = [];
    for (let i = -(ALONG_TAPS >> 1); i <= ALONG_TAPS >> 1; i++) taps.push(Math.round(ux * i), Math.round(uy * i));
    // Only the figure's pixels are read (readAcross); away from the texture's sides every tap is inside.
    let tapX = 0,
      tapY = 0;
    for (let i = 0; i < taps.length; i += 2) [tapX, tapY] = [Math.max(tapX, Math.abs(taps[i])), Math.max(tapY, Math.abs(taps[i + 1]))];
    for (let y = 0; y < th; y++) {
      const rowInside = y >= tapY && y < th - tapY;
      for (let x = 0; x < tw; x++) {
        const t = y * tw + x;
        if (!inFigure[t]) continue;
        let r = 0,
          g = 0,
          b = 0,
          k = 0;
        if (rowInside && x >= tapX && x < tw - tapX) {
          for (let i = 0; i < taps.length; i += 2) {
            const q = (t + taps[i + 1] * tw + taps[i]) * 4;
            r += out8[q];
            g += out8[q + 1];
            b += out8[q + 2];
          }
          k = taps.length >> 1;
        } else {
          for (let i = 0; i < taps.length; i += 2) {
            const xx = x + taps[i],
              yy = y + taps[i + 1];
            if (xx < 0 || yy < 0 || xx >= tw || yy >= th) continue;
            const q = (yy * tw + xx) * 4;
            r += out8[q];
            g += out8[q + 1];
            b += out8[q + 2];
            k++;
          }
        }
        smooth[t] = r / k;
        smooth[n + t] = g / k;
        smooth[2 * n + t] = b / k;
      }
    }
    cover.fill(0);
    // Offsets outward one at a time over the whole figure (rows stay in the cache): a pixel is read at the
    // next offset only while both sides at every smaller one lay in the figure and its reading is not
    // already full coverage (`open`).
    readAcross(smooth, inFigure, cover, offsets, absorb, j, tw, th);
    for (let y = 0; y < th; y++) {
      for (let x = 0; x < tw; x++) {
        const t = y * tw + x;
        const k = cover[t];
        if (!k) continue;
        const x1 = x + adx,
          y1 = y + ady,
          x2 = x - adx,
          y2 = y - ady;
        const on1 = x1 >= 0 && y1 >= 0 && x1 < tw && y1 < th && (cover[y1 * tw + x1] > 0 || onLine[y1 * tw + x1] > 0);
        const on2 = x2 >= 0 && y2 >= 0 && x2 < tw && y2 < th && (cover[y2 * tw + x2] > 0 || onLine[y2 * tw + x2] > 0);
        if (!on1 && !on2) continue;
        let st = 0;
        for (let c = 0; c < 3; c++) {
          const v = out8[t * 4 + c] / (1 - k * absorb[c]);
          out8[t * 4 + c] = v;
          st = Math.max(st, 1 - v / Math.max(1, ref[c]));
        }
        strength[t] = st;
        onLine[t] = 1;
      }
    }
  }
}

/**
 * liftLines' reading across the lines: each figure pixel's line coverage (`cover`, the strongest reading)
 * from the fill on both sides at each offset in turn. Its own function (typed arrays only) so that V8
 * optimises its loop on its own rather than with the rest of liftLines.
 */
function readAcross(
  smooth: Float32Array,
  inFigure: Uint8Array,
  cover: Float32Array,
  offsets: Int32Array,
  absorb: number[],
  j: number,
  tw: number,
  th: number,
): void {
  const open = inFigure.slice();
  const n = tw * th;
  // smooth is planar: channel j's plane is read for every pixel, the others only where it passes.
  const J = j * n;
  const absorbJ = absorb[j];
  for (let i = 0; i < offsets.length; i += 2) {
    const pdx = offsets[i],
      pdy = offsets[i + 1];
    const ax = Math.abs(pdx),
      ay = Math.abs(pdy);
    const d = pdy * tw + pdx;
    for (let y = 0; y < th; y++) {
      const inRows = y >= ay && y < th - ay;
      for (let x = 0; x < tw; x++) {
        const t = y * tw + x;
        if (!open[t]) continue;
        const ua = t + d,
          ub = t - d;
        if (!inRows || x < ax || x >= tw - ax || !inFigure[ua] || !inFigure[ub]) {
          open[t] = 0;
          continue;
        }
        const mj = (smooth[J + ua] + smooth[J + ub]) / 2;
        if (mj < 40) continue;
        const alpha = (1 - smooth[J + t] / mj) / absorbJ;
        if (alpha < 0.2 || alpha > 1.6) continue;
        const k = Math.min(1, alpha);
        let ok = true;
        for (let c = 0; c < 3 && ok; c++) {
          const ac = smooth[c * n + ua],
            bc = smooth[c * n + ub];
          const m = (ac + bc) / 2;
          if (Math.abs(ac - bc) > 0.2 * Math.max(ac, bc) + 12) ok = false;
          else if (Math.abs(smooth[c * n + t] - m * (1 - k * absorb[c])) > 14 + 0.12 * m) ok = false;
        }
        // Both sides may still be on the line's blur at small offsets: the strongest reading counts.
        if (ok && k > cover[t]) {
          cover[t] = k;
          if (k === 1) open[t] = 0;
        }
      }
    }
  }
}
