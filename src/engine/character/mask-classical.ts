/**
 * Classical foreground extraction for drawings on a plain background (paper, flat colour), in the
 * spirit of AnimatedDrawings' OpenCV path: ink = pixels that differ from the local background colour
 * (Otsu-chosen threshold), strokes closed morphologically, background = what a flood fill from the
 * border reaches, the figure = the rest, cleaned to its main component(s) with holes filled. An outline
 * drawing therefore yields its filled silhouette, which is what a mesh needs.
 */
import {
  close,
  fillHoles,
  keepLargestComponents,
  maskArea,
  maskBounds,
  open,
  otsuThreshold,
  reachableFromBorder,
} from '../vision/mask-ops.js';
import { downsampleRgba, resizeMask } from '../vision/image-ops.js';

/** Below this colour difference (0..255 scale) nothing counts as ink, whatever Otsu says. */
const MIN_INK_CONTRAST = 18;

export interface BorderStats {
  /** Share of border-band pixels within 40 levels (per channel) of the band's median colour. */
  plainShare: number;
  median: [number, number, number];
}

/**
 * Colour statistics of a band along the image border (3% of the short side, at least 2 px). Paper with
 * a lighting gradient stays within the tolerance; photographed scenes (walls, doors, skies and floors
 * together) do not: on the sample media drawings score >= 0.92 and photos <= 0.58.
 */
export function borderStats(rgba: Buffer, w: number, h: number): BorderStats {
  const band = Math.max(2, Math.round(Math.min(w, h) * 0.03));
  const rs: number[] = [],
    gs: number[] = [],
    bs: number[] = [];
  const step = Math.max(1, Math.floor((w + h) / 2000));
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      if (x >= band && x < w - band && y >= band && y < h - band) continue;
      const i = (y * w + x) * 4;
      rs.push(rgba[i]);
      gs.push(rgba[i + 1]);
      bs.push(rgba[i + 2]);
    }
  }
  const med = (a: number[]) => [...a].sort((p, q) => p - q)[a.length >> 1] ?? 0;
  const median: [number, number, number] = [med(rs), med(gs), med(bs)];
  let plain = 0;
  for (let k = 0; k < rs.length; k++) {
    const d = Math.max(Math.abs(rs[k] - median[0]), Math.abs(gs[k] - median[1]), Math.abs(bs[k] - median[2]));
    if (d <= 40) plain++;
  }
  return { plainShare: rs.length ? plain / rs.length : 0, median };
}

/**
 * Local background colour: the image reduced to ~24 px on its long side (thin strokes barely move a
 * block average) and smoothly enlarged again, which follows paper shading and vignetting.
 */
function localBackground(rgba: Buffer, w: number, h: number): Uint8Array[] {
  const s = 24 / Math.max(w, h);
  const sw = Math.max(2, Math.round(w * s));
  const sh = Math.max(2, Math.round(h * s));
  const small = downsampleRgba(rgba, w, h, sw, sh);
  const channels: Uint8Array[] = [];
  for (let c = 0; c < 3; c++) {
    const plane = new Uint8Array(sw * sh);
    for (let p = 0; p < sw * sh; p++) plane[p] = small[p * 4 + c];
    channels.push(resizeMask(plane, sw, sh, w, h));
  }
  return channels;
}

/**
 * Binary figure mask (0/1, w*h) of a drawing; empty when nothing stands out from the background.
 * `w`,`h` should be a working size (~512 px long side): radii below are tuned in proportion to it.
 * `flat`: the background's one colour when the picture's border is plain.
 */
export function classicalMask(rgba: Buffer, w: number, h: number, flat?: readonly [number, number, number]): Uint8Array {
  // A flat background is taken as its one colour: the block average would mix the figure into the
  // background next to it and count a band of background around the figure as ink.
  const bg = flat ? flat.map((v) => new Uint8Array(w * h).fill(v)) : localBackground(rgba, w, h);
  const diff = new Uint8Array(w * h);
  const hist = new Uint32Array(256);
  for (let p = 0; p < w * h; p++) {
    const i = p * 4;
    const d = Math.max(Math.abs(rgba[i] - bg[0][p]), Math.abs(rgba[i + 1] - bg[1][p]), Math.abs(rgba[i + 2] - bg[2][p]));
    diff[p] = d;
    hist[d]++;
  }
  const threshold = Math.max(MIN_INK_CONTRAST, otsuThreshold(hist));
  const ink = new Uint8Array(w * h);
  let inkCount = 0;
  for (let p = 0; p < w * h; p++) {
    if (diff[p] > threshold) {
      ink[p] = 1;
      inkCount++;
    }
  }
  if (inkCount < w * h * 0.0005) return new Uint8Array(w * h);
  const long = Math.max(w, h);
  const strokes = keepLargestComponents(ink, w, h, 0.05).mask;
  const b = maskBounds(strokes, w, h);
  if (!b) return new Uint8Array(w * h);
  const boxArea = (b.x1 - b.x0 + 1) * (b.y1 - b.y0 + 1);
  // Pencil outlines leak: a flood fill through a gap empties the body. The closing radius grows until
  // the filled figure covers a plausible share of its strokes' bounding box; small radii come first
  // because large ones also web the gaps between limbs.
  let fg: Uint8Array = new Uint8Array(w * h);
  for (const f of CLOSING_STEPS) {
    fg = fillOutline(ink, w, h, Math.max(2, Math.round(long * f)));
    if (maskArea(fg) >= boxArea * MIN_FILL_OF_BOX) break;
  }
  return fg;
}

/** Closing radii tried in turn, as fractions of the long side. */
const CLOSING_STEPS = [0.008, 0.014, 0.022, 0.035];
/** A filled figure covering less than this share of its strokes' bounding box has leaked. */
const MIN_FILL_OF_BOX = 0.3;

function fillOutline(ink: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const closed = close(ink, w, h, r);
  const outside = reachableFromBorder(closed, w, h);
  let fg: Uint8Array = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) fg[p] = outside[p] ? 0 : 1;
  fg = open(fg, w, h, Math.max(1, Math.round(Math.max(w, h) * 0.003)));
  fg = keepLargestComponents(fg, w, h).mask;
  return fillHoles(fg, w, h);
}
