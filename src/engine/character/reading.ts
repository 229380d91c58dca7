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
import { findForeground, type ForegroundResult } from './foreground.js';
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
