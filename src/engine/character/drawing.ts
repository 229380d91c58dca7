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
 *  5. The outline is closed (radius grown until the filled figure covers a plausible share of its
 *     strokes' box), its inside filled, small specks removed, then ink strokes connected to the figure
 *     are added back whole, so thin limbs drawn as single lines survive the cleanup.
 *  6. The main figure is the largest filled component; others are kept only when nearly as large.
 *
 * Works at the analysis working size (<= 768 px long side); radii are fractions of the long side.
 */
import {
  close,
  dilate,
  fillHoles,
  keepLargestComponents,
  maskArea,
  maskBounds,
  open,
  otsuThreshold,
  reachableFromBorder,
} from '../vision/mask-ops.js';

export interface PaperModel {
  /** Paper colour per channel at each working pixel (w*h*3). */
  paper: Float32Array;
  /** Ink strength 0..255 per working pixel. */
  strength: Uint8Array;
  width: number;
  height: number;
}

export interface DrawingMaskResult {
  mask: Uint8Array;
  /** Thresholded ink (after ruled lines and the sheet edge were taken out). */
  ink: Uint8Array;
  model: PaperModel;
  evidence: {
    /** Share of the picture that reads as paper (bright-ish, low ink strength, low chroma). */
    paperShare: number;
    /** Share of the picture that is ink. */
    inkShare: number;
    ruledLines: number;
    inkThreshold: number;
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

/** Paper colour estimate and ink strength at the working size. */
export function paperModel(rgba: Buffer, w: number, h: number): PaperModel {
  const f = Math.max(1, Math.round(Math.max(w, h) / 192));
  const sw = Math.max(2, Math.ceil(w / f)),
    sh = Math.max(2, Math.ceil(h / f));
  // The window must outgrow strokes and small fills: 4% of the long side each way.
  const r = Math.max(2, Math.round(Math.max(sw, sh) * 0.04));
  const paper = new Float32Array(w * h * 3);
  for (let c = 0; c < 3; c++) {
    const small = new Float32Array(sw * sh);
    const count = new Float32Array(sw * sh);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const q = Math.floor(y / f) * sw + Math.floor(x / f);
        small[q] += rgba[(y * w + x) * 4 + c];
        count[q]++;
      }
    }
    for (let q = 0; q < sw * sh; q++) small[q] = count[q] ? small[q] / count[q] : 0;
    const closed = extremeFilter(extremeFilter(small, sw, sh, r, true), sw, sh, r, false);
    const smooth = boxBlur(closed, sw, sh, Math.max(1, r >> 1));
    for (let y = 0; y < h; y++) {
      const fy = Math.min(sh - 1, Math.max(0, (y + 0.5) / f - 0.5));
      const y0 = Math.floor(fy),
        y1 = Math.min(sh - 1, y0 + 1),
        ay = fy - y0;
      for (let x = 0; x < w; x++) {
        const fx = Math.min(sw - 1, Math.max(0, (x + 0.5) / f - 0.5));
        const x0 = Math.floor(fx),
          x1 = Math.min(sw - 1, x0 + 1),
          ax = fx - x0;
        const v =
          (smooth[y0 * sw + x0] * (1 - ax) + smooth[y0 * sw + x1] * ax) * (1 - ay) +
          (smooth[y1 * sw + x0] * (1 - ax) + smooth[y1 * sw + x1] * ax) * ay;
        paper[(y * w + x) * 3 + c] = Math.max(1, v);
      }
    }
  }
  const strength = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) {
    let s = 0;
    for (let c = 0; c < 3; c++) s = Math.max(s, 1 - rgba[p * 4 + c] / paper[p * 3 + c]);
    strength[p] = Math.round(Math.max(0, Math.min(1, s)) * 255);
  }
  return { paper, strength, width: w, height: h };
}

/** Below this strength (0..255) nothing is ink, whatever Otsu says: paper grain, JPEG noise, soft shadow edges. */
const MIN_INK = 28;
/** Strength from which a pixel seeds ink for the hysteresis, whatever Otsu says (~17% darker than the paper). */
const MAX_SEED = 44;

/**
 * Long straight runs along rows (or columns), allowing a 1 px wobble: marks the ink pixels on runs of at
 * least `minRun`, and returns the centre of each separate band of such rows.
 */
function straightRuns(ink: Uint8Array, w: number, h: number, minRun: number, vertical: boolean): { marks: Uint8Array; bands: number[] } {
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
        if (i - start >= minRun) {
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

/** How far (any channel of hueAt) a pixel's ink hue may be from the ruled lines' and still be a line. */
const LINE_TONE_TOLERANCE = 0.3;

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
 * is 1. A faint or anti-aliased line pixel (ink blended with paper) keeps the hue of the line.
 */
function hueAt(rgba: Buffer, paper: Float32Array, p: number, out: number[]): void {
  let m = 1e-3;
  for (let c = 0; c < 3; c++) m = Math.max(m, (out[c] = Math.max(0, 1 - rgba[p * 4 + c] / paper[p * 3 + c])));
  for (let c = 0; c < 3; c++) out[c] /= m;
}

function toneDistance(rgba: Buffer, paper: Float32Array, p: number, tone: number[]): number {
  const hue = [0, 0, 0];
  hueAt(rgba, paper, p, hue);
  return Math.max(Math.abs(hue[0] - tone[0]), Math.abs(hue[1] - tone[1]), Math.abs(hue[2] - tone[2]));
}

/** Median hue (see hueAt) of the marked pixels. */
function lineTone(rgba: Buffer, paper: Float32Array, marks: Uint8Array): number[] {
  const vals: number[][] = [[], [], []];
  const hue = [0, 0, 0];
  for (let p = 0; p < marks.length; p++) {
    if (!marks[p]) continue;
    hueAt(rgba, paper, p, hue);
    for (let c = 0; c < 3; c++) vals[c].push(hue[c]);
  }
  return vals.map((v) => v.sort((a, b) => a - b)[v.length >> 1] ?? 1);
}

/** Ink components touching the picture's border that run along it, long and thin: the sheet's edge, a table. */
function dropSheetEdges(ink: Uint8Array, w: number, h: number): void {
  const labels = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  let id = 0;
  for (let s = 0; s < w * h; s++) {
    if (!ink[s] || labels[s]) continue;
    id++;
    let top = 0,
      area = 0,
      border = false;
    let x0 = w,
      y0 = h,
      x1 = 0,
      y1 = 0;
    const members: number[] = [];
    labels[s] = id;
    stack[top++] = s;
    while (top > 0) {
      const p = stack[--top];
      members.push(p);
      area++;
      const x = p % w,
        y = (p - x) / w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) border = true;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx,
            yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const q = yy * w + xx;
          if (ink[q] && !labels[q]) {
            labels[q] = id;
            stack[top++] = q;
          }
        }
      }
    }
    if (!border) continue;
    // Mostly within a band along the border: the sheet's edge or the table, not a figure reaching it.
    const band = Math.max(3, Math.round(0.06 * Math.max(w, h)));
    let nearBorder = 0;
    for (const p of members) {
      const x = p % w,
        y = (p - x) / w;
      if (x < band || y < band || x >= w - band || y >= h - band) nearBorder++;
    }
    const spans = x1 - x0 + 1 >= 0.5 * w || y1 - y0 + 1 >= 0.5 * h;
    if (spans && nearBorder >= 0.6 * area) for (const p of members) ink[p] = 0;
  }
}

export function drawingMask(rgba: Buffer, w: number, h: number, model = paperModel(rgba, w, h)): DrawingMaskResult {
  const { strength, paper } = model;
  const long = Math.max(w, h);
  // Paper: little ink strength, a light and nearly grey paper colour.
  let paperCount = 0;
  const hist = new Uint32Array(256);
  for (let p = 0; p < w * h; p++) {
    hist[strength[p]]++;
    const r = paper[p * 3],
      g = paper[p * 3 + 1],
      b = paper[p * 3 + 2];
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
  // Ruled / squared paper. Only pixels of the lines' own colour (relative to the paper) are removed, so
  // a stroke that is long and straight, or that crosses a line, stays.
  const runs = [straightRuns(ink, w, h, Math.round(0.15 * w), false), straightRuns(ink, w, h, Math.round(0.15 * h), true)];
  let ruledLines = 0;
  const thinLine = Math.max(3, Math.round(long * 0.005));
  for (const [k, run] of runs.entries()) {
    if (!regularBands(run.bands)) continue;
    ruledLines += run.bands.length;
    const tone = lineTone(rgba, paper, run.marks);
    // Every thin ink run across the lines' direction in the lines' hue goes, not only the long runs
    // found above: a line fades and breaks in a shadow or at low resolution.
    const across = k === 0 ? runLengths(ink, w, h, true) : runLengths(ink, w, h, false);
    const drop: number[] = [];
    for (let p = 0; p < w * h; p++) {
      if (ink[p] && across[p] <= thinLine && toneDistance(rgba, paper, p, tone) <= LINE_TONE_TOLERANCE) drop.push(p);
    }
    for (const p of drop) ink[p] = 0;
  }
  if (ruledLines) ink = close(ink, w, h, 1);
  dropSheetEdges(ink, w, h);
  let inkCount = 0;
  for (let p = 0; p < w * h; p++) inkCount += ink[p];
  const evidence = { paperShare: paperCount / (w * h), inkShare: inkCount / (w * h), ruledLines, inkThreshold: hi };
  const empty = { mask: new Uint8Array(w * h), ink, model, evidence };
  if (inkCount < w * h * 0.0005) return empty;

  const strokes = keepLargestComponents(ink, w, h, 0.05).mask;
  const b = maskBounds(strokes, w, h);
  if (!b) return empty;
  const boxArea = (b.x1 - b.x0 + 1) * (b.y1 - b.y0 + 1);
  let fg: Uint8Array = new Uint8Array(w * h);
  for (const f of CLOSING_STEPS) {
    fg = fillOutline(ink, w, h, Math.max(2, Math.round(long * f)));
    if (maskArea(fg) >= boxArea * MIN_FILL_OF_BOX) break;
  }
  return { mask: fg, ink, model, evidence };
}

/** Closing radii tried in turn, as fractions of the long side. */
const CLOSING_STEPS = [0.006, 0.01, 0.016, 0.025, 0.035];
/** A filled figure covering less than this share of its strokes' bounding box has leaked. */
const MIN_FILL_OF_BOX = 0.3;

function fillOutline(ink: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const closed = close(ink, w, h, r);
  const outside = reachableFromBorder(closed, w, h);
  let fg: Uint8Array = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) fg[p] = outside[p] ? 0 : 1;
  // Specks and hairlines go; the main figure is chosen on what is left.
  const body = keepLargestComponents(open(fg, w, h, Math.max(1, Math.round(Math.max(w, h) * 0.003))), w, h, 0.25).mask;
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
