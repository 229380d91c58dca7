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
import { dilate, maskArea, maskBounds, open, reachableFromBorder } from '../vision/mask-ops.js';
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
    if (inset.turned) paintOutside(inner, inset.turned);
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
  /** The region's size, source px (the figure's texture is cut within it: nothing is known beyond). */
  size?: { width: number; height: number };
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
    return { work, w, h, ws, origin: { x: region.x, y: region.y }, size: { width: region.width, height: region.height } };
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

/** Half the window (working px) over which a flat block's pixel varies by at most FLAT_RANGE. */
const FLAT_RADIUS = 2;
/** The largest range (per channel) over such a window on a flat block (a photo's smooth wall or dark wood spans more). */
const FLAT_RANGE = 2;
/** How far a flat block reaches past its flat pixels (working px): over its seam with the next block and its ringing. */
const FLAT_REACH = 6;
/** The least share of the border that lies on flat blocks for a canvas of them. */
const FLAT_BORDER = 0.95;

/**
 * Pixels (0/1) off a canvas of flat coloured blocks (a picture pasted on a poster, a slide, a page of
 * colour fields: the border is not one colour, so the plain-border test fails, and the person model or
 * the colour cut read the whole canvas: the cup small on such blocks was refused, musepose cut to her
 * floor): what is not within FLAT_REACH of a pixel whose window is flat. Null when less than
 * FLAT_BORDER of the border is such canvas (photos: their border has texture, grain or gradient).
 */
function offFlatBlocks(rgba: Buffer, w: number, h: number): Uint8Array | null {
  if (!flatBorder(rgba, w, h)) return null;
  const r = FLAT_RADIUS;
  const flat = new Uint8Array(w * h).fill(1);
  const lo = new Uint8Array(w * h),
    hi = new Uint8Array(w * h);
  for (let c = 0; c < 3; c++) {
    // Range over the row's window, then over the column's window of those.
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let [a, b] = [255, 0];
        for (let k = Math.max(0, x - r); k <= Math.min(w - 1, x + r); k++) {
          const v = rgba[(y * w + k) * 4 + c];
          if (v < a) a = v;
          if (v > b) b = v;
        }
        [lo[y * w + x], hi[y * w + x]] = [a, b];
      }
    }
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const p = y * w + x;
        if (!flat[p]) continue;
        let [a, b] = [255, 0];
        for (let k = Math.max(0, y - r); k <= Math.min(h - 1, y + r); k++) {
          if (lo[k * w + x] < a) a = lo[k * w + x];
          if (hi[k * w + x] > b) b = hi[k * w + x];
        }
        if (b - a > FLAT_RANGE) flat[p] = 0;
      }
    }
  }
  const canvas = dilate(flat, w, h, FLAT_REACH);
  // The canvas is what of it the border reaches: a flat patch inside the picture (a clear sky) is not.
  for (let p = 0; p < w * h; p++) canvas[p] ^= 1;
  const reached = reachableFromBorder(canvas, w, h);
  for (let p = 0; p < w * h; p++) reached[p] ^= 1;
  // Less the ringing a seam between blocks leaves here and there, a line or a speck of a few pixels.
  return open(reached, w, h, FLAT_RADIUS);
}

/**
 * Whether at least FLAT_BORDER of the border lies within FLAT_REACH of a flat pixel (as offFlatBlocks
 * finds them), looking at the band along the border only: a photo is turned away for a few milliseconds.
 */
function flatBorder(rgba: Buffer, w: number, h: number): boolean {
  const r = FLAT_RADIUS;
  // 1 flat, 2 not, 0 not yet looked at.
  const seen = new Uint8Array(w * h);
  const isFlat = (x: number, y: number): boolean => {
    const p = y * w + x;
    if (!seen[p]) {
      let flat = true;
      for (let c = 0; c < 3 && flat; c++) {
        let [a, b] = [255, 0];
        for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
          for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
            const v = rgba[(yy * w + xx) * 4 + c];
            if (v < a) a = v;
            if (v > b) b = v;
          }
        }
        flat = b - a <= FLAT_RANGE;
      }
      seen[p] = flat ? 1 : 2;
    }
    return seen[p] === 1;
  };
  const R = FLAT_REACH;
  const near = (x: number, y: number): boolean => {
    for (let yy = Math.max(0, y - R); yy <= Math.min(h - 1, y + R); yy++)
      for (let xx = Math.max(0, x - R); xx <= Math.min(w - 1, x + R); xx++) if (isFlat(xx, yy)) return true;
    return false;
  };
  const border = 2 * (w + h) - 4;
  let off = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (x > 0 && y > 0 && x < w - 1 && y < h - 1) x = w - 2;
      else if (!near(x, y) && ++off > (1 - FLAT_BORDER) * border) return false;
    }
  }
  return true;
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
 * its sides, where a figure's outline touches its box at a few points (its head, hands and feet). On a
 * canvas of flat coloured blocks (no plain border) the canvas is the blocks (offFlatBlocks); a picture
 * pasted turned is found by its corners (turnedInset).
 */
export function insetPicture(first: FigureReading, info: { width: number; height: number }): InsetRegion | null {
  const { view, fg } = first;
  const { work, w, h, ws, origin } = view;
  const plain = (fg.method === 'classical' || fg.method === 'drawing') && (fg.evidence.borderPlainShare ?? 0) >= PLAIN_BORDER_SHARE;
  const off = plain ? offCanvas(work, w, h, borderStats(work, w, h).median) : fg.method === 'alpha' ? null : offFlatBlocks(work, w, h);
  if (!off) return null;
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
  if (sides.some((share) => share < INSET_SIDES) || corners.reduce((a, b) => a + b, 0) < 3) {
    return turnedInset(off, w, h, { x0, y0, x1, y1 }, view, info, borderStats(work, w, h).median);
  }
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

type Point = { x: number; y: number };

/** A pasted picture's region; for a turned one, its corners (source px, clockwise from the top) and the canvas's colour. */
export type InsetRegion = Region & { turned?: { quad: Point[]; canvas: readonly number[] } };

/** The least offset of a turned picture's top vertex from its box's corners, as a share of the box's width. */
const TURN_LEAST = 0.04;
/** How far a turned picture's corners may be from square (cosine of the angle) and its sides from equal. */
const TURN_SQUARE = 0.08;
/** The largest share of its box outside a turned picture (grown by the blur's reach) that is off the canvas. */
const TURN_OUTSIDE = 0.05;

/** Whether (x, y) lies inside the convex quad `q` (clockwise on screen). */
function inQuad(q: Point[], x: number, y: number): boolean {
  for (let i = 0; i < 4; i++) {
    const [a, b] = [q[i], q[(i + 1) % 4]];
    if ((b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x) < 0) return false;
  }
  return true;
}

/** The quad with each side moved `d` inwards (outwards when negative): each vertex along its two sides. */
function inset4(q: Point[], d: number): Point[] {
  return q.map((p, i) => {
    const [a, b] = [q[(i + 3) % 4], q[(i + 1) % 4]];
    const [ua, ub] = [Math.hypot(a.x - p.x, a.y - p.y), Math.hypot(b.x - p.x, b.y - p.y)];
    return { x: p.x + d * ((a.x - p.x) / ua + (b.x - p.x) / ub), y: p.y + d * ((a.y - p.y) / ua + (b.y - p.y) / ub) };
  });
}

/**
 * A picture pasted turned on a plain canvas (a photo straightened the other way, a scan set askew): what
 * is off the canvas is a rectangle turned in its box, its vertices where it touches the box's sides. Its
 * box's corners are canvas, so the upright test misses it and its figure was read from the whole canvas
 * (the cup or musepose turned 15 degrees small on grey noise: their picture cut as one piece). Found when
 * the four points where it touches its box make a rectangle (square corners, opposite sides equal), the
 * lines just inside its sides are at least INSET_SIDES off the canvas, three of its corners are, and
 * next to nothing outside it is (a disc or a figure reaching its box at four points fails one of these).
 * Its region is the box of the rectangle read inside its edge; the canvas left in that box's corners is
 * painted flat (paintOutside), as a picture turned on a canvas of one colour is, which the border test
 * reads by its own edge (mask-classical.ts, filledCorners).
 */
function turnedInset(
  off: Uint8Array,
  w: number,
  h: number,
  b: { x0: number; y0: number; x1: number; y1: number },
  view: WorkingView,
  info: { width: number; height: number },
  canvas: readonly number[],
): InsetRegion | null {
  const { x0, y0, x1, y1 } = b;
  // Where the off-canvas region touches each side of its box: the middle of its pixels on that line.
  const middle = (n: number, at: (i: number) => number): number => {
    let [sum, count] = [0, 0];
    for (let i = 0; i < n; i++) if (off[at(i)]) [sum, count] = [sum + i, count + 1];
    return count ? sum / count : -1;
  };
  const [bw, bh] = [x1 - x0 + 1, y1 - y0 + 1];
  const top = middle(bw, (i) => y0 * w + x0 + i);
  const bottom = middle(bw, (i) => y1 * w + x0 + i);
  const left = middle(bh, (i) => (y0 + i) * w + x0);
  const right = middle(bh, (i) => (y0 + i) * w + x1);
  if ([top, bottom, left, right].some((v) => v < 0)) return null;
  const quad: Point[] = [
    { x: x0 + top, y: y0 },
    { x: x1, y: y0 + right },
    { x: x0 + bottom, y: y1 },
    { x: x0, y: y0 + left },
  ];
  // Turned enough that its vertices are off its box's corners, and a rectangle.
  const least = TURN_LEAST * Math.min(bw, bh);
  if (Math.min(top, bw - 1 - top, bottom, bw - 1 - bottom, left, bh - 1 - left, right, bh - 1 - right) < least) return null;
  const side = (i: number): Point => ({ x: quad[(i + 1) % 4].x - quad[i].x, y: quad[(i + 1) % 4].y - quad[i].y });
  const len = [0, 1, 2, 3].map((i) => Math.hypot(side(i).x, side(i).y));
  for (let i = 0; i < 4; i++) {
    const [u, v] = [side(i), side((i + 1) % 4)];
    if (Math.abs(u.x * v.x + u.y * v.y) / (len[i] * len[(i + 1) % 4]) > TURN_SQUARE) return null;
  }
  if (Math.abs(len[0] - len[2]) > TURN_SQUARE * len[0] || Math.abs(len[1] - len[3]) > TURN_SQUARE * len[1]) return null;
  const m = CANVAS_BLUR + 2;
  const inner = inset4(quad, m);
  const at = (p: Point): number => off[Math.round(p.y) * w + Math.round(p.x)];
  let cornersOff = 0;
  for (const p of inner) cornersOff += at(p);
  if (cornersOff < 3) return null;
  for (let i = 0; i < 4; i++) {
    const [a, c] = [inner[i], inner[(i + 1) % 4]];
    const n = Math.max(2, Math.round(Math.hypot(c.x - a.x, c.y - a.y)));
    let on = 0;
    for (let k = 0; k <= n; k++) on += at({ x: a.x + ((c.x - a.x) * k) / n, y: a.y + ((c.y - a.y) * k) / n });
    if (on / (n + 1) < INSET_SIDES) return null;
  }
  const outer = inset4(quad, -m);
  let [outside, offOutside] = [0, 0];
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (inQuad(outer, x, y)) continue;
      outside++;
      offOutside += off[y * w + x];
    }
  }
  if (!outside || offOutside > TURN_OUTSIDE * outside) return null;
  // The picture read inside its edge (as the upright one), in source px; the box of that.
  const { ws, origin } = view;
  const src = inner.map((p) => ({ x: origin.x + (p.x + 0.5) / ws, y: origin.y + (p.y + 0.5) / ws }));
  const rx0 = Math.max(0, Math.ceil(Math.min(...src.map((p) => p.x))));
  const ry0 = Math.max(0, Math.ceil(Math.min(...src.map((p) => p.y))));
  const rx1 = Math.min(info.width, Math.floor(Math.max(...src.map((p) => p.x))));
  const ry1 = Math.min(info.height, Math.floor(Math.max(...src.map((p) => p.y))));
  if (rx1 - rx0 < 16 || ry1 - ry0 < 16) return null;
  return { x: rx0, y: ry0, width: rx1 - rx0, height: ry1 - ry0, turned: { quad: src, canvas } };
}

/** Paints what lies outside a turned picture's quad (source px) in the canvas's colour, flat. */
function paintOutside(view: WorkingView, turned: NonNullable<InsetRegion['turned']>): void {
  const { work, w, h, ws, origin } = view;
  const q = turned.quad.map((p) => ({ x: (p.x - origin.x) * ws - 0.5, y: (p.y - origin.y) * ws - 0.5 }));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (inQuad(q, x, y)) continue;
      const i = (y * w + x) * 4;
      [work[i], work[i + 1], work[i + 2], work[i + 3]] = [turned.canvas[0], turned.canvas[1], turned.canvas[2], 255];
    }
  }
}
