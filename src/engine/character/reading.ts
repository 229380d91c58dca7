/**
 * Reading a picture for its figure: the foreground found on a copy of the picture reduced to
 * WORK_LONG_SIDE and, for a drawing small on a large photo, found again on the region around it.
 *
 * At the whole photo's scale a small drawing's pencil lines are thinner than a working pixel and break,
 * so its fills leak out through the gaps and only parts of it are kept, or none (char6 at a fifth of a
 * 12 MP photo's short side: IoU 0.49, or refused). Read from the region around it at the working size,
 * the same drawing is whole (0.99): see docs/figures.md, "Small drawings on a large photo".
 */
import sharp from 'sharp';
import { EngineError } from '../types.js';
import { maskArea, maskBounds } from '../vision/mask-ops.js';
import { findForeground, PLAIN_BORDER_SHARE, type ForegroundResult } from './foreground.js';
import { borderStats } from './mask-classical.js';
import type { SheetHint } from './drawing.js';

export const WORK_LONG_SIDE = 768;
/** Padding round a small drawing's box for its closer reading, as a share of its long side. */
const CLOSER_PAD = 0.35;
/** The least gain in scale worth a closer reading. */
const CLOSER_GAIN = 1.5;
/** Closer readings of one region at most (the first, and the region grown when the figure reached past it). */
const CLOSER_READINGS = 3;

type Bounds = { x0: number; y0: number; x1: number; y1: number };
type Picture = { width: number; height: number; hasAlpha: boolean };

/** The figure as read: its view of the picture, the foreground found there and its box (working px). */
export interface FigureReading {
  view: WorkingView;
  fg: ForegroundResult;
  bounds: Bounds | null;
}

/**
 * The first reading, then the closer ones: a drawing whose region read at the working size gains at
 * least CLOSER_GAIN in scale, or a picture of mostly paper whose drawing came out too small to be a
 * figure (around the strokes taken for it, or the faint strokes where nothing reached the ink level). A
 * closer reading replaces the first only when it is a confident drawing. The other drawings on the sheet
 * that could be the figure (drawingMask's rivals) are read closer too when the chosen one is: at the whole
 * photo's scale a small figure is in pieces and may enclose less than a doodle beside it; the reading
 * whose figure covers the most of the picture (its mask, or its drawing's cover with its limbs' bands
 * where that is more) is kept, as the figure is chosen on the sheet.
 */
export async function readFigure(imageFile: string, info: Picture, check: () => void): Promise<FigureReading> {
  const view = await workingView(imageFile, { x: 0, y: 0, width: info.width, height: info.height }, true);
  check();
  const fg = await findForeground(view.work, view.w, view.h, info.hasAlpha);
  const first: FigureReading = { view, fg, bounds: maskBounds(fg.mask, view.w, view.h) };
  const inset = insetPicture(first, info);
  if (inset) {
    // A picture set on a plain canvas is cut as its whole rectangle; its figure is read from it alone.
    const inner = await workingView(imageFile, inset);
    check();
    const again = await findForeground(inner.work, inner.w, inner.h, info.hasAlpha);
    const againBounds = maskBounds(again.mask, inner.w, inner.h);
    if (againBounds) return { view: inner, fg: again, bounds: againBounds };
  }
  const seed = fg.method === 'drawing' ? first.bounds : !fg.confident ? fg.paperInk : null;
  const region = seed ? closerRegion(view, seed, info, false) : null;
  if (!region) return first;
  const rivals = (fg.rivals ?? []).map((b) => closerRegion(view, b, info, false)).filter((r): r is Region => r !== null);
  let best = first,
    bestArea = 0;
  for (const candidate of [region, ...rivals]) {
    const closer = await readCloser(imageFile, info, candidate, fg.paper?.lines, check);
    // What the figure covers: its mask, or its drawing's cover where that is more (a stick figure's mask is
    // its head and lines; its cover counts the bands its limbs reach round, as the choice on the sheet did).
    const area = closer ? Math.max(maskArea(closer.fg.mask), closer.fg.cover ?? 0) / closer.view.ws ** 2 : 0;
    if (closer && area > bestArea) [best, bestArea] = [closer, area];
  }
  return best;
}

/**
 * A figure read from a region at the working size, and again from the region grown to it when it reaches
 * past it (the first reading found it only in part); null when no confident drawing is found there. The
 * closer readings keep the whole photo's ruled lines and line thickness (see drawingMask's SheetHint): a
 * region shows too few lines to recognise a ruling.
 */
async function readCloser(
  imageFile: string,
  info: Picture,
  start: Region,
  lines: SheetHint['lines'],
  check: () => void,
): Promise<FigureReading | null> {
  let found: FigureReading | null = null;
  let region: Region | null = start;
  for (let reading = 0; region && reading < CLOSER_READINGS; reading++) {
    const closer = await workingView(imageFile, region);
    check();
    const sheet = { long: Math.max(info.width, info.height) * closer.ws, lines };
    const again = await findForeground(closer.work, closer.w, closer.h, info.hasAlpha, sheet);
    const againBounds = maskBounds(again.mask, closer.w, closer.h);
    if (again.method !== 'drawing' || !again.confident || !againBounds) break;
    found = { view: closer, fg: again, bounds: againBounds };
    region = reachesOut(closer, againBounds, info) ? closerRegion(closer, againBounds, info, true) : null;
  }
  return found;
}

export type Region = { x: number; y: number; width: number; height: number };

/** A region of the oriented picture at the working size: working px = (source px - origin) * ws. */
export interface WorkingView {
  work: Buffer;
  w: number;
  h: number;
  ws: number;
  origin: { x: number; y: number };
}

async function workingView(imageFile: string, region: Region, whole = false): Promise<WorkingView> {
  const ws = Math.min(1, WORK_LONG_SIDE / Math.max(region.width, region.height));
  const w = Math.max(1, Math.round(region.width * ws));
  const h = Math.max(1, Math.round(region.height * ws));
  try {
    let img = sharp(imageFile).rotate();
    // Extracting the whole picture would turn off JPEG shrink-on-load and change the working pixels.
    if (!whole) img = img.extract({ left: region.x, top: region.y, width: region.width, height: region.height });
    const work = await img.resize(w, h, { fit: 'fill', kernel: 'lanczos3' }).ensureAlpha().raw().toBuffer();
    return { work, w, h, ws, origin: { x: region.x, y: region.y } };
  } catch (err) {
    throw new EngineError('UNSUPPORTED_MEDIA', `Image cannot be decoded: ${(err as Error).message}`, { imageFile });
  }
}

/** Radius of the box blur that evens out a canvas's grain before its colour is compared, working px. */
const CANVAS_BLUR = 3;
/** A blurred pixel farther than this from the canvas's colour (on some channel) is not canvas. */
const CANVAS_TOLERANCE = 32;
/** The least share of each side of a pasted picture's box that is not canvas. */
const INSET_SIDES = 0.5;
/** The largest share of the canvas's width or height such a picture spans (beyond, it is the picture). */
const INSET_SPAN = 0.9;

/** Pixels (0/1) whose colour, averaged over a box of CANVAS_BLUR, is farther than CANVAS_TOLERANCE from `canvas`. */
function offCanvas(rgba: Buffer, w: number, h: number, canvas: readonly number[]): Uint8Array {
  const out = new Uint8Array(w * h);
  const sum = new Float64Array((w + 1) * (h + 1));
  const r = CANVAS_BLUR;
  for (let c = 0; c < 3; c++) {
    for (let y = 0; y < h; y++) {
      let row = 0;
      for (let x = 0; x < w; x++) {
        row += rgba[(y * w + x) * 4 + c];
        sum[(y + 1) * (w + 1) + x + 1] = sum[y * (w + 1) + x + 1] + row;
      }
    }
    for (let y = 0; y < h; y++) {
      const [ya, yb] = [Math.max(0, y - r), Math.min(h, y + r + 1)];
      for (let x = 0; x < w; x++) {
        const [xa, xb] = [Math.max(0, x - r), Math.min(w, x + r + 1)];
        const total = sum[yb * (w + 1) + xb] - sum[ya * (w + 1) + xb] - sum[yb * (w + 1) + xa] + sum[ya * (w + 1) + xa];
        if (Math.abs(total / ((yb - ya) * (xb - xa)) - canvas[c]) > CANVAS_TOLERANCE) out[y * w + x] = 1;
      }
    }
  }
  return out;
}

/** First and last index whose count is at least `least` (-1, -1 when none). */
function span(counts: Uint32Array, least: number): [number, number] {
  let [a, b] = [-1, -1];
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] < least) continue;
    if (a < 0) a = i;
    b = i;
  }
  return [a, b];
}

/**
 * The region of a picture set on a plain canvas (a photo or an illustration pasted on grey noise, on grey
 * or on white: the border test passes, and the drawing's or the border colour's cut is the pasted
 * picture, more or less, with grains of noise or less what in it has the canvas's colour), source px,
 * inside its edge; null when the picture is not one. Blurred, the canvas (flat or grainy) is its border's
 * colour; the pasted picture is the box of what is not, and runs along at least INSET_SIDES of each of
 * its sides, where a figure's outline touches its box at a few points (its head, hands and feet).
 */
export function insetPicture(first: FigureReading, info: { width: number; height: number }): Region | null {
  const { view, fg } = first;
  if ((fg.method !== 'classical' && fg.method !== 'drawing') || (fg.evidence.borderPlainShare ?? 0) < PLAIN_BORDER_SHARE) return null;
  const { work, w, h, ws, origin } = view;
  const off = offCanvas(work, w, h, borderStats(work, w, h).median);
  const rows = new Uint32Array(h),
    cols = new Uint32Array(w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      rows[y] += off[y * w + x];
      cols[x] += off[y * w + x];
    }
  }
  // The box of all that is off the canvas, a figure's thin limbs too; a stray grain left by the blur is not.
  const [x0, x1] = span(cols, Math.max(3, 0.01 * h));
  const [y0, y1] = span(rows, Math.max(3, 0.01 * w));
  const [bw, bh] = [x1 - x0 + 1, y1 - y0 + 1];
  if (x0 < 0 || y0 < 0 || bw > INSET_SPAN * w || bh > INSET_SPAN * h || bw < 16 || bh < 16) return null;
  const m = CANVAS_BLUR + 2;
  const along = (n: number, at: (i: number) => number): number => {
    let on = 0;
    for (let i = 0; i < n; i++) on += off[at(i)];
    return on / n;
  };
  const sides = [
    along(bw - 2 * m, (i) => (y0 + m) * w + x0 + m + i),
    along(bw - 2 * m, (i) => (y1 - m) * w + x0 + m + i),
    along(bh - 2 * m, (i) => (y0 + m + i) * w + x0 + m),
    along(bh - 2 * m, (i) => (y0 + m + i) * w + x1 - m),
  ];
  // A pasted picture fills its box's corners; a figure leaves them empty (three of four at least, so a
  // picture with a corner of the canvas's colour is still seen).
  const corners = [off[(y0 + m) * w + x0 + m], off[(y0 + m) * w + x1 - m], off[(y1 - m) * w + x0 + m], off[(y1 - m) * w + x1 - m]];
  if (sides.some((share) => share < INSET_SIDES) || corners.reduce((a, b) => a + b, 0) < 3) return null;
  // The blur spreads the picture's edge over CANVAS_BLUR pixels; JPEG blends a pixel or two more.
  const [rx0, ry0] = [Math.ceil(origin.x + (x0 + m) / ws), Math.ceil(origin.y + (y0 + m) / ws)];
  const [rx1, ry1] = [
    Math.min(info.width, Math.floor(origin.x + (x1 + 1 - m) / ws)),
    Math.min(info.height, Math.floor(origin.y + (y1 + 1 - m) / ws)),
  ];
  return { x: rx0, y: ry0, width: rx1 - rx0, height: ry1 - ry0 };
}

/** Whether a figure found in a region touches one of the region's sides that is not the picture's. */
function reachesOut(view: WorkingView, b: Bounds, info: { width: number; height: number }): boolean {
  const { w, h, ws, origin } = view;
  return (
    (b.x0 <= 1 && origin.x > 0) ||
    (b.y0 <= 1 && origin.y > 0) ||
    (b.x1 >= w - 2 && origin.x + w / ws < info.width - 1) ||
    (b.y1 >= h - 2 && origin.y + h / ws < info.height - 1)
  );
}

/**
 * The region a small figure is read again from: its box padded by CLOSER_PAD of its long side on every
 * side (paper all round for the paper model, and room for parts the first reading lost), when reading
 * it at the working size gains at least CLOSER_GAIN in resolution; null otherwise.
 */
function closerRegion(view: WorkingView, b: Bounds, info: { width: number; height: number }, grown: boolean): Region | null {
  const { ws, origin } = view;
  const long = Math.max(b.x1 - b.x0 + 1, b.y1 - b.y0 + 1) / ws;
  const pad = long * CLOSER_PAD;
  const x0 = Math.max(0, Math.floor(origin.x + b.x0 / ws - pad));
  const y0 = Math.max(0, Math.floor(origin.y + b.y0 / ws - pad));
  const x1 = Math.min(info.width, Math.ceil(origin.x + (b.x1 + 1) / ws + pad));
  const y1 = Math.min(info.height, Math.ceil(origin.y + (b.y1 + 1) / ws + pad));
  const region = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  // From the whole picture, reading closer must gain enough to be worth a second reading; a region grown
  // from a closer reading is read again whatever its scale (the figure is larger than it was read).
  const closerScale = Math.min(1, WORK_LONG_SIDE / Math.max(region.width, region.height));
  return grown || closerScale >= ws * CLOSER_GAIN ? region : null;
}
