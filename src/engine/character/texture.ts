/**
 * texture.png: the crop rectangle of the oriented source at full resolution (capped at
 * MAX_TEXTURE_SIDE on its long side, a drawing's at DRAWING_TEXTURE_SIDE), with alpha from the working-size mask enlarged bilinearly after a
 * small blur, which gives a soft 1-2 px edge instead of the mask's staircase. The colours along that
 * edge are then re-estimated as the figure's own (edge-colour.ts), so no band of the picture's old
 * background goes with the figure.
 */
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { EngineError } from '../types.js';
import { dilate, erode, maskBounds, reachableFromBorder } from '../vision/mask-ops.js';
import { cleanEdges, pullPush } from './edge-colour.js';
import { LINE_TONE_TOLERANCE, textureBalance, type PaperModel } from './drawing.js';
import { INK, liftLines, paperOverLines } from './paper-lines.js';

/** Long-side cap of texture.png; above it the crop is downscaled (scale = texture width / crop.width). */
export const MAX_TEXTURE_SIDE = 2048;
/**
 * Long-side cap of a drawing's texture (cut along its ink at this size, see readTextureSource). Renders are
 * at most 1920 px on their long side (render-video.ts) and a figure fills 91% of its crop (the 5% margin),
 * so 1536 px still gives a figure up to 1400 px: more than a standing figure takes in a 1920 px frame
 * below its headroom. The cut, the rim and the rig's reading of the texture scale with its pixels: on the
 * 12 MP photos of the drawings bench 44% fewer of them (see docs/figures.md, Speed).
 */
export const DRAWING_TEXTURE_SIDE = 1536;
const THUMBNAIL_SIDE = 256;
/**
 * How far (working px) a mask's edge may sit off the figure's: the band inside the alpha edge whose
 * colours are re-estimated.
 */
const EDGE_UNCERTAINTY = 1.5;
/**
 * How far (working px) inside its edge a mask may have swallowed background: the person model reads
 * the figure's box at 256 px, i.e. 2-3 working px per model px on a figure filling the picture, and
 * overshoots by a model pixel or two. Within it, pixels coloured like the background just outside and
 * unlike the figure past the band are cut.
 */
const EDGE_TRIM = 8;

export interface TextureJob {
  imageFile: string;
  crop: { x: number; y: number; width: number; height: number };
  /** 0/1 mask at working size; working px = source px * maskScale. */
  mask: Uint8Array;
  maskWidth: number;
  maskHeight: number;
  maskScale: number;
  /** Source pixel at the working mask's (0, 0) when the mask covers only a region of the picture. */
  maskOrigin?: { x: number; y: number };
  /** Alpha images keep their own alpha (limited to the cleaned mask's neighbourhood). */
  keepSourceAlpha: boolean;
  textureFile: string;
  thumbnailFile: string | null;
  /**
   * Drawings on paper: the paper model at working size. The figure's edge is then cut along the ink at
   * full resolution (the outline stroke kept whole, the paper outside it dropped) and the paper's shading
   * (light fall-off, a shadow) is divided out of the colours.
   */
  paper?: PaperModel;
}

/** 3x3 box blur of a 0/1 mask into 0..255. */
function soften(mask: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0,
        n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          s += mask[yy * w + xx];
          n++;
        }
      }
      out[y * w + x] = Math.round((255 * s) / n);
    }
  }
  return out;
}

/** The texture crop's pixels, RGBA, as decoded for the cut. */
export interface TextureSource {
  rgba: Buffer;
  width: number;
  height: number;
}

/**
 * Decodes the texture's crop of the picture (EXIF orientation applied). Drawings (`drawing`) are cut at
 * the texture's own size: the cut reads every pixel, and a 12 MP photo's crop would otherwise be cut at
 * full size only to be reduced afterwards.
 */
export async function readTextureSource(imageFile: string, crop: TextureJob['crop'], drawing: boolean): Promise<TextureSource> {
  const reduce = drawing && Math.max(crop.width, crop.height) > DRAWING_TEXTURE_SIDE;
  try {
    let img = sharp(imageFile).rotate().extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height });
    if (reduce) img = img.resize({ width: DRAWING_TEXTURE_SIDE, height: DRAWING_TEXTURE_SIDE, fit: 'inside' });
    const { data, info } = await img.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { rgba: data, width: info.width, height: info.height };
  } catch (err) {
    throw new EngineError('UNSUPPORTED_MEDIA', `Image cannot be decoded: ${(err as Error).message}`, { imageFile });
  }
}

/**
 * Cuts and writes the texture; `source`, when given, is readTextureSource's decode of the same crop, started
 * earlier. `beside` gets the finished texture's pixels (read only) while its PNG is encoded on libuv's threads.
 */
export async function writeTexture(
  job: TextureJob,
  source?: Promise<TextureSource>,
  beside?: (texture: TextureSource) => void,
): Promise<void> {
  const { crop } = job;
  let { rgba, width: tw, height: th } = await (source ?? readTextureSource(job.imageFile, crop, !!job.paper));
  const cut = job.paper ? cutAlongInk(rgba, tw, th, job) : null;
  if (!job.paper) alphaFromMask(rgba, job);
  if (Math.max(tw, th) > MAX_TEXTURE_SIDE) {
    const { data, info } = await sharp(rgba, { raw: { width: tw, height: th, channels: 4 } })
      .resize({ width: MAX_TEXTURE_SIDE, height: MAX_TEXTURE_SIDE, fit: 'inside' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    [rgba, tw, th] = [data, info.width, info.height];
  }
  if (cut) {
    // Drawings are cut along the ink at the texture's resolution: the stroke's blur beyond the cut and the
    // outline's rim take the stroke's own colour (outlineRim). Unmixing that rim against the paper with
    // the figure's colour extrapolated from inside (edge-colour.ts) drew a light line along the outside of
    // every outline: a drawing's inside is paper-coloured.
    outlineRim(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), cut, tw, th);
  } else if (!job.keepSourceAlpha) {
    // The picture's own alpha is trusted with its colours; a mask-cut edge is not (see edge-colour.ts).
    // Masks come from a working-size grid (and the person model's 256 px one).
    const workPx = tw / crop.width / job.maskScale;
    cleanEdges(rgba, tw, th, { inset: Math.max(1, EDGE_UNCERTAINTY * workPx), trim: Math.max(2, EDGE_TRIM * workPx) });
  }
  const encoding = sharp(rgba, { raw: { width: tw, height: th, channels: 4 } })
    .png({ compressionLevel: 4 })
    .toBuffer();
  try {
    beside?.({ rgba, width: tw, height: th });
  } catch (err) {
    await encoding.catch(() => undefined);
    throw err;
  }
  const png = await encoding;
  await writeFile(job.textureFile, png);
  if (job.thumbnailFile) {
    await sharp(png).resize({ width: THUMBNAIL_SIDE, height: THUMBNAIL_SIDE, fit: 'inside' }).png().toFile(job.thumbnailFile);
  }
}

/** Alpha from the working-size mask: softened 3x3 and enlarged bilinearly (or the source's own alpha, gated). */
/** The crop in the working mask's frame: source pixels counted from the mask's origin. */
function cropInMask(job: TextureJob): TextureJob['crop'] {
  const o = job.maskOrigin ?? { x: 0, y: 0 };
  return { ...job.crop, x: job.crop.x - o.x, y: job.crop.y - o.y };
}

function alphaFromMask(rgba: Buffer, job: TextureJob): void {
  const { maskWidth: mw, maskHeight: mh, maskScale: s } = job;
  const crop = cropInMask(job);
  const soft = job.keepSourceAlpha ? dilate(job.mask, mw, mh, 2) : soften(job.mask, mw, mh);
  for (let ty = 0; ty < crop.height; ty++) {
    const my = Math.min(mh - 1, Math.max(0, (crop.y + ty + 0.5) * s - 0.5));
    const y0 = Math.floor(my);
    const y1 = Math.min(mh - 1, y0 + 1);
    const ay = my - y0;
    for (let tx = 0; tx < crop.width; tx++) {
      const mx = Math.min(mw - 1, Math.max(0, (crop.x + tx + 0.5) * s - 0.5));
      const x0 = Math.floor(mx);
      const x1 = Math.min(mw - 1, x0 + 1);
      const ax = mx - x0;
      const o = (ty * crop.width + tx) * 4 + 3;
      if (job.keepSourceAlpha) {
        // Nearest lookup: the dilated mask only gates stray specks; the edge quality is the source's.
        if (!soft[Math.round(my) * mw + Math.round(mx)]) rgba[o] = 0;
        continue;
      }
      const top = soft[y0 * mw + x0] * (1 - ax) + soft[y0 * mw + x1] * ax;
      const bot = soft[y1 * mw + x0] * (1 - ax) + soft[y1 * mw + x1] * ax;
      rgba[o] = Math.round(top * (1 - ay) + bot * ay);
    }
  }
}

/** A ruled line's pixel at most this much darker than the line's median: darker is a stroke crossing it. */
const LINE_DARKER = 1.3;

/** What the outline's rim needs from the cut (see outlineRim), at the texture's size. */
interface RimInput {
  kept: Uint8Array;
  strength: Float32Array;
  line: Uint8Array;
  /** The annotation's pixel in texture pixels (see outlineRim). */
  unit: number;
  /** The rim of a small figure at the picture's own scale (see outlineRim), texture pixels. */
  ringPx: number;
  /** The picture's own pixel in texture pixels. */
  picturePx: number;
  /** The figure's long side over the working picture's. */
  fill: number;
}

/**
 * Drawings: alpha from the ink along the figure's edge, colours without the paper's shading, on the
 * texture's pixels (`tw` x `th`, the crop at full resolution or reduced to DRAWING_TEXTURE_SIDE). Inside the
 * working mask shrunk by one working pixel everything is figure; outside it grown by two nothing is; in
 * the ring between, a pixel is figure unless it is paper (not ink) connected to the outside through
 * paper, so the outline stroke stays whole and no rim of paper remains beyond it. Paper pixels touching
 * the stroke keep a partial alpha by how much ink they carry (anti-aliasing).
 *
 * Runs over every texture pixel (several million on a phone photo): typed arrays, per-row and
 * per-column lookups computed once, no allocation per pixel.
 */
function cutAlongInk(rgba: Buffer, tw: number, th: number, job: TextureJob): RimInput {
  const { maskWidth: mw, maskHeight: mh, maskScale: s } = job;
  const crop = cropInMask(job);
  const model = job.paper!;
  const pp = paperUnderFigure(model, job.mask);
  const off = model.offSheet;
  const lines = model.lines;
  const inner = erode(job.mask, mw, mh, 1);
  const outer = dilate(job.mask, mw, mh, 2);
  // Reference paper colour: the brightest-lit paper under the figure (90th percentile per channel of the
  // paper model over the crop), so shading is lifted to it and the paper keeps its own tint.
  const ref = [0, 0, 0];
  {
    const x0 = Math.max(0, Math.floor(crop.x * s)),
      x1 = Math.min(mw - 1, Math.ceil((crop.x + crop.width) * s));
    const y0 = Math.max(0, Math.floor(crop.y * s)),
      y1 = Math.min(mh - 1, Math.ceil((crop.y + crop.height) * s));
    const n = Math.max(0, Math.ceil((x1 - x0 + 1) / 2) * Math.ceil((y1 - y0 + 1) / 2));
    const vals = new Float32Array(n);
    for (let c = 0; c < 3; c++) {
      let k = 0;
      for (let y = y0; y <= y1; y += 2) for (let x = x0; x <= x1; x += 2) vals[k++] = pp[(y * mw + x) * 3 + c];
      const v = vals.subarray(0, k).sort();
      ref[c] = k ? v[Math.floor(k * 0.9)] : 255;
    }
  }
  // The light's colour taken out, cautiously (a sheet's own colour and a light's are one in a photo).
  const balance = textureBalance(model.light);
  for (let c = 0; c < 3; c++) ref[c] = Math.min(255, ref[c] * balance[c]);
  // Texture pixel -> working-mask coordinates, per column and per row (texture px = source px * k).
  const kx = tw / crop.width,
    ky = th / crop.height;
  const colX0 = new Int32Array(tw),
    colX1 = new Int32Array(tw),
    colA = new Float32Array(tw),
    colN = new Int32Array(tw);
  for (let tx = 0; tx < tw; tx++) {
    const mx = Math.min(mw - 1, Math.max(0, (crop.x + (tx + 0.5) / kx) * s - 0.5));
    colX0[tx] = Math.floor(mx);
    colX1[tx] = Math.min(mw - 1, colX0[tx] + 1);
    colA[tx] = mx - colX0[tx];
    colN[tx] = Math.min(mw - 1, Math.round(mx));
  }
  // 0 outside, 1 ring, 2 inside; ink strength (share darker than the paper, darkest channel) per pixel.
  const cls = new Uint8Array(tw * th);
  const strength = new Float32Array(tw * th);
  // Ring pixels of a ruled line's hue where the drawing mask took a line out (paper, whatever their
  // darkness), and ring pixels on the working mask itself (where the figure's own strokes lie).
  const line = new Uint8Array(tw * th);
  const onMask = new Uint8Array(tw * th);
  const out8 = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length);
  const r0 = ref[0],
    r1 = ref[1],
    r2 = ref[2];
  inkAndPaper({
    rgba,
    out8,
    pp,
    tw,
    th,
    mw,
    mh,
    s,
    cropY: crop.y,
    ky,
    colX0,
    colX1,
    colA,
    colN,
    off,
    inner,
    outer,
    mask: job.mask,
    lines,
    ref,
    cls,
    strength,
    line,
    onMask,
  });
  // A line's own darkness (median over the candidates): where the figure's stroke crosses a line, the
  // pixel is darker than the line alone and stays ink, so the outline is not notched at every line.
  // Candidates in the ring (line[t] = 1) set it; with none there, those inside the figure (2) do.
  let ring = 0,
    inside = 0;
  for (let t = 0; t < tw * th; t++) {
    if (line[t] === 1) ring++;
    else if (line[t] === 2) inside++;
  }
  const from = ring ? 1 : 2;
  const candidates = ring || inside;
  // Pixels of the figure on a ruled line, lifted to the paper colour here or by liftLines.
  const onLine = new Uint8Array(tw * th);
  if (candidates) {
    const vals = new Float32Array(candidates);
    let k = 0;
    for (let t = 0; t < tw * th; t++) if (line[t] === from) vals[k++] = strength[t];
    const lineStrength = vals.sort()[candidates >> 1];
    for (let t = 0; t < tw * th; t++) {
      if (!line[t]) continue;
      if (strength[t] > LINE_DARKER * lineStrength) line[t] = 0;
      else if (line[t] === 2) {
        // Inside the figure a ruled line is paper too: it takes the paper's colour (the drawing's own
        // strokes crossing it are darker than the line and stay), so the character does not carry the
        // sheet's lines across its body.
        line[t] = 0;
        onLine[t] = 1;
        out8[t * 4] = r0;
        out8[t * 4 + 1] = r1;
        out8[t * 4 + 2] = r2;
      }
    }
    paperOverLines(out8, onLine, strength, cls, tw, th, LINE_DARKER * lineStrength);
    if (lines) liftLines({ out8, strength, cls, onLine, tw, th, lines, lineStrength, ref, texPerWork: kx / s });
  }
  const kept = figureAlpha(out8, cls, strength, line, onMask, tw, th);
  // The annotation's pixel: the figure is annotated at about ANNOTATED_FIGURE px on its long side, so an
  // enlarged drawing's rim is wider in pixels and a reduced one's narrower.
  const box = maskBounds(job.mask, mw, mh);
  const figure = box ? Math.max(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1) / s : 0;
  const unit = (Math.min(kx, ky) * figure) / ANNOTATED_FIGURE;
  // At about the picture's own scale the old rim: the stroke's blur beside the ink and one picture pixel.
  const ringPx = Math.floor(Math.min(kx, ky) * Math.max(1, figure * RIM_SHARE) + 0.25);
  const fill = box ? Math.max(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1) / Math.max(mw, mh) : 0;
  return { kept, strength, line, unit, ringPx, picturePx: Math.min(kx, ky), fill };
}

/**
 * cutAlongInk's alpha from its classes (written into `out8`), returning the figure's pixels: paper in the
 * ring reachable from the outside, the figure 8-connected to its inside, the stroke's partial-alpha halo.
 * Each pass is its own function (typed arrays only) so that V8 optimises each loop on its own.
 */
function figureAlpha(
  out8: Uint8ClampedArray,
  cls: Uint8Array,
  strength: Float32Array,
  line: Uint8Array,
  onMask: Uint8Array,
  tw: number,
  th: number,
): Uint8Array {
  const stack = new Int32Array(tw * th);
  const out = paperFromOutside(cls, strength, line, tw, th, stack);
  const kept = figureFromInside(out, cls, onMask, tw, th, stack);
  const halo = strokeHalo(kept, cls, line, strength, tw, th, stack);
  writeAlpha(out8, kept, halo, strength, tw * th);
  return kept;
}

/** Paper in the ring reachable from the outside through paper (4-connected): seeded by the ring's paper pixels next to the outside, grown through the ring's paper. */
function paperFromOutside(
  cls: Uint8Array,
  strength: Float32Array,
  line: Uint8Array,
  tw: number,
  th: number,
  stack: Int32Array,
): Uint8Array {
  const out = new Uint8Array(tw * th);
  let top = 0;
  const n = tw * th;
  const isPaper = (u: number): boolean => cls[u] === 1 && (strength[u] < INK || line[u] === 1);
  for (let t = 0; t < n; t++) {
    if (cls[t] === 0) {
      out[t] = 1;
      continue;
    }
    if (!isPaper(t)) continue;
    const x = t % tw;
    if (
      (x > 0 && cls[t - 1] === 0) ||
      (x < tw - 1 && cls[t + 1] === 0) ||
      (t >= tw && cls[t - tw] === 0) ||
      (t + tw < n && cls[t + tw] === 0)
    ) {
      out[t] = 1;
      stack[top++] = t;
    }
  }
  const visit = (u: number): void => {
    if (out[u] || !isPaper(u)) return;
    out[u] = 1;
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
  return out;
}

/** The figure: what is not outside, 8-connected to the inside or to ink on the working mask. Specks of ink in the ring that touch neither (paper grain, a dot of the sheet) are paper. */
function figureFromInside(out: Uint8Array, cls: Uint8Array, onMask: Uint8Array, tw: number, th: number, stack: Int32Array): Uint8Array {
  const n = tw * th;
  const kept = new Uint8Array(n);
  let top = 0;
  for (let t = 0; t < n; t++) {
    if (out[t] || !(cls[t] === 2 || onMask[t])) continue;
    kept[t] = 1;
    stack[top++] = t;
  }
  while (top > 0) {
    const t = stack[--top];
    const x = t % tw;
    for (let dy = -tw; dy <= tw; dy += tw) {
      for (let dx = -1; dx <= 1; dx++) {
        if ((dx < 0 && x === 0) || (dx > 0 && x === tw - 1)) continue;
        const u = t + dy + dx;
        if (u < 0 || u >= n || kept[u] || out[u]) continue;
        kept[u] = 1;
        stack[top++] = u;
      }
    }
  }
  return kept;
}

/**
 * Paper pixels around the figure keep a partial alpha by how much ink they carry (the stroke's blur,
 * a few pixels wide when the drawing was enlarged) where they join the figure through such pixels
 * (at least a quarter of the ink level); grain further out and a line's pixels get none.
 */
function strokeHalo(
  kept: Uint8Array,
  cls: Uint8Array,
  line: Uint8Array,
  strength: Float32Array,
  tw: number,
  th: number,
  stack: Int32Array,
): Uint8Array {
  const n = tw * th;
  const halo = new Uint8Array(n);
  let top = 0;
  for (let t = 0; t < n; t++) if (kept[t]) stack[top++] = t;
  while (top > 0) {
    const t = stack[--top];
    const x = t % tw;
    for (let dy = -tw; dy <= tw; dy += tw) {
      for (let dx = -1; dx <= 1; dx++) {
        if ((dx < 0 && x === 0) || (dx > 0 && x === tw - 1)) continue;
        const u = t + dy + dx;
        if (u < 0 || u >= n || kept[u] || halo[u] || cls[u] !== 1 || line[u] || strength[u] < INK / 4) continue;
        halo[u] = 1;
        stack[top++] = u;
      }
    }
  }
  return halo;
}

/**
 * Fully transparent pixels get no colour: the renderer premultiplies, so it is never seen, and the
 * paper's grain there would only make the PNG larger and slower to write (3x on a phone photo).
 */
function writeAlpha(out8: Uint8ClampedArray, kept: Uint8Array, halo: Uint8Array, strength: Float32Array, n: number): void {
  for (let t = 0; t < n; t++) {
    const a = kept[t] ? 255 : halo[t] ? (255 * strength[t]) / INK : 0;
    out8[t * 4 + 3] = a;
    if (out8[t * 4 + 3] === 0) out8[t * 4] = out8[t * 4 + 1] = out8[t * 4 + 2] = 0;
  }
}

/** cutAlongInk's pass over every texture pixel: its class, ink strength, colour over the paper model, ruled-line candidates. */
function inkAndPaper(o: {
  rgba: Buffer;
  out8: Uint8ClampedArray;
  pp: Float32Array;
  tw: number;
  th: number;
  mw: number;
  mh: number;
  s: number;
  cropY: number;
  ky: number;
  colX0: Int32Array;
  colX1: Int32Array;
  colA: Float32Array;
  colN: Int32Array;
  off: Uint8Array | undefined;
  inner: Uint8Array;
  outer: Uint8Array;
  mask: Uint8Array;
  lines: PaperModel['lines'];
  ref: number[];
  cls: Uint8Array;
  strength: Float32Array;
  line: Uint8Array;
  onMask: Uint8Array;
}): void {
  const {
    rgba,
    out8,
    pp,
    tw,
    th,
    mw,
    mh,
    s,
    cropY,
    ky,
    colX0,
    colX1,
    colA,
    colN,
    off,
    inner,
    outer,
    mask,
    lines,
    cls,
    strength,
    line,
    onMask,
  } = o;
  const r0 = o.ref[0],
    r1 = o.ref[1],
    r2 = o.ref[2];
  for (let ty = 0; ty < th; ty++) {
    const my = Math.min(mh - 1, Math.max(0, (cropY + (ty + 0.5) / ky) * s - 0.5));
    const y0 = Math.floor(my),
      y1 = Math.min(mh - 1, y0 + 1),
      ay = my - y0,
      by = 1 - ay;
    const row0 = y0 * mw,
      row1 = y1 * mw,
      rowN = Math.min(mh - 1, Math.round(my)) * mw;
    for (let tx = 0; tx < tw; tx++) {
      const q = rowN + colN[tx];
      const t = ty * tw + tx;
      const k = off && off[q] ? 0 : inner[q] ? 2 : outer[q] ? 1 : 0;
      cls[t] = k;
      // Outside the ring the pixel is transparent: neither its colour nor its ink matters.
      if (k === 0) continue;
      const ax = colA[tx],
        bx = 1 - ax;
      const w00 = bx * by,
        w01 = ax * by,
        w10 = bx * ay,
        w11 = ax * ay;
      const i00 = (row0 + colX0[tx]) * 3,
        i01 = (row0 + colX1[tx]) * 3,
        i10 = (row1 + colX0[tx]) * 3,
        i11 = (row1 + colX1[tx]) * 3;
      const p0 = Math.max(1, pp[i00] * w00 + pp[i01] * w01 + pp[i10] * w10 + pp[i11] * w11);
      const p1 = Math.max(1, pp[i00 + 1] * w00 + pp[i01 + 1] * w01 + pp[i10 + 1] * w10 + pp[i11 + 1] * w11);
      const p2 = Math.max(1, pp[i00 + 2] * w00 + pp[i01 + 2] * w01 + pp[i10 + 2] * w10 + pp[i11 + 2] * w11);
      const o = t * 4;
      const c0 = rgba[o],
        c1 = rgba[o + 1],
        c2 = rgba[o + 2];
      strength[t] = Math.max(0, 1 - c0 / p0, 1 - c1 / p1, 1 - c2 / p2);
      out8[o] = (c0 * r0) / p0;
      out8[o + 1] = (c1 * r1) / p1;
      out8[o + 2] = (c2 * r2) / p2;
      if (k === 1) onMask[t] = mask[q];
      if (lines && lines.mask[q]) {
        const a0 = Math.max(0, 1 - c0 / p0),
          a1 = Math.max(0, 1 - c1 / p1),
          a2 = Math.max(0, 1 - c2 / p2);
        const m = Math.max(1e-3, a0, a1, a2),
          tone = lines.tone;
        const d = Math.max(Math.abs(a0 / m - tone[0]), Math.abs(a1 / m - tone[1]), Math.abs(a2 / m - tone[2]));
        if (d <= LINE_TONE_TOLERANCE) line[t] = k;
      }
    }
  }
}

/**
 * The paper's colour under the figure. The paper model is a closing of the picture at 4% of its long side:
 * a coloured-in area wider than that (a jumper, a dress) stays in it as "paper", and dividing by it lifts
 * the fill towards white from its middle (a pale glow). The paper beyond the closing's reach of the
 * figure is filled in smoothly under it (pull-push; the table beyond the sheet does not count) and taken
 * inside the figure where it is lighter than the model, so a fill keeps its colour and the light's
 * fall-off and a shadow across the sheet are still divided out.
 */
function paperUnderFigure(model: PaperModel, mask: Uint8Array): Float32Array {
  const { width: w, height: h, paper, offSheet } = model;
  const reach = Math.max(2, Math.round(Math.max(w, h) * PAPER_REACH));
  const near = dilate(mask, w, h, reach);
  const known = new Uint8Array(w * h);
  let count = 0;
  for (let p = 0; p < w * h; p++) {
    if (near[p] || (offSheet && offSheet[p])) continue;
    known[p] = 1;
    count++;
  }
  // Too little paper around (the figure fills the sheet): keep the model as it is.
  if (count < 0.05 * w * h) return paper;
  const around = pullPush(paper, known, w, h);
  if (!around) return paper;
  // Only inside the figure, and only where the model is darker than the paper around (a fill taken in):
  // at the outline the model follows the paper's own shading closely and the cut reads ink against it.
  const inside = erode(mask, w, h, 1);
  const out = paper.slice();
  for (let p = 0; p < w * h; p++) {
    if (!inside[p]) continue;
    const o = p * 3;
    if (around[o] + around[o + 1] + around[o + 2] > paper[o] + paper[o + 1] + paper[o + 2]) {
      out[o] = around[o];
      out[o + 1] = around[o + 1];
      out[o + 2] = around[o + 2];
    }
  }
  return out;
}

/** Reach of the paper model's closing (its radius and blur, paperModel), as a share of the long side. */
const PAPER_REACH = 0.06;
/**
 * Long side of a figure as annotated (AnimatedDrawings' examples: 340-600 px, its generated drawings' own
 * segmentation 360-500 px): the annotation's pixel is the figure's long side over this.
 */
const ANNOTATED_FIGURE = 450;
/**
 * From this many texture pixels per annotation pixel the drawing is enlarged (a phone photo) and the
 * annotation's pixel is the figure's long side over ANNOTATED_FIGURE.
 */
const ENLARGED_UNIT = 1.5;
/**
 * Under it, a picture cut round its figure (the figure's long side at least this share of the picture's:
 * AnimatedDrawings' textures char1-3 0.96-1, the generated drawings 0.72-0.88 but one of 24) is taken as annotated on
 * its own pixels: the rim is two picture pixels past the annotation's ink. A figure on a larger sheet (a
 * photo, the paper photos <= 0.55) may be a reduced copy of what was annotated (char6: a 600 px copy of a
 * photo annotated at 1000 px, its annotation's pixel 0.6 px, figure 0.67 of the picture) and keeps the rim
 * measured there: the stroke's blur beside the ink (at least RIM_INK of the ink level) and RIM_SHARE of
 * the figure (at least one picture pixel).
 */
const CROPPED_FILL = 0.7;
const RIM_SHARE = 0.002;
const RIM_INK = 0.5;
/** The annotated rim: the annotation's ink grown by two of its pixels (a 3x3 dilation, twice). */
const RIM_UNITS = 2;
/**
 * The annotation's ink: at least this much darker (share of the paper) than the mean of its
 * neighbourhood, ink included (8 grey levels on white, AnimatedDrawings' adaptive threshold).
 */
const ANNOTATION_STEP = 0.035;
/** Radius of that neighbourhood's box mean (three passes, about a Gaussian of that sigma), in annotation pixels. */
const ANNOTATION_MEAN_RADIUS = 8.8;
/** Alpha of the outline's rim: counted as figure (>= 128) yet lighter than the stroke it extends. */
const RIM_ALPHA = 160;
/** Pixels beyond the rim over which the stroke's partial-alpha blur takes the stroke's colour. */
const BLUR_REACH = 4;

/**
 * The outline's outer rim, where a person annotating the drawing puts the figure's edge: AnimatedDrawings'
 * masks (its annotation tool thresholds ink at a small darkness against the mean of its neighbourhood and
 * grows the result by two pixels) reach about two annotation pixels beyond that ink. The annotation's
 * ink is the figure's ink at least ANNOTATION_STEP darker than the local mean of the ink (a dense or
 * coloured-in drawing darkens that mean, so on a soft stroke the annotation's edge lies inside ours),
 * and the rim is RIM_UNITS annotation pixels (`unit`, the figure's size over ANNOTATED_FIGURE) beyond
 * it: a drawing enlarged on a phone photo gets a rim as much wider as its annotation would be; near its
 * own scale the annotation's pixel is the picture's when the picture is cut round the figure (CROPPED_FILL). Rim
 * pixels join the figure with a partial alpha, coloured as the stroke pixel they touch: the outline grows
 * by its own ink, never by paper, so nothing of the sheet's colour shows around the figure; the stroke's
 * blur beyond the rim keeps an alpha under the figure's (< 128), and so does what the cut kept beyond the
 * annotation (trimBeyondAnnotation). The rim crosses a ruled line as it does paper.
 * Measured against the artists' masks: docs/figures.md ("The outline's rim").
 */
function outlineRim(out8: Uint8ClampedArray, rim: RimInput, tw: number, th: number): void {
  const { kept, strength, line } = rim;
  const n = tw * th;
  const enlarged = rim.unit >= ENLARGED_UNIT;
  // A picture cut round its figure, near its own scale, is the annotated picture itself (AnimatedDrawings
  // annotates the crop round the figure and never enlarges it): the annotation's pixel is the picture's.
  const annotated = enlarged || rim.fill >= CROPPED_FILL;
  const unit = enlarged ? rim.unit : Math.max(rim.unit, rim.picturePx);
  // Elsewhere the figure may be a reduced copy of what was annotated: its annotation's pixel is the
  // figure's size over ANNOTATED_FIGURE, under a picture pixel on a small figure.
  const annotationUnit = annotated ? unit : rim.unit;
  // The rim in whole pixels. Near the picture's own scale it is two of them (a unit of 1-1.37 still gives
  // 2). On an enlarged drawing it is the nearest whole number of pixels to RIM_UNITS annotation pixels:
  // rounded down from a quarter past, a rim of 3.5-3.7 px was 3, and a stick figure on a 3 MP photo, whose
  // mask is mostly rim, lost about a pixel of the artist's mask all round its lines (docs/figures.md,
  // "A stick figure's rim on paper").
  const rimPixels = (u: number): number => (enlarged ? Math.round(RIM_UNITS * u) : Math.floor(RIM_UNITS * u + 0.25));
  const reach = annotated ? rimPixels(unit) : rim.ringPx;
  // The annotation's ink, read before the outermost pixels below take their stroke's strength, and the
  // annotation: that ink grown by its rim, over the sheet's ruled lines too (the artist's mask was drawn
  // on the drawing, before any line).
  const mean = boxMean(strength, tw, th, Math.max(1, Math.round(ANNOTATION_MEAN_RADIUS * annotationUnit)));
  const ink = new Uint8Array(n);
  for (let t = 0; t < n; t++) if (kept[t] && strength[t] >= mean[t] + ANNOTATION_STEP) ink[t] = 1;
  const annotation = dilate(ink, tw, th, rimPixels(annotationUnit));
  const zone = annotated ? annotation : dilate(kept, tw, th, reach + 1);
  // Where the trim beyond the annotation stops (see trimBeyondAnnotation).
  const barrier = annotation.slice();
  for (let t = 0; t < n; t++) if (kept[t] && strength[t] < INK) barrier[t] = 1;
  // src[t]: the figure pixel whose colour a rim pixel takes (the inkiest one it touches); -1 where none.
  const src = new Int32Array(n).fill(-1);
  for (let t = 0; t < n; t++) if (kept[t]) src[t] = t;
  const inkiestNeighbour = (t: number, from: Int32Array, only: Uint8Array | null): number => {
    const x = t % tw;
    let best = -1;
    for (let dy = -tw; dy <= tw; dy += tw) {
      for (let dx = -1; dx <= 1; dx++) {
        if ((dx < 0 && x === 0) || (dx > 0 && x === tw - 1)) continue;
        const u = t + dy + dx;
        if (u < 0 || u >= n || from[u] < 0 || (only && !only[u])) continue;
        if (best < 0 || strength[from[u]] > strength[best]) best = from[u];
      }
    }
    return best;
  };
  // The figure's own outermost pixels are the stroke's anti-aliased edge, part ink and part paper: drawn
  // opaque in their own colour they made a light line round the outline on a dark background. They take
  // the colour of the inkiest figure pixel within two pixels (the stroke beside them).
  const edgeColour: Array<[number, number]> = [];
  // Outermost: a figure pixel with a non-figure pixel among its 8 neighbours in the picture.
  const interior = erode(kept, tw, th, 1);
  for (let t = 0; t < n; t++) {
    if (!kept[t] || interior[t]) continue;
    const x = t % tw;
    const y = (t - x) / tw;
    let best = t;
    for (let yy = Math.max(0, y - 2); yy <= Math.min(th - 1, y + 2); yy++)
      for (let xx = Math.max(0, x - 2); xx <= Math.min(tw - 1, x + 2); xx++) {
        const u = yy * tw + xx;
        if (kept[u] && strength[u] > strength[best]) best = u;
      }
    if (best !== t) edgeColour.push([t, best]);
  }
  for (const [t, from] of edgeColour) {
    out8[t * 4] = out8[from * 4];
    out8[t * 4 + 1] = out8[from * 4 + 1];
    out8[t * 4 + 2] = out8[from * 4 + 2];
    strength[t] = strength[from];
  }
  if (!annotated) {
    const blur = RIM_INK * INK;
    for (let t = 0; t < n; t++) {
      if (kept[t] || line[t] || strength[t] < blur) continue;
      src[t] = inkiestNeighbour(t, src, kept);
    }
  }
  // The ring, grown one pixel at a time from the pixels that have a colour, visiting only those beside
  // the last step: a pixel takes its colour from the pixels coloured before that step.
  let front: number[] = [];
  {
    const coloured = new Uint8Array(n);
    for (let t = 0; t < n; t++) if (src[t] >= 0) coloured[t] = 1;
    const beside = dilate(coloured, tw, th, 1);
    for (let t = 0; t < n; t++) if (beside[t] && src[t] < 0) front.push(t);
  }
  const seen = new Uint8Array(n);
  for (const t of front) seen[t] = 1;
  const reached = (u: number): boolean => {
    if (seen[u] || src[u] >= 0) return false;
    seen[u] = 1;
    return true;
  };
  for (let i = 0; i < reach && front.length; i++) {
    const from = front.map((t) => inkiestNeighbour(t, src, null));
    for (let k = 0; k < front.length; k++) src[front[k]] = from[k];
    front = stepFront(front, tw, n, reached);
  }
  const rimmed = new Uint8Array(n);
  for (let t = 0; t < n; t++) {
    if (kept[t]) continue;
    if (src[t] >= 0 && zone[t]) rimmed[t] = 1;
    else if (annotated) {
      src[t] = -1;
      out8[t * 4 + 3] = Math.min(out8[t * 4 + 3], 127);
    }
  }
  // The stroke's blur further out (partial alpha, its own colour lifted towards the paper's) is ink at
  // partial coverage too: it takes the stroke's colour and keeps its alpha, or it shows as a light
  // fringe round the figure on a dark background.
  // Each step reads the colours given before it (all sources are found, then set).
  let blurred: number[] = [];
  for (let t = 0; t < n; t++) if (src[t] < 0 && out8[t * 4 + 3] > 0) blurred.push(t);
  for (let i = 0; i < BLUR_REACH && blurred.length; i++) {
    const from = blurred.map((t) => inkiestNeighbour(t, src, null));
    for (let k = 0; k < blurred.length; k++) src[blurred[k]] = from[k];
    blurred = blurred.filter((t) => src[t] < 0);
  }
  for (let t = 0; t < n; t++) {
    const from = src[t];
    if (from < 0 || kept[t]) continue;
    const o = t * 4;
    const f = from * 4;
    out8[o] = out8[f];
    out8[o + 1] = out8[f + 1];
    out8[o + 2] = out8[f + 2];
    if (rimmed[t]) out8[o + 3] = Math.max(out8[o + 3], RIM_ALPHA);
  }
  trimBeyondAnnotation(out8, barrier, tw, th);
}

/**
 * What the annotation does not reach is not figure: pixels the cut kept beyond the annotation's ink grown
 * by its rim (a crayon's grain and faint edge: a yellow fill's edge is ink in its blue channel yet barely
 * darker in grey, where the annotation thresholds it), reached from the texture's border through such
 * pixels, keep an alpha under the figure's (< 128). On a reduced drawing that fringe is several of its
 * pixels wide. The trim stops at the annotation and at the figure's own paper (`barrier`), so nothing
 * inside the annotation's outline changes, nor the inside of a figure whose outline it leaves open.
 */
function trimBeyondAnnotation(out8: Uint8ClampedArray, barrier: Uint8Array, tw: number, th: number): void {
  const beyond = reachableFromBorder(barrier, tw, th);
  for (let t = 0; t < beyond.length; t++) if (beyond[t]) out8[t * 4 + 3] = Math.min(out8[t * 4 + 3], 127);
}

/** The next front: the 8-neighbours of the front's pixels (in order) that `take` accepts, marking them. */
function stepFront(front: number[], tw: number, n: number, take: (u: number) => boolean): number[] {
  const next: number[] = [];
  for (const t of front) {
    const x = t % tw;
    for (let dy = -tw; dy <= tw; dy += tw) {
      for (let dx = -1; dx <= 1; dx++) {
        if ((dx < 0 && x === 0) || (dx > 0 && x === tw - 1)) continue;
        const u = t + dy + dx;
        if (u >= 0 && u < n && take(u)) next.push(u);
      }
    }
  }
  return next;
}

/** Mean over a (2r+1)^2 box, three passes (close to a Gaussian of sigma r), edges clamped. */
function boxMean(src: Float32Array, w: number, h: number, r: number): Float32Array {
  let a = src;
  const d = 2 * r + 1;
  for (let pass = 0; pass < 3; pass++) {
    const b = new Float32Array(w * h);
    for (let y = 0; y < h; y++) {
      const row = y * w;
      let sum = 0;
      for (let x = -r; x <= r; x++) sum += a[row + Math.min(w - 1, Math.max(0, x))];
      for (let x = 0; x < w; x++) {
        b[row + x] = sum / d;
        sum += a[row + Math.min(w - 1, x + r + 1)] - a[row + Math.max(0, x - r)];
      }
    }
    // Down the columns, all of them a row at a time (each column's running sum in `sums`: the same
    // additions in the same order as one column after another, with rows read whole).
    const c = new Float32Array(w * h);
    const sums = new Float64Array(w);
    for (let y = -r; y <= r; y++) {
      const row = Math.min(h - 1, Math.max(0, y)) * w;
      for (let x = 0; x < w; x++) sums[x] += b[row + x];
    }
    for (let y = 0; y < h; y++) {
      const row = y * w,
        add = Math.min(h - 1, y + r + 1) * w,
        sub = Math.max(0, y - r) * w;
      for (let x = 0; x < w; x++) {
        c[row + x] = sums[x] / d;
        sums[x] += b[add + x] - b[sub + x];
      }
    }
    a = c;
  }
  return a;
}
