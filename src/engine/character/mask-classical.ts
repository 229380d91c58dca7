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
  const take = (x: number, y: number): void => {
    const i = (y * w + x) * 4;
    rs.push(rgba[i]);
    gs.push(rgba[i + 1]);
    bs.push(rgba[i + 2]);
  };
  const step = Math.max(1, Math.floor((w + h) / 2000));
  // A picture turned on a canvas of one colour: its border is the turned picture's own edge, just inside
  // the four filled corners, not the fill.
  const corners = filledCorners(rgba, w, h);
  const inset = band / 2 + 2;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      if (x >= band && x < w - band && y >= band && y < h - band) continue;
      if (corners?.some((c) => c.reach(x, y) <= 1 + inset / Math.min(c.a, c.b))) continue;
      take(x, y);
    }
  }
  for (const c of corners ?? []) {
    const n = Math.hypot(c.a, c.b);
    const count = Math.ceil(n / step);
    for (let k = 0; k <= count; k++) {
      const t = k / count;
      // Along the hypotenuse from the vertex on the row to the one on the column, moved inside the picture.
      const x = Math.round(c.x + c.dx * (t * c.a + (inset * c.b) / n));
      const y = Math.round(c.y + c.dy * ((1 - t) * c.b + (inset * c.a) / n));
      if (x >= 0 && y >= 0 && x < w && y < h) take(x, y);
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

/** A corner of the canvas filled by turning a picture: legs `a` along the row, `b` along the column. */
type FilledCorner = { x: number; y: number; dx: number; dy: number; a: number; b: number; reach: (x: number, y: number) => number };

/** Rows and columns in from the canvas's edge where a filled corner's legs are measured. */
const CORNER_INSET = 3;
/** Largest difference (per channel) a filled corner may show: JPEG ringing on a flat colour. */
const FILL_TOLERANCE = 12;

/**
 * The four corners of a picture turned on a canvas of one colour (a photo or scan straightened, a phone's
 * tilt corrected: grey, black or white corners): triangles of the same flat colour whose side inside the
 * canvas is a straight line, the turned picture's edge, the opposite corners alike (a turn maps the
 * picture's box to itself). Where the picture's own edge has the fill's colour (a grey floor, the shadow
 * at a sheet's edge) the fill runs on into it; such a corner is known from its opposite one. Null
 * otherwise: paper running to the canvas's edge has no straight inner side, nor matching corners.
 */
function filledCorners(rgba: Buffer, w: number, h: number): FilledCorner[] | null {
  const median = (v: number[]): number => v.sort((p, q) => p - q)[v.length >> 1];
  const i0 = 0;
  const fill = [rgba[i0], rgba[i0 + 1], rgba[i0 + 2]];
  const isFill = (x: number, y: number): boolean => {
    const i = (y * w + x) * 4;
    return Math.max(Math.abs(rgba[i] - fill[0]), Math.abs(rgba[i + 1] - fill[1]), Math.abs(rgba[i + 2] - fill[2])) <= FILL_TOLERANCE;
  };
  const corner = (x: number, y: number, dx: number, dy: number): { a: number; b: number; fit: number } | null => {
    // Runs of fill from the corner along a row (or down a column) `off` px in.
    const runX = (off: number): number => {
      let n = 0;
      while (n < w && isFill(x + dx * n, y + dy * off)) n++;
      return n;
    };
    const runY = (off: number): number => {
      let n = 0;
      while (n < h && isFill(x + dx * off, y + dy * n)) n++;
      return n;
    };
    // The leg along the row, a few px in (along the canvas's own edge the turned picture's vertex blurs
    // into the fill and the run can pass it), sets where the fill's depth is probed; a line through the
    // probes (Theil-Sen: the fill may run on into the picture at some of them) gives both legs.
    const ai = runX(CORNER_INSET);
    if (ai < 4 || ai >= w - 2 || !isFill(x, y)) return null;
    const probes = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((t) => {
      const px = Math.round(t * ai);
      return { px, d: runY(px) };
    });
    const slopes: number[] = [];
    for (let i = 0; i < probes.length; i++)
      for (let j = i + 1; j < probes.length; j++) slopes.push((probes[j].d - probes[i].d) / (probes[j].px - probes[i].px || 1));
    const slope = median(slopes);
    const b = median(probes.map((p) => p.d - slope * p.px));
    if (slope >= 0 || b < 4 || b >= h - 2) return null;
    const a = -b / slope;
    const fit = probes.filter((p) => Math.abs(p.d - (b + slope * p.px)) <= 2 + 0.03 * b).length;
    return fit >= 7 && a < w - 2 ? { a, b, fit } : null;
  };
  const at = [
    [0, 0, 1, 1],
    [w - 1, 0, -1, 1],
    [w - 1, h - 1, -1, -1],
    [0, h - 1, 1, -1],
  ] as const;
  const found = at.map(([x, y, dx, dy]) => corner(x, y, dx, dy));
  // Each corner as measured, or as its opposite one when that lies better on its line.
  const legs = found.map((c, k) => {
    const o = found[(k + 2) % 4];
    return c && (!o || c.fit >= o.fit) ? c : o;
  });
  if (legs.some((c) => !c)) return null;
  const [tl, tr] = legs as Array<{ a: number; b: number }>;
  // The turned picture's vertices meet on each side: the legs along a side add up to it.
  const near = (v: number, side: number): boolean => Math.abs(v - side) <= 3 + 0.03 * side;
  if (!near(tl.a + tr.a, w) || !near(tl.b + tr.b, h)) return null;
  return at.map(([x, y, dx, dy], k) => {
    const { a, b } = legs[k]!;
    return { x, y, dx, dy, a, b, reach: (px: number, py: number) => Math.abs(px - x) / a + Math.abs(py - y) / b };
  });
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
