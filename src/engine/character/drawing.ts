/**
 * Foreground of a drawing photographed on paper (a phone photo of a sheet: uneven light, a soft shadow,
 * ruled or squared lines, a strip of table at the edge, scribbles beside the figure).
 *
 *  1. The paper's shading is estimated at a large scale: a grey closing (max then min filter) on a
 *     quarter-size copy removes every stroke and fill narrower than the window, a box blur smooths it.
 *  2. Ink strength = how much darker than its paper a pixel is in its darkest channel (so a yellow
 *     crayon on white counts through its blue channel), 0..255; the paper's shading is divided out.
 *  3. Ink = hysteresis threshold (Otsu of the strength histogram, bounded below), so faint pencil
 *     attached to firm strokes is kept and isolated paper texture is not.
 *  4. Ruled or squared paper: long straight horizontal/vertical runs recurring across the sheet are
 *     removed when at least four of them are found (a figure's own straight lines are not that many).
 *     The edge of the sheet (a band where the table meets the paper) is dropped: ink that touches the
 *     picture's border and is long and thin along it.
 *     Strokes cut where they cross a line and faint stretches of an outline are joined again
 *     (stroke-gaps.ts).
 *  5. The outline is closed (radius grown until the filled figure covers a plausible share of its
 *     strokes' box), its inside filled, small specks removed, then ink strokes connected to the figure
 *     are added back whole, so thin limbs drawn as single lines survive the cleanup.
 *  6. The main figure is the drawing covering the most area with what its strokes enclose and the
 *     bands of the limbs hanging from its outline (a doodle beside it is left out); filled components
 *     are kept only when nearly as large as the largest.
 *
 * Works at the analysis working size (<= 768 px long side); radii are fractions of the long side.
 */
import {
  close,
  dilate,
  erode,
  fillHoles,
  forEachComponent8,
  keepLargestComponents,
  maskArea,
  maskBounds,
  open,
  otsuThreshold,
  reach4,
  reachableFromBorder,
} from '../vision/mask-ops.js';
import { strokeBands } from './stroke-bands.js';
import { bridgeFaintGaps, rejoinAcrossLines } from './stroke-gaps.js';

export interface PaperModel {
  /** Paper colour per channel at each working pixel (w*h*3). */
  paper: Float32Array;
  /** Ink strength 0..255 per working pixel. */
  strength: Uint8Array;
  /** Pixels beyond the sheet's edges (the table), when edges were found. */
  offSheet?: Uint8Array;
  /**
   * Ruled or squared paper: the ink pixels taken out as its lines (grown by one pixel, for their blur)
   * and the lines' hue (see hueAt), so the edge cut at full resolution does not keep a stub of a line
   * where it touches the figure's outline.
   */
  lines?: {
    mask: Uint8Array;
    /** Hue of the family with the most lines. */
    tone: Float32Array;
    /** Degrees by which the lines are turned from the picture's rows (see dominantAngle). */
    angle: number;
    /** The families found: lines along the rows (ruled) and/or along the columns (squared), each with its hue and count. */
    families: Array<{ vertical: boolean; tone: Float32Array; count: number }>;
    /** Widest line, working pixels. */
    thickness: number;
  };
  /**
   * Per-channel gains that take the light's colour out of the sheet's (see lightBalance); the texture
   * applies a cautious part of them (see textureBalance).
   */
  light?: [number, number, number];
  width: number;
  height: number;
}

export interface DrawingMaskResult {
  mask: Uint8Array;
  /** Thresholded ink (after ruled lines and the sheet edge were taken out). */
  ink: Uint8Array;
  /** Box of the main figure's strokes (when there was ink), even where the mask came out too small. */
  inkBox?: { x0: number; y0: number; x1: number; y1: number };
  /**
   * Boxes of other drawings on the sheet that could be the figure (see RIVAL_AREA): read closer, a small
   * figure in pieces at this scale may turn out to cover more than the drawing chosen here (reading.ts).
   */
  rivals?: Array<{ x0: number; y0: number; x1: number; y1: number }>;
  /** Area the chosen drawing covers (working px): its ink, the paper it encloses, its limbs' bands. */
  cover?: number;
  model: PaperModel;
  evidence: {
    /** Share of the picture that reads as paper (bright-ish, low ink strength, low chroma). */
    paperShare: number;
    /** Share of the picture that is ink. */
    inkShare: number;
    ruledLines: number;
    inkThreshold: number;
    /** Sheet edges found (sides of the picture where the table shows beyond the paper). */
    sheetEdges?: number;
  };
}

/** Running max (or min) over a window of radius r along rows then columns of a float plane. */
function extremeFilter(src: Float32Array, w: number, h: number, r: number, max: boolean): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  const sign = max ? 1 : -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = sign * src[y * w + x];
      const k1 = Math.min(w - 1, x + r);
      for (let k = Math.max(0, x - r); k <= k1; k++) {
        const u = sign * src[y * w + k];
        if (u > v) v = u;
      }
      tmp[y * w + x] = sign * v;
    }
  }
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      let v = sign * tmp[y * w + x];
      const k1 = Math.min(h - 1, y + r);
      for (let k = Math.max(0, y - r); k <= k1; k++) {
        const u = sign * tmp[k * w + x];
        if (u > v) v = u;
      }
      out[y * w + x] = sign * v;
    }
  }
  return out;
}

function boxBlur(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0,
        n = 0;
      for (let k = Math.max(0, x - r); k <= Math.min(w - 1, x + r); k++, n++) s += src[y * w + k];
      tmp[y * w + x] = s / n;
    }
  }
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      let s = 0,
        n = 0;
      for (let k = Math.max(0, y - r); k <= Math.min(h - 1, y + r); k++, n++) s += tmp[k * w + x];
      out[y * w + x] = s / n;
    }
  }
  return out;
}

/** Radius of the paper model's closing window, as a share of the picture's long side. */
const PAPER_WINDOW = 0.04;

/** Paper colour estimate and ink strength at the working size. */
export function paperModel(rgba: Buffer, w: number, h: number): PaperModel {
  const f = Math.max(1, Math.round(Math.max(w, h) / 192));
  const sw = Math.max(2, Math.ceil(w / f)),
    sh = Math.max(2, Math.ceil(h / f));
  // The window must outgrow strokes and small fills: 4% of the long side each way.
  const r = Math.max(2, Math.round(Math.max(sw, sh) * PAPER_WINDOW));
  // Block means on the small grid, all channels in one pass.
  const sums = new Float32Array(sw * sh * 3);
  const count = new Float32Array(sw * sh);
  for (let y = 0; y < h; y++) {
    const qy = Math.floor(y / f) * sw;
    for (let x = 0; x < w; x++) {
      const q = qy + Math.floor(x / f),
        o = (y * w + x) * 4;
      sums[q * 3] += rgba[o];
      sums[q * 3 + 1] += rgba[o + 1];
      sums[q * 3 + 2] += rgba[o + 2];
      count[q]++;
    }
  }
  const smooth: Float32Array[] = [];
  for (let c = 0; c < 3; c++) {
    const small = new Float32Array(sw * sh);
    for (let q = 0; q < sw * sh; q++) small[q] = count[q] ? sums[q * 3 + c] / count[q] : 0;
    const closed = extremeFilter(extremeFilter(small, sw, sh, r, true), sw, sh, r, false);
    smooth.push(boxBlur(closed, sw, sh, Math.max(1, r >> 1)));
  }
  // Bilinear enlargement to the working size (grid positions per column computed once), and the ink
  // strength in the same pass.
  const colX0 = new Int32Array(w),
    colX1 = new Int32Array(w),
    colA = new Float32Array(w);
  for (let x = 0; x < w; x++) {
    const fx = Math.min(sw - 1, Math.max(0, (x + 0.5) / f - 0.5));
    colX0[x] = Math.floor(fx);
    colX1[x] = Math.min(sw - 1, colX0[x] + 1);
    colA[x] = fx - colX0[x];
  }
  const paper = new Float32Array(w * h * 3);
  const strength = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(sh - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = Math.floor(fy),
      y1 = Math.min(sh - 1, y0 + 1),
      ay = fy - y0;
    for (let x = 0; x < w; x++) {
      const ax = colA[x];
      const i00 = y0 * sw + colX0[x],
        i01 = y0 * sw + colX1[x],
        i10 = y1 * sw + colX0[x],
        i11 = y1 * sw + colX1[x];
      const p = y * w + x;
      let st = 0;
      for (let c = 0; c < 3; c++) {
        const g = smooth[c];
        const v = Math.max(1, (g[i00] * (1 - ax) + g[i01] * ax) * (1 - ay) + (g[i10] * (1 - ax) + g[i11] * ax) * ay);
        paper[p * 3 + c] = v;
        st = Math.max(st, 1 - rgba[p * 4 + c] / v);
      }
      strength[p] = Math.round(Math.min(1, st) * 255);
    }
  }
  return { paper, strength, width: w, height: h };
}

/** Below this strength (0..255) nothing is ink, whatever Otsu says: paper grain, JPEG noise, soft shadow edges. */
const MIN_INK = 28;
/** Strength from which a pixel seeds ink for the hysteresis, whatever Otsu says (~17% darker than the paper). */
const MAX_SEED = 44;

/** Strength from which a pixel may belong to a faint ruled line (see drawingMask): over the paper's grain. */
const FAINT_LINE = 16;

/** The most a channel is raised to balance the light: tungsten light halves blue on white paper. */
const MAX_LIGHT_GAIN = 2;

/**
 * Per-channel gains that make the sheet's light grey: the median paper colour over the pixels without
 * ink (on the sheet) is taken for white lit by the scene's light, and each channel is raised to its
 * brightest (at most MAX_LIGHT_GAIN). Under daylight the gains are about 1.
 */
function lightBalance(paper: Float32Array, strength: Uint8Array, off?: Uint8Array): [number, number, number] {
  const hists = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  let n = 0;
  for (let p = 0; p < strength.length; p++) {
    if (strength[p] >= MIN_INK || off?.[p]) continue;
    for (let c = 0; c < 3; c++) hists[c][Math.min(255, Math.round(paper[p * 3 + c]))]++;
    n++;
  }
  if (!n) return [1, 1, 1];
  const median = hists.map((hist) => {
    let seen = 0;
    for (let v = 0; v < 256; v++) if ((seen += hist[v]) * 2 >= n) return Math.max(1, v);
    return 255;
  });
  const top = Math.max(...median);
  return median.map((m) => Math.min(MAX_LIGHT_GAIN, top / m)) as [number, number, number];
}

/**
 * A sheet's own tint, left as it is (log of the largest gain): cream or recycled paper is up to about a
 * tenth short in blue (warm); bright white paper is at most a few hundredths short in red (cool).
 */
const PAPER_TINT = { warm: Math.log(1.1), cool: Math.log(1.04) };
/**
 * How far green may lie (log scale) from halfway between red and blue for the sheet's colour to be a
 * light's: lamps, daylight and shade run from orange to blue with green in between (a tungsten lamp
 * about 0.09 off, shade and cool fluorescent tubes under 0.05); a pink or green sheet is further off.
 */
const LIGHT_AXIS = 0.12;

/**
 * The part of the light balance the texture applies, so a drawing photographed under a lamp or in shade
 * keeps the colours it was drawn in (its white paper white) while a sheet's own colour stays. One
 * picture cannot tell a white sheet under a coloured light from a tinted sheet under daylight, so the
 * correction is cautious: no correction when the sheet's colour is off the orange-blue line that lights
 * follow (pink, green paper) or when a channel would need more than MAX_LIGHT_GAIN (a strongly coloured
 * sheet: blue or yellow construction paper); otherwise the cast is reduced by PAPER_TINT in every
 * channel alike (the log gains scaled down), so paper under daylight, whose tint is under that, is
 * unchanged, and a white sheet under a lamp comes out as a cream sheet does under daylight.
 */
export function textureBalance(gains: readonly number[] | undefined): [number, number, number] {
  if (!gains) return [1, 1, 1];
  const logs = gains.map((g) => Math.log(g));
  const cast = Math.max(...logs);
  // Blue raised the most: a warm cast (a lamp, or cream paper); red the most: a cool one (shade).
  const tint = logs[2] >= logs[0] ? PAPER_TINT.warm : PAPER_TINT.cool;
  // A gain at the cap: the sheet's colour is stronger than lightBalance would take out.
  if (cast <= tint || Math.max(...gains) >= MAX_LIGHT_GAIN - 1e-6) return [1, 1, 1];
  if (Math.abs(logs[1] - (logs[0] + logs[2]) / 2) > LIGHT_AXIS) return [1, 1, 1];
  const k = (cast - tint) / cast;
  return logs.map((l) => Math.exp(l * k)) as [number, number, number];
}

/**
 * Long straight runs along rows (or columns), allowing a 1 px wobble: marks the ink pixels on runs of at
 * least `minRun`, and returns the centre of each separate band of such rows. A run for which `keep`
 * (line, first, past-last index) says true is neither marked nor counted.
 */
function straightRuns(
  ink: Uint8Array,
  w: number,
  h: number,
  minRun: number,
  vertical: boolean,
  keep?: (line: number, start: number, end: number) => boolean,
): { marks: Uint8Array; bands: number[] } {
  const marks = new Uint8Array(w * h);
  const n = vertical ? w : h,
    len = vertical ? h : w;
  const at = (line: number, i: number): number => (vertical ? i * w + line : line * w + i);
  const bands: number[] = [];
  let bandStart = -1;
  for (let line = 0; line <= n; line++) {
    let had = false;
    let start = -1;
    for (let i = 0; line < n && i <= len; i++) {
      let on = false;
      if (i < len) for (let d = -1; d <= 1 && !on; d++) on = line + d >= 0 && line + d < n && ink[at(line + d, i)] === 1;
      if (on && start < 0) start = i;
      if (!on && start >= 0) {
        if (i - start >= minRun && !keep?.(line, start, i)) {
          for (let k = start; k < i; k++) if (ink[at(line, k)]) marks[at(line, k)] = 1;
          had = true;
        }
        start = -1;
      }
    }
    if (had && bandStart < 0) bandStart = line;
    if (!had && bandStart >= 0) {
      bands.push((bandStart + line - 1) / 2);
      bandStart = -1;
    }
  }
  return { marks, bands };
}

/** A long run is a fill's stroke when both its sides lie within an outline along this share of its length. */
const ENCLOSED_RUN = 0.8;
/** A long run is one of the sheet's lines only when both its sides are bare paper along this share of its length. */
const PAPER_LINED_RUN = 0.3;

/** Where a long straight run lies (see runSides): shares of its length with both sides within an outline, or both outside. */
type RunSides = (vertical: boolean, line: number, start: number, end: number) => { inside: number; outside: number };

/**
 * What lies on both sides of a long straight run, `off` px away: the ink (closed by 1 px) with what it
 * encloses, or paper outside every outline. A hatched or scribbled fill's strokes lie within the outline
 * on both sides (drawn across arms held level they reach over 40% of the picture like a margin, and
 * taking them out took the arm's outline with them, so the body leaked out: generated seed 25 kept only
 * its head and one arm). A figure's own straight strokes (a leg's side, a coloured-in edge) have it on one
 * side. The sheet's lines, a margin or a fold have bare paper on both sides over most of their length,
 * even where they cross a figure.
 */
function runSides(ink: Uint8Array, w: number, h: number, off: number): RunSides {
  const filled = fillHoles(close(ink, w, h, 1), w, h);
  return (vertical, line, start, end) => {
    const n = vertical ? w : h;
    if (line - off < 0 || line + off >= n) return { inside: 0, outside: 1 };
    const at = (l: number, i: number): number => (vertical ? i * w + l : l * w + i);
    let inside = 0,
      outside = 0;
    for (let i = start; i < end; i++) {
      const a = filled[at(line - off, i)],
        b = filled[at(line + off, i)];
      inside += a & b;
      outside += (a | b) ^ 1;
    }
    return { inside: inside / (end - start), outside: outside / (end - start) };
  };
}

/**
 * Ruled or squared paper: at least five line bands in one direction at a regular spacing (the gaps
 * between neighbours within 30% of their median). A figure's own long strokes are fewer and irregular.
 */
function regularBands(bands: number[]): boolean {
  if (bands.length < 5) return false;
  const gaps = bands
    .slice(1)
    .map((b, i) => b - bands[i])
    .sort((a, b) => a - b);
  const med = gaps[gaps.length >> 1];
  const regular = gaps.filter((g) => Math.abs(g - med) <= 0.3 * med || Math.abs(g - 2 * med) <= 0.3 * med).length;
  return med >= 4 && regular >= 0.7 * gaps.length;
}

/**
 * The angle (degrees, within +-8) by which the ink's long straight lines are turned from the picture's
 * rows: where projecting the ink across that direction gives the sharpest profile (ruled lines pile
 * up into narrow peaks). 0 when turning does not sharpen it by at least 10%.
 */
function dominantAngle(ink: Uint8Array, w: number, h: number): number {
  const step = Math.max(1, Math.round(Math.max(w, h) / 384));
  const xs: number[] = [],
    ys: number[] = [];
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      if (!ink[y * w + x]) continue;
      xs.push(x - w / 2);
      ys.push(y - h / 2);
    }
  }
  if (xs.length < 50) return 0;
  const span = Math.ceil(Math.hypot(w, h)) + 2;
  const hist = new Float64Array(span);
  const sharpness = (deg: number): number => {
    const a = (deg * Math.PI) / 180;
    const c = Math.cos(a),
      sn = Math.sin(a);
    hist.fill(0);
    for (let i = 0; i < xs.length; i++) hist[Math.round(ys[i] * c - xs[i] * sn + span / 2)]++;
    let s2 = 0;
    for (let i = 0; i < span; i++) s2 += hist[i] * hist[i];
    return s2;
  };
  const flat = sharpness(0);
  let best = 0,
    bestS = flat;
  for (let d = -8; d <= 8; d += 0.5) {
    if (d === 0) continue;
    const v = sharpness(d);
    if (v > bestS) [best, bestS] = [d, v];
  }
  return bestS > 1.1 * flat ? best : 0;
}

/** The mask turned by -deg about the picture's centre (lines at `deg` become rows), nearest pixel. */
function rotateMask(mask: Uint8Array, w: number, h: number, deg: number): Uint8Array {
  const a = (deg * Math.PI) / 180;
  const c = Math.cos(a),
    sn = Math.sin(a);
  const out = new Uint8Array(w * h);
  const cx = w / 2,
    cy = h / 2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // Output (x, y) in turned coordinates comes from the source point turned by +deg.
      const u = Math.round(cx + (x - cx) * c - (y - cy) * sn),
        v = Math.round(cy + (x - cx) * sn + (y - cy) * c);
      if (u >= 0 && v >= 0 && u < w && v < h) out[y * w + x] = mask[v * w + u];
    }
  }
  return out;
}

/** How far (any channel of hueAt) a pixel's ink hue may be from the ruled lines' and still be a line. */
export const LINE_TONE_TOLERANCE = 0.3;

/** Length of the run of set pixels through each pixel, along columns (`vertical`) or rows. */
function runLengths(mask: Uint8Array, w: number, h: number, vertical: boolean): Uint16Array {
  const out = new Uint16Array(w * h);
  const n = vertical ? w : h,
    len = vertical ? h : w;
  for (let line = 0; line < n; line++) {
    let start = -1;
    for (let i = 0; i <= len; i++) {
      const p = vertical ? i * w + line : line * w + i;
      const on = i < len && mask[p] === 1;
      if (on && start < 0) start = i;
      if (!on && start >= 0) {
        for (let k = start; k < i; k++) out[vertical ? k * w + line : line * w + k] = Math.min(65535, i - start);
        start = -1;
      }
    }
  }
  return out;
}

/**
 * Hue of a pixel's ink: how much each channel falls short of the paper, scaled so the largest shortfall
 * is 1 (written to out[0..2]). A faint or anti-aliased line pixel (ink blended with paper) keeps the
 * hue of the line. Returns the largest shortfall in grey levels (how far the hue can be trusted).
 */
function hueAt(rgba: Buffer, paper: Float32Array, p: number, out: Float32Array): number {
  const p0 = paper[p * 3],
    p1 = paper[p * 3 + 1],
    p2 = paper[p * 3 + 2];
  const a = Math.max(0, 1 - rgba[p * 4] / p0),
    b = Math.max(0, 1 - rgba[p * 4 + 1] / p1),
    c = Math.max(0, 1 - rgba[p * 4 + 2] / p2);
  const m = Math.max(1e-3, a, b, c);
  out[0] = a / m;
  out[1] = b / m;
  out[2] = c / m;
  return m * Math.max(p0, p1, p2);
}

/**
 * Grey levels of noise in a channel (sensor noise, JPEG) that the hue test allows for: a pixel's hue is
 * a ratio of shortfalls, so a line pixel only a few levels darker than its paper (a faint line, a dim
 * or hazy photo: the same line darkened to half the light is half as many levels below its paper) has
 * a hue that wanders by about this many levels over its shortfall.
 */
const HUE_NOISE_LEVELS = 6;
/** The most the allowance for noise may widen the hue test: a grey stroke is about 0.95 from blue lines. */
const MAX_LINE_TONE_TOLERANCE = 0.6;

/**
 * Whether a pixel's ink is in the lines' hue: within LINE_TONE_TOLERANCE in every channel; with `widen`,
 * for a faint pixel also within the hue's own noise (HUE_NOISE_LEVELS over its shortfall), at most
 * MAX_LINE_TONE_TOLERANCE. Widened only on the whole photo, where a squared sheet's lines are under a
 * working pixel thick: read closer they are thicker and darker, and a small drawing's own faint strokes
 * where they cross a line (their hue between the stroke's and the line's) would go too (the pig at a
 * fifth of a 12 MP photo lost its outline: 0.987 -> 0.492). Under a coloured light the ratio of each
 * channel to the paper's is the same as under daylight (both are lit by it): no light balance is needed.
 */
function inLineHue(rgba: Buffer, paper: Float32Array, p: number, tone: Float32Array, hue: Float32Array, widen = false): boolean {
  const levels = hueAt(rgba, paper, p, hue);
  const d = Math.max(Math.abs(hue[0] - tone[0]), Math.abs(hue[1] - tone[1]), Math.abs(hue[2] - tone[2]));
  if (d <= LINE_TONE_TOLERANCE || !widen) return d <= LINE_TONE_TOLERANCE;
  // Noise moves a faint grey stroke's hue as much as a faint line's: widened, the test only takes a
  // pixel whose hue is still nearer the lines' than grey (a pencil outline along a line stays).
  const fromGrey = 1 - Math.min(hue[0], hue[1], hue[2]);
  return d < fromGrey && d <= Math.min(MAX_LINE_TONE_TOLERANCE, LINE_TONE_TOLERANCE + HUE_NOISE_LEVELS / Math.max(1, levels));
}

/** Median hue (see hueAt) of the marked pixels. */
function lineTone(rgba: Buffer, paper: Float32Array, marks: Uint8Array): Float32Array {
  let n = 0;
  for (let p = 0; p < marks.length; p++) n += marks[p];
  const vals = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  const hue = new Float32Array(3);
  let k = 0;
  for (let p = 0; p < marks.length; p++) {
    if (!marks[p]) continue;
    hueAt(rgba, paper, p, hue);
    for (let c = 0; c < 3; c++) vals[c][k] = hue[c];
    k++;
  }
  return Float32Array.from(vals.map((v) => (n ? v.sort()[n >> 1] : 1)));
}

/** Ink components touching the picture's border that run along it, long and thin: the sheet's edge, a table. */
function dropSheetEdges(ink: Uint8Array, w: number, h: number): void {
  const band = Math.max(3, Math.round(0.06 * Math.max(w, h)));
  forEachComponent8(ink, w, h, (members, mn, { x0, y0, x1, y1 }) => {
    const border = x0 === 0 || y0 === 0 || x1 === w - 1 || y1 === h - 1;
    if (!border) return;
    // Mostly within a band along the border: the sheet's edge or the table, not a figure reaching it.
    let nearBorder = 0;
    for (let i = 0; i < mn; i++) {
      const p = members[i];
      const x = p % w,
        y = (p - x) / w;
      if (x < band || y < band || x >= w - band || y >= h - band) nearBorder++;
    }
    const spans = x1 - x0 + 1 >= 0.5 * w || y1 - y0 + 1 >= 0.5 * h;
    if (spans && nearBorder >= 0.6 * mn) for (let i = 0; i < mn; i++) ink[members[i]] = 0;
  });
}

/**
 * The sheet's own edges, where the photo shows the table (or whatever the sheet lies on) beyond them:
 * per side of the picture, every row (or column) is scanned inwards over the outer 20% for its sharpest
 * rise of brightness; when those rises line up along one straight line for much of the side (a RANSAC
 * fit: the sheet may be turned or seen in perspective) and what lies outside it is clearly darker than
 * the paper inside, everything beyond the line (and 3 px or 0.5% more, the blurred edge) is off the sheet.
 * Returns the off-sheet mask (all 0 when the sheet fills the picture) and the number of edges found.
 */
export function offSheet(rgba: Buffer, w: number, h: number): { mask: Uint8Array; edges: number } {
  const lum = new Float32Array(w * h);
  for (let p = 0; p < w * h; p++) lum[p] = 0.299 * rgba[p * 4] + 0.587 * rgba[p * 4 + 1] + 0.114 * rgba[p * 4 + 2];
  const mask = new Uint8Array(w * h);
  let edges = 0;
  // side: 0 top, 1 bottom, 2 left, 3 right. Position i runs along the side, depth t inwards from it.
  for (let side = 0; side < 4; side++) {
    const along = side < 2 ? w : h;
    const across = side < 2 ? h : w;
    const at = (i: number, t: number): number => {
      const x = side < 2 ? i : side === 2 ? t : w - 1 - t;
      const y = side < 2 ? (side === 0 ? t : h - 1 - t) : i;
      return y * w + x;
    };
    const depth = Math.max(6, Math.round(across * 0.2));
    const k = 3;
    const cand = new Float32Array(along).fill(-1);
    for (let i = 0; i < along; i++) {
      let best = 12,
        bestT = -1;
      for (let t = k; t < depth - k; t++) {
        let out = 0,
          inn = 0;
        for (let j = 1; j <= k; j++) {
          out += lum[at(i, t - j)];
          inn += lum[at(i, t + j - 1)];
        }
        const step = (inn - out) / k;
        if (step > best) [best, bestT] = [step, t];
      }
      cand[i] = bestT;
    }
    const pts: number[] = [];
    for (let i = 0; i < along; i++) if (cand[i] >= 0) pts.push(i);
    if (pts.length < along * 0.4) continue;
    // RANSAC on t = a + b * i, with a fixed pseudo-random sequence (results must not vary run to run).
    let seed = 12345 + side;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let bestA = 0,
      bestB = 0,
      bestIn = 0;
    for (let it = 0; it < 150; it++) {
      const i1 = pts[rand(pts.length)],
        i2 = pts[rand(pts.length)];
      if (Math.abs(i1 - i2) < along * 0.1) continue;
      const b = (cand[i2] - cand[i1]) / (i2 - i1);
      if (Math.abs(b) > 0.15) continue;
      const a0 = cand[i1] - b * i1;
      let n = 0;
      for (const i of pts) if (Math.abs(cand[i] - (a0 + b * i)) <= 1.5) n++;
      if (n > bestIn) [bestA, bestB, bestIn] = [a0, b, n];
    }
    if (bestIn < along * 0.4) continue;
    // Least squares on the inliers.
    let sn = 0,
      si = 0,
      st = 0,
      sii = 0,
      sit = 0;
    for (const i of pts) {
      if (Math.abs(cand[i] - (bestA + bestB * i)) > 1.5) continue;
      sn++;
      si += i;
      st += cand[i];
      sii += i * i;
      sit += i * cand[i];
    }
    const den = sn * sii - si * si;
    if (den > 0) {
      bestB = (sn * sit - si * st) / den;
      bestA = (st - bestB * si) / sn;
    }
    // What lies beyond must be darker than the paper just inside (a ruled line near the border is not an edge).
    let outSum = 0,
      outN = 0,
      inSum = 0,
      inN = 0;
    for (let i = 0; i < along; i++) {
      const e = bestA + bestB * i;
      const band = Math.max(3, Math.round(e));
      for (let t = 0; t < Math.floor(e) - 1; t++) {
        outSum += lum[at(i, t)];
        outN++;
      }
      for (let t = Math.ceil(e) + 2; t < Math.min(across, Math.ceil(e) + 2 + band); t++) {
        inSum += lum[at(i, t)];
        inN++;
      }
    }
    if (!outN || !inN || outSum / outN > 0.85 * (inSum / inN)) continue;
    edges++;
    const margin = Math.max(3, Math.round(across * 0.005));
    for (let i = 0; i < along; i++) {
      const e = Math.min(across, Math.ceil(bestA + bestB * i + margin));
      for (let t = 0; t < e; t++) mask[at(i, t)] = 1;
    }
  }
  return { mask, edges };
}

/**
 * Crumbs of a ruled line left after its pixels of the line's hue went: its blurred edges and JPEG
 * blocks off that hue, small ink pieces lying mostly beside the line's pixels. Left, they link to the
 * figure's outline and the largest closing bridges them from line to line into a slab of paper
 * (char6 on paper in perspective, read closer: a block of ruled paper kept beside the pig). A stroke
 * crossing a line is one piece with the rest of the stroke, far larger.
 */
function dropLineCrumbs(ink: Uint8Array, lineMask: Uint8Array, w: number, h: number, thin: number): void {
  const band = dilate(lineMask, w, h, 2);
  const crumb = thin * thin;
  forEachComponent8(ink, w, h, (members, count) => {
    if (count > crumb) return;
    let on = 0;
    for (let i = 0; i < count; i++) on += band[members[i]];
    if (on * 2 >= count) for (let i = 0; i < count; i++) ink[members[i]] = 0;
  });
}

/**
 * Single long straight lines: a margin, a fold, the edge of another sheet. An ink component reaching over
 * 40% of the picture's width or height whose pixels lie within `thin` px (standard deviation) of one
 * straight line is paper furniture, not a figure's stroke.
 */
function dropLongLines(ink: Uint8Array, w: number, h: number, thin: number): void {
  forEachComponent8(ink, w, h, (members, mn, { x0, y0, x1, y1 }) => {
    if (x1 - x0 + 1 < 0.4 * w && y1 - y0 + 1 < 0.4 * h) return;
    // Spread across the component's main axis (smaller eigenvalue of its covariance).
    let sx = 0,
      sy = 0;
    for (let i = 0; i < mn; i++) {
      const p = members[i];
      const x = p % w;
      sx += x;
      sy += (p - x) / w;
    }
    const n = mn;
    const mx = sx / n,
      my = sy / n;
    let cxx = 0,
      cyy = 0,
      cxy = 0;
    for (let i = 0; i < mn; i++) {
      const p = members[i];
      const x = (p % w) - mx,
        y = Math.floor(p / w) - my;
      cxx += x * x;
      cyy += y * y;
      cxy += x * y;
    }
    cxx /= n;
    cyy /= n;
    cxy /= n;
    const minor = (cxx + cyy) / 2 - Math.sqrt(((cxx - cyy) / 2) ** 2 + cxy * cxy);
    if (Math.sqrt(Math.max(0, minor)) <= thin) for (let i = 0; i < mn; i++) ink[members[i]] = 0;
  });
}

/**
 * What the whole photo said about the sheet, when the image is a region of it read closer (reading.ts):
 * its long side in this image's pixels (the sheet's lines are as thin as on the whole photo, not as on
 * the region) and its ruled or squared lines (a region shows too few of them to be recognised as a
 * regular ruling on its own).
 */
export interface SheetHint {
  long: number;
  lines?: PaperModel['lines'];
}

export function drawingMask(rgba: Buffer, w: number, h: number, model = paperModel(rgba, w, h), hint?: SheetHint): DrawingMaskResult {
  const { strength, paper } = model;
  const long = Math.max(w, h);
  // Beyond the sheet's edges nothing is ink (the table reads as dark "ink" against the paper model).
  const sheet = offSheet(rgba, w, h);
  if (sheet.edges) {
    for (let p = 0; p < w * h; p++) if (sheet.mask[p]) strength[p] = 0;
    model.offSheet = sheet.mask;
  }
  // Paper: little ink strength, a light and nearly grey paper colour once the light's own colour is
  // taken out (white paper under a lamp photographs yellow-orange, in shade blue).
  let paperCount = 0;
  const hist = new Uint32Array(256);
  const [gr, gg, gb] = (model.light = lightBalance(paper, strength, model.offSheet));
  for (let p = 0; p < w * h; p++) {
    hist[strength[p]]++;
    const r = paper[p * 3] * gr,
      g = paper[p * 3 + 1] * gg,
      b = paper[p * 3 + 2] * gb;
    const mx = Math.max(r, g, b),
      mn = Math.min(r, g, b);
    if (strength[p] < MIN_INK && mx >= 90 && (mx - mn) / mx <= 0.25) paperCount++;
  }
  // Otsu over the pixels that could be ink at all (the paper mode would otherwise pull it down).
  const inkHist = hist.slice();
  for (let v = 0; v < MIN_INK; v++) inkHist[v] = 0;
  const otsu = otsuThreshold(inkHist);
  // Otsu splits the ink's own modes (a dark table edge against pencil, say), so it only ever lowers the
  // seed level for faint drawings; weak ink grows from the seeds down to MIN_INK.
  const hi = Math.min(MAX_SEED, Math.max(MIN_INK + 12, otsu));
  const lo = MIN_INK;
  // Hysteresis: weak ink kept where it touches strong ink.
  let ink: Uint8Array = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  let top = 0;
  for (let p = 0; p < w * h; p++) {
    if (strength[p] >= hi) {
      ink[p] = 1;
      stack[top++] = p;
    }
  }
  while (top > 0) {
    const p = stack[--top];
    const x = p % w,
      y = (p - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx,
          yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const q = yy * w + xx;
        if (!ink[q] && strength[q] >= lo) {
          ink[q] = 1;
          stack[top++] = q;
        }
      }
    }
  }
  // What the threshold found, before the paper's furniture (its lines, margin and edge) is taken out.
  const found = ink.slice();
  // Ruled / squared paper. Only pixels of the lines' own colour (relative to the paper) are removed, so
  // a stroke that is long and straight, or that crosses a line, stays.
  // The sheet may be turned in the photo: lines are looked for along the angle at which the ink lines up best.
  // Only runs with bare paper on both sides are the sheet's lines (runSides): not a hatched fill's strokes,
  // nor a figure's own straight strokes (char1's and char3's coloured-in edges were read as 6 and 8 ruled
  // lines). On squared paper the cells are closed by the other family's lines, left out of the walls.
  const thinLine = Math.max(3, Math.round((hint?.long ?? Math.max(w, h)) * 0.005));
  const lineRuns = (mask: Uint8Array, deg: number) => {
    const level = deg ? rotateMask(mask, w, h, deg) : mask;
    const runs = (vertical: boolean, keep?: (line: number, start: number, end: number) => boolean) =>
      straightRuns(level, w, h, Math.round(0.15 * (vertical ? h : w)), vertical, keep);
    const all = [runs(false), runs(true)];
    const found = all.map((_, k) => {
      const other = all[1 - k];
      const walls = regularBands(other.bands) ? level.map((v, p) => v & (other.marks[p] ^ 1)) : level;
      const sides = runSides(walls, w, h, thinLine + 1);
      return runs(k === 1, (line, start, end) => sides(k === 1, line, start, end).outside < PAPER_LINED_RUN);
    });
    if (deg) for (const run of found) run.marks = rotateMask(run.marks, w, h, -deg);
    return found;
  };
  let angle = hint ? (hint.lines?.angle ?? 0) : dominantAngle(ink, w, h);
  let runs = lineRuns(ink, angle);
  if (!hint && !runs.some((run) => regularBands(run.bands))) {
    // In a hazy or dim photo the lines are only a few levels darker than their paper: under the ink
    // level in most places, they are ink in pieces too short to be seen as lines. They are looked for
    // again among the pixels at least FAINT_LINE darker; what is ink of their hue then goes as below.
    const faint = new Uint8Array(w * h);
    for (let p = 0; p < w * h; p++) faint[p] = strength[p] >= FAINT_LINE ? 1 : 0;
    const faintAngle = dominantAngle(faint, w, h);
    const faintRuns = lineRuns(faint, faintAngle);
    if (faintRuns.some((run) => regularBands(run.bands))) [angle, runs] = [faintAngle, faintRuns];
  }
  let ruledLines = 0;
  for (const [k, run] of runs.entries()) {
    const known = hint?.lines?.families.find((f) => f.vertical === (k === 1));
    if (hint ? !known : !regularBands(run.bands)) continue;
    ruledLines += known ? known.count : run.bands.length;
    // Read closer, the region's own long runs give the lines' hue against its own paper model when it
    // shows enough of them; the whole photo's hue is the fallback.
    const tone = known && maskArea(run.marks) < thinLine * w ? known.tone : lineTone(rgba, paper, run.marks);
    const hue = new Float32Array(3);
    // Every thin ink run across the lines' direction in the lines' hue goes, not only the long runs
    // found above: a line fades and breaks in a shadow or at low resolution.
    const across = k === 0 ? runLengths(ink, w, h, true) : runLengths(ink, w, h, false);
    const drop: number[] = [];
    for (let p = 0; p < w * h; p++) {
      if (ink[p] && across[p] <= thinLine && inLineHue(rgba, paper, p, tone, hue, !hint)) drop.push(p);
    }
    for (const p of drop) ink[p] = 0;
    const lineMask = model.lines?.mask ?? new Uint8Array(w * h);
    for (const p of drop) lineMask[p] = 1;
    const families = [...(model.lines?.families ?? []), { vertical: k === 1, tone, count: run.bands.length }];
    const main = families.reduce((a, b) => (b.count > a.count ? b : a));
    model.lines = { mask: lineMask, tone: main.tone, angle, families, thickness: thinLine };
  }
  // Only read closer (hint): on the whole photo a faint pencil outline is itself in crumbs that size.
  if (hint && model.lines) dropLineCrumbs(ink, model.lines.mask, w, h, thinLine);
  const lineDrops = model.lines?.mask.slice();
  if (ruledLines) ink = close(ink, w, h, 1);
  if (model.lines) model.lines.mask = dilate(model.lines.mask, w, h, 1);
  // A single long straight line (a margin, a fold) crossing a doodle is not caught as a component: its
  // thin pixels on runs over 40% of the picture go, along the rows and columns of the sheet's angle.
  // A margin or a fold has bare paper on both sides along much of its length, as the sheet's lines do; a
  // figure's own long stroke that an outline meets on one side or both (a hat's brim wider than the head
  // under it: generated seed 7 lost the brim's lower edge, and with it the whole outline's fill) has not.
  const levelNow = angle ? rotateMask(ink, w, h, angle) : ink;
  const sides = runSides(levelNow, w, h, thinLine + 1);
  for (const vertical of [false, true]) {
    const fill = (line: number, start: number, end: number): boolean => {
      const side = sides(vertical, line, start, end);
      return side.inside >= ENCLOSED_RUN || side.outside < PAPER_LINED_RUN;
    };
    const long = straightRuns(levelNow, w, h, Math.round(0.4 * (vertical ? h : w)), vertical, fill);
    const marks = angle ? rotateMask(long.marks, w, h, -angle) : long.marks;
    const across = runLengths(ink, w, h, !vertical);
    for (let p = 0; p < w * h; p++) if (marks[p] && across[p] <= thinLine) ink[p] = 0;
  }
  dropSheetEdges(ink, w, h);
  dropLongLines(ink, w, h, thinLine);
  // Strokes cut by the lines and faint stretches of an outline are joined again (stroke-gaps.ts).
  if (lineDrops) rejoinAcrossLines(ink, lineDrops, found, strength, thinLine * thinLine, w, h);
  bridgeFaintGaps(ink, strength, notStroke(rgba, model, found, ink, w, h), w, h);
  let inkCount = 0;
  for (let p = 0; p < w * h; p++) inkCount += ink[p];
  const evidence = { paperShare: paperCount / (w * h), inkShare: inkCount / (w * h), ruledLines, inkThreshold: hi };
  const empty = { mask: new Uint8Array(w * h), ink, model, evidence };
  if (inkCount < w * h * 0.0005) return { ...empty, inkBox: faintInkBox(rgba, model, found, ink, w, h, thinLine) };

  const { strokes, rivals, cover } = mainFigureInk(ink, w, h);
  const b = maskBounds(strokes, w, h);
  if (!b) return empty;
  // The closing radius: the one that seals the outline. The enclosed area is measured at each radius; the
  // step at which it grows the most (by at least SEAL_GROWTH) is where the outline closed. Beyond it a
  // larger radius only bridges gaps the artist left open (between the legs, under an arm).
  // Radii follow the figure's size (its strokes' box), not the photo's: a small drawing on a big sheet.
  const size = Math.max(b.x1 - b.x0 + 1, b.y1 - b.y0 + 1);
  const radii = CLOSING_STEPS.map((f) => Math.max(2, Math.round(size * f)));
  // The closings run on the strokes' box grown by the largest radius and 2 px: nothing they set reaches
  // past it, and its frame of empty pixels joins the outside all around as the whole picture would.
  const box = cropBox(b, w, h, radii[radii.length - 1] + 2);
  const boxStrokes = cropMask(strokes, w, box);
  const boxOff = sheet.edges ? cropMask(sheet.mask, w, box) : null;
  const areas = radii.map((r) => enclosedArea(boxStrokes, box.w, box.h, r, boxOff));
  let pick = 0,
    bestGrowth = SEAL_GROWTH;
  for (let i = 1; i < radii.length; i++) {
    const growth = areas[i] / Math.max(1, areas[i - 1]);
    if (growth > bestGrowth) [pick, bestGrowth] = [i, growth];
  }
  const speck = Math.max(1, Math.round(long * 0.003));
  const fg = openGaps(pasteMask(fillOutline(boxStrokes, box.w, box.h, radii[pick], boxOff, speck), box, w, h), strokes, w, h, size);
  return { mask: fg, ink, inkBox: b, rivals, cover, model, evidence: { ...evidence, sheetEdges: sheet.edges } };
}

/**
 * Pixels where faint darkening is no evidence of a stroke: within two pixels of what was found and taken
 * out as the paper's own (its lines, margin and edge: `found` but not `ink`), within the paper model's
 * window of the picture's border or the sheet's edge (the model is cut short there and the table's blur
 * leaks in), and pixels in the lines' hue.
 */
function notStroke(rgba: Buffer, model: PaperModel, found: Uint8Array, ink: Uint8Array, w: number, h: number): (p: number) => boolean {
  const { paper, lines, offSheet: off } = model;
  const furniture = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) furniture[p] = found[p] && !ink[p] ? 1 : 0;
  const nearFurniture = dilate(furniture, w, h, 2);
  const edge = Math.round(PAPER_WINDOW * Math.max(w, h));
  const nearEdge = off ? dilate(off, w, h, edge) : null;
  const hue = new Float32Array(3);
  return (p) => {
    const x = p % w,
      y = (p - x) / w;
    if (x < edge || y < edge || x >= w - edge || y >= h - edge || nearEdge?.[p] || nearFurniture[p]) return true;
    return !!lines?.families.some((f) => inLineHue(rgba, paper, p, f.tone, hue));
  };
}

/**
 * Strength (0..255) from which a pixel may be a faint stroke when the sheet shows almost no ink: a light
 * pencil drawing small on a large photo is reduced to the working size as a thin line 10-28 levels
 * darker than its paper (under MIN_INK), while the paper's grain and noise stay under 10 (the bench's
 * phone photos; bare noisy paper in test/engine/drawing-choice.test.ts gives no box).
 */
const FAINT_INK = 12;

/**
 * Where a drawing too faint to be ink at this scale lies (its box), so it can be read closer: pixels at
 * least FAINT_INK darker than the paper and away from the sheet's edges, in connected pieces at least
 * as long as a line is thick (a stroke, not grain), grouped into drawings as the ink is. The blur of
 * what was found and taken out as the paper's own (its lines, margin and edge: `found` but not `ink`,
 * grown by two pixels) is no stroke, nor is a pixel of the lines' hue. Undefined when there is no such
 * piece.
 */
function faintInkBox(
  rgba: Buffer,
  model: PaperModel,
  found: Uint8Array,
  ink: Uint8Array,
  w: number,
  h: number,
  thin: number,
): DrawingMaskResult['inkBox'] {
  const notFaint = notStroke(rgba, model, found, ink, w, h);
  const faint = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) {
    if (ink[p]) faint[p] = 1;
    else if (model.strength[p] >= FAINT_INK && !notFaint(p)) faint[p] = 1;
  }
  forEachComponent8(faint, w, h, (members, count) => {
    if (count < thin) for (let i = 0; i < count; i++) faint[members[i]] = 0;
  });
  return maskBounds(mainFigureInk(faint, w, h).strokes, w, h) ?? undefined;
}

/** Strokes closer than this share of the long side belong to one drawing (a sketchy, broken outline). */
const LINK_DISTANCE = 0.012;
/**
 * Another drawing covering at least this share of the chosen one's area is a rival for the figure: a
 * small figure read from the whole photo is in pieces and encloses only part of its body.
 */
const RIVAL_AREA = 0.25;
/** Rivals worth reading closer at most (each costs one more mask). */
const MAX_RIVALS = 2;

/**
 * The main figure's strokes: ink is grouped into drawings (strokes within LINK_DISTANCE of each other,
 * with what their linked outline encloses, so eyes drawn inside a head belong to it), the drawing
 * covering the most area (with its limbs' bands: strokeBands) among those with at least a tenth of the
 * most ink is the figure, and any other
 * group whose box lies mostly within the figure's box (grown by 10%) is part of it (a tail, a detached
 * hand); a doodle beside it, a name written under it or a leftover of the paper's lines elsewhere is not.
 */
function mainFigureInk(
  ink: Uint8Array,
  w: number,
  h: number,
): { strokes: Uint8Array; rivals: NonNullable<DrawingMaskResult['rivals']>; cover: number } {
  const r = Math.max(1, Math.round(Math.max(w, h) * LINK_DISTANCE * 0.5));
  const near = dilate(ink, w, h, r);
  const linked = fillHoles(near, w, h);
  const labels = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  const groups: Array<{ ink: number; area: number; x0: number; y0: number; x1: number; y1: number }> = [
    { ink: 0, area: 0, x0: 0, y0: 0, x1: 0, y1: 0 },
  ];
  for (let s = 0; s < w * h; s++) {
    if (!linked[s] || labels[s]) continue;
    const g = { ink: 0, area: 0, x0: w, y0: h, x1: -1, y1: -1 };
    const id = groups.length;
    groups.push(g);
    let top = 0;
    labels[s] = id;
    stack[top++] = s;
    while (top > 0) {
      const p = stack[--top];
      const x = p % w,
        y = (p - x) / w;
      // The area a drawing covers: its strokes and what they enclose, not the link's margin round them.
      if (ink[p] || !near[p]) g.area++;
      if (ink[p]) {
        g.ink++;
        if (x < g.x0) g.x0 = x;
        if (x > g.x1) g.x1 = x;
        if (y < g.y0) g.y0 = y;
        if (y > g.y1) g.y1 = y;
      }
      for (let k = 0; k < 4; k++) {
        const q =
          k === 0 ? (x > 0 ? p - 1 : -1) : k === 1 ? (x < w - 1 ? p + 1 : -1) : k === 2 ? (y > 0 ? p - w : -1) : y < h - 1 ? p + w : -1;
        if (q < 0 || !linked[q] || labels[q]) continue;
        labels[q] = id;
        stack[top++] = q;
      }
    }
  }
  // The bands of open strokes hanging from an outline (a stick figure's limbs under its head) count as
  // covered too, beyond what the drawing's ink and enclosed paper already cover (stroke-bands.ts).
  const bands = strokeBands(ink, w, h, labels);
  for (let p = 0; p < w * h; p++) {
    const id = bands[p];
    if (id && !(labels[p] === id && (ink[p] || !near[p]))) groups[id].area++;
  }
  // The figure: the drawing covering the most area (its ink, the paper its strokes enclose and its limbs'
  // bands) among those with at least a tenth of the most ink. A figure's outline encloses its body, a
  // stick figure's limbs reach round one; a doodle beside it (a sun with rays, a zigzag, a name) may span
  // a wider box or hold as much ink but encloses little and its lines are no limbs.
  let most = 0;
  for (let i = 1; i < groups.length; i++) most = Math.max(most, groups[i].ink);
  let main = 0,
    mainArea = 0;
  for (let i = 1; i < groups.length; i++) {
    const g = groups[i];
    if (g.ink >= 0.1 * most && g.area > mainArea) [main, mainArea] = [i, g.area];
  }
  const out = new Uint8Array(w * h);
  if (!main) return { strokes: out, rivals: [], cover: 0 };
  const m = groups[main];
  const gx = 0.1 * (m.x1 - m.x0 + 1),
    gy = 0.1 * (m.y1 - m.y0 + 1);
  const keep = groups.map((g, i) => {
    if (i === main) return true;
    if (!i || g.ink === 0) return false;
    const ix = Math.max(0, Math.min(g.x1, m.x1 + gx) - Math.max(g.x0, m.x0 - gx) + 1);
    const iy = Math.max(0, Math.min(g.y1, m.y1 + gy) - Math.max(g.y0, m.y0 - gy) + 1);
    return ix * iy >= 0.7 * (g.x1 - g.x0 + 1) * (g.y1 - g.y0 + 1);
  });
  for (let p = 0; p < w * h; p++) if (ink[p] && keep[labels[p]]) out[p] = 1;
  const rivals = groups
    .filter((g, i) => !keep[i] && g.ink >= 0.1 * most && g.area >= RIVAL_AREA * mainArea)
    .sort((a, b) => b.area - a.area)
    .slice(0, MAX_RIVALS)
    .map(({ x0, y0, x1, y1 }) => ({ x0, y0, x1, y1 }));
  return { strokes: out, rivals, cover: mainArea };
}

interface Box {
  x0: number;
  y0: number;
  w: number;
  h: number;
}

/** The bounds grown by `pad` on every side, clamped to the picture. */
function cropBox(b: { x0: number; y0: number; x1: number; y1: number }, w: number, h: number, pad: number): Box {
  const x0 = Math.max(0, b.x0 - pad),
    y0 = Math.max(0, b.y0 - pad);
  return { x0, y0, w: Math.min(w - 1, b.x1 + pad) - x0 + 1, h: Math.min(h - 1, b.y1 + pad) - y0 + 1 };
}

function cropMask(mask: Uint8Array, w: number, box: Box): Uint8Array {
  const out = new Uint8Array(box.w * box.h);
  for (let y = 0; y < box.h; y++) out.set(mask.subarray((box.y0 + y) * w + box.x0, (box.y0 + y) * w + box.x0 + box.w), y * box.w);
  return out;
}

function pasteMask(mask: Uint8Array, box: Box, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < box.h; y++) out.set(mask.subarray(y * box.w, (y + 1) * box.w), (box.y0 + y) * w + box.x0);
  return out;
}

/** Closing radii tried in turn, as fractions of the figure's long side. */
const CLOSING_STEPS = [0.006, 0.01, 0.016, 0.025, 0.035];
/** Growth of the enclosed area from one closing radius to the next that says the outline was sealed there. */
const SEAL_GROWTH = 1.3;

/** Strokes closed at radius r; the off-sheet band (when known) stays open, so nothing closes against the table. */
function closedStrokes(ink: Uint8Array, w: number, h: number, r: number, off: Uint8Array | null): Uint8Array {
  const closed = close(ink, w, h, r);
  if (off) for (let p = 0; p < w * h; p++) if (off[p]) closed[p] = 0;
  return closed;
}

/**
 * The strokes and the paper they enclose once closed at radius r. The pixels the closing itself sets do not
 * count: closing a wedge between two lines meeting at a narrow angle (a stick figure's arm and body) fills
 * it and grows with r without sealing anything (generated seed 6 on a ruled photo: its head already closed
 * at the smallest radius, the wedges grew the area 1.48x at the largest and were filled).
 */
function enclosedArea(ink: Uint8Array, w: number, h: number, r: number, off: Uint8Array | null): number {
  const closed = closedStrokes(ink, w, h, r, off);
  const outside = reachableFromBorder(closed, w, h);
  let n = 0;
  for (let p = 0; p < w * h; p++) if (!outside[p] && (ink[p] || !closed[p])) n++;
  return n;
}

/** `speck`: opening radius that removes specks and hairlines (from the picture's size, not the box's). */
function fillOutline(ink: Uint8Array, w: number, h: number, r: number, off: Uint8Array | null, speck: number): Uint8Array {
  const closed = closedStrokes(ink, w, h, r, off);
  const outside = reachableFromBorder(closed, w, h);
  let fg: Uint8Array = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) fg[p] = outside[p] ? 0 : 1;
  // Specks and hairlines go; the main figure is chosen on what is left.
  const body = keepLargestComponents(open(fg, w, h, speck), w, h, 0.25).mask;
  // Strokes connected to the figure come back whole (thin limbs drawn as one line), as does the
  // closed outline's own area around them.
  const grown = dilate(body, w, h, 1);
  const keep = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  let top = 0;
  for (let p = 0; p < w * h; p++) {
    if (body[p]) keep[p] = 1;
    else if (grown[p] && fg[p]) {
      keep[p] = 1;
      stack[top++] = p;
    }
  }
  while (top > 0) {
    const p = stack[--top];
    const x = p % w,
      y = (p - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx,
          yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const q = yy * w + xx;
        if (!keep[q] && fg[q]) {
          keep[q] = 1;
          stack[top++] = q;
        }
      }
    }
  }
  return fillHoles(keep, w, h);
}

/** Depth (share of the figure's long side, at least 2 px) from its strokes at which bare paper is open, not a hatching's gap. */
const OPEN_PAPER_DEPTH = 0.005;
/**
 * Above this share of the figure in open paper its inside is paper (an outline left uncoloured or
 * coloured in part): nothing is opened. The generated drawings of seeds 1-120 hatched or flat-coloured
 * 0.00-0.04, every other 0.17 or more.
 */
const MAX_OPEN_PAPER = 0.1;
/**
 * Half the width (share of the figure's long side) of the widest square of bare paper a gap between
 * parts must hold to be opened: seed 46's gap between its hanging arm and its body 9 px on a 435 px
 * figure (0.021); the paper sealed in the other hatched seeds of 1-120 (notches under an arm, between a
 * raised arm and the head) 4 px or less on 371-537 px figures (under 0.011). Opened too, those narrow
 * notches only narrow the joint they sit at: opening seed 46's notch between its head and raised arm (3 px)
 * left that shoulder joined by a thin neck of fill, and it tore on tpl_kick (2 of 24 frames).
 */
const GAP_HALF_WIDTH = 0.012;

/**
 * Bare paper the closing sealed in with a coloured figure (hatched or flat), taken out of the mask
 * again. A coloured figure's inside is ink (a hatching's lines closed over), so paper wide enough to hold
 * a square of 2 GAP_HALF_WIDTH, reached from the outside through the paper between the strokes, is the gap
 * between two parts drawn close together: seed 46 (a hatched oval body, an arm hanging beside it, its
 * hand 3 px from the leg) was closed at the smallest radius. Left in, the skeleton took arm and body for
 * one branch, the pose model put the elbow inside the body, the arm's region took half the body, and every
 * motion tore it. Only the gap's core goes (the paper opened at that width); its narrow tips stay.
 */
function openGaps(fg: Uint8Array, strokes: Uint8Array, w: number, h: number, size: number): Uint8Array {
  const paper = new Uint8Array(w * h);
  let area = 0;
  for (let p = 0; p < w * h; p++) {
    if (!fg[p]) continue;
    area++;
    if (!strokes[p]) paper[p] = 1;
  }
  if (area === 0) return fg;
  const openPaper = maskArea(erode(paper, w, h, Math.max(2, Math.round(size * OPEN_PAPER_DEPTH))));
  if (openPaper > MAX_OPEN_PAPER * area) return fg;
  const r = Math.max(3, Math.round(size * GAP_HALF_WIDTH));
  const core = erode(paper, w, h, r);
  if (maskArea(core) === 0) return fg;
  const wide = dilate(core, w, h, r);
  for (let p = 0; p < w * h; p++) wide[p] &= paper[p];
  const seeds: number[] = [];
  for (let p = 0; p < w * h; p++) if (!fg[p]) seeds.push(p);
  const leak = reach4(strokes, 0, w, h, seeds);
  const out = fg.slice();
  forEachComponent8(wide, w, h, (members, count) => {
    let leaks = false;
    for (let k = 0; k < count && !leaks; k++) if (leak[members[k]]) leaks = true;
    if (!leaks) return;
    for (let k = 0; k < count; k++) out[members[k]] = 0;
  });
  return out;
}
