/**
 * Foreground mask of a character picture, choosing the method by evidence:
 *  1. the image's own alpha, when it actually separates something (some pixels transparent, some opaque);
 *  2. the classical drawing path, when the border is plain (paper or flat colour all around);
 *  3. person segmentation (Selfie) otherwise — photos and illustrated scenes — falling back to the
 *     classical path when the model finds no person.
 */
import type { MaskMethod } from '../types.js';
import { segmentPerson } from '../vision/segmentation.js';
import { borderStats, classicalMask } from './mask-classical.js';
import { drawingMask, type PaperModel, type SheetHint } from './drawing.js';
import { close, fillHoles, forEachComponent8, keepLargestComponents, maskArea, maskBounds, open } from '../vision/mask-ops.js';
import { bodyScale } from '../vision/body-region.js';
import type { Keypoint } from '../types.js';

export interface ForegroundResult {
  /** 0/1 mask at the working size. */
  mask: Uint8Array;
  method: MaskMethod;
  /**
   * False when the mask is a guess: a weak segmentation, or the drawing method run on a busy
   * background. The caller then needs other evidence (a pose the model accepts) before rigging it.
   */
  confident: boolean;
  /**
   * The segmentation model's own 0/1 mask before cleanup (segmentation only), so the analysis can
   * refine it once it knows where the body is (see refineSegmentationWithPose).
   */
  raw?: Uint8Array;
  /**
   * A picture that is mostly paper but gave no drawing mask worth the name: the box of the strokes the
   * drawing method took for the figure (working px), so the figure can be read again closer (analyze.ts).
   */
  paperInk?: { x0: number; y0: number; x1: number; y1: number };
  /** Drawing path: other drawings that could be the figure, read closer when it is small (see drawingMask). */
  rivals?: Array<{ x0: number; y0: number; x1: number; y1: number }>;
  /** Drawing path: the area the figure's drawing covers (drawingMask's cover), to compare readings. */
  cover?: number;
  /** Evidence behind the choice, for logs and tests. */
  evidence: {
    transparentShare?: number;
    borderPlainShare?: number;
    segmentationArea?: number;
    segmentationConfidence?: number;
    paperShare?: number;
    inkShare?: number;
    ruledLines?: number;
    sheetEdges?: number;
    paperInsideFigure?: number;
  };
  /**
   * Drawing path: the paper model, so the texture can follow the ink at full resolution and drop the
   * paper's shading. Set with `paperInk` too, for its ruled lines when the figure is read closer.
   */
  paper?: PaperModel;
}

/**
 * Mean person probability inside a segmentation mask that counts as a confident person. On the sample
 * media, people and characters score 0.80-0.98; a fractal test pattern 0.72.
 */
const CONFIDENT_SEGMENTATION = 0.78;

/** A border counts as plain when this share of its pixels sits close to its median colour. */
export const PLAIN_BORDER_SHARE = 0.8;
/** Masks smaller than this share of the picture are treated as "nothing found". */
const MIN_AREA_SHARE = 0.003;
/** Masks above this share of the picture separated nothing (as the analysis's MAX_FIGURE_SHARE). */
const MAX_AREA_SHARE = 0.97;

function alphaMask(rgba: Buffer, w: number, h: number): { mask: Uint8Array; transparentShare: number } {
  const mask = new Uint8Array(w * h);
  let transparent = 0;
  for (let p = 0; p < w * h; p++) {
    if (rgba[p * 4 + 3] >= 128) mask[p] = 1;
    else transparent++;
  }
  return { mask, transparentShare: transparent / (w * h) };
}

function cleanup(mask: Uint8Array, w: number, h: number): Uint8Array {
  const r = Math.max(1, Math.round(Math.max(w, h) * 0.004));
  let m = open(mask, w, h, r);
  m = close(m, w, h, r);
  m = keepLargestComponents(m, w, h).mask;
  return fillHoles(m, w, h);
}

/** `rgba` is the EXIF-oriented picture at working size `w` x `h`; `hasAlpha` from the probe. */
/** `sheet`: what the whole photo said of the sheet when `rgba` is a region of it (see drawingMask). */
export async function findForeground(rgba: Buffer, w: number, h: number, hasAlpha: boolean, sheet?: SheetHint): Promise<ForegroundResult> {
  const minArea = w * h * MIN_AREA_SHARE;
  if (hasAlpha) {
    const { mask, transparentShare } = alphaMask(rgba, w, h);
    if (transparentShare >= 0.02 && transparentShare <= 0.98) {
      const kept = keepLargestComponents(mask, w, h, 0.05).mask;
      return { mask: kept, method: 'alpha', confident: true, evidence: { transparentShare } };
    }
  }
  const border = borderStats(rgba, w, h);
  const evidence: ForegroundResult['evidence'] = { borderPlainShare: border.plainShare };
  const drawing = drawingMask(rgba, w, h, undefined, sheet);
  const drawingArea = maskArea(drawing.mask);
  Object.assign(evidence, drawing.evidence, { paperInsideFigure: paperInside(drawing.mask, drawing.model.strength) });
  const asDrawing = (confident: boolean): ForegroundResult => ({
    mask: drawing.mask,
    method: 'drawing',
    confident,
    evidence,
    paper: drawing.model,
    rivals: drawing.rivals,
    cover: drawing.cover,
  });
  const paperInk = (evidence.paperShare ?? 0) >= PAPER_SHARE ? drawing.inkBox : undefined;
  const plain = border.plainShare >= PLAIN_BORDER_SHARE;
  if (plain && drawingArea >= minArea && drawingArea <= MAX_AREA_SHARE * w * h) return asDrawing(true);
  // A plain background darker than the figure (a cartoon on black): ink darker than its paper reads
  // the whole picture as ink, so the figure is what differs from the border's colour.
  if (plain) {
    const mask = classicalMask(rgba, w, h, border.median);
    const area = maskArea(mask);
    if (area >= minArea && area <= MAX_AREA_SHARE * w * h) return { mask, method: 'classical', confident: true, evidence };
  }
  // A sheet of paper photographed with its surroundings (a table, a shadow, the hand holding the
  // phone) is not plain at the border, but most of the picture is still paper.
  const onPaper = (evidence.paperShare ?? 0) >= PAPER_SHARE && drawingArea >= minArea;
  const person = await personReading(rgba, w, h);
  if (person) {
    evidence.segmentationArea = person.seg.area / (w * h);
    evidence.segmentationConfidence = person.seg.confidence;
    const confident = person.seg.confidence >= CONFIDENT_SEGMENTATION;
    // A drawing on paper: the person model may still answer on a drawn person, but its mask is coarse.
    // A photographed person in front of a light wall leaves little paper inside the figure; a drawing
    // is mostly paper inside its outline, or a figure the model is unsure of.
    // A sheet photographed on a table (its edges found) or ruled/squared paper says "paper" whatever is
    // drawn on it: a crayon figure coloured in leaves little bare paper inside, and the person model may
    // be sure of a drawn person.
    const sheetSeen = (evidence.sheetEdges ?? 0) > 0 || (evidence.ruledLines ?? 0) > 0;
    if (onPaper && (!confident || sheetSeen || (evidence.paperInsideFigure ?? 0) >= PAPER_INSIDE_DRAWING)) return asDrawing(true);
    const found = await personResult(w, h, person);
    if (found) {
      evidence.segmentationArea = found.evidence.segmentationArea;
      return { ...found, evidence, ...(confident ? {} : { paperInk, paper: drawing.model }) };
    }
  }
  if (onPaper) return asDrawing(true);
  return { mask: classicalMask(rgba, w, h), method: 'classical', confident: false, evidence, paperInk, paper: drawing.model };
}

/** Share of the picture that must read as paper for the drawing path without a plain border. */
const PAPER_SHARE = 0.6;
/** Share of a figure's inside that is bare paper above which it is taken for a drawing. */
const PAPER_INSIDE_DRAWING = 0.18;

/** What the person model was shown (see levelled), its probabilities and its cleaned mask. */
type PersonReading = { shown: Buffer; prob: Uint8Array; seg: ReturnType<typeof segmentationMask>; focused: boolean };

/** The person model's probabilities over the picture and its cleaned mask (null: the model gave none). */
async function personReading(rgba: Buffer, w: number, h: number, focus?: Bounds): Promise<PersonReading | null> {
  const shown = levelled(rgba);
  // The model works at 256x256, so it is fed 256 px; its mask is enlarged to the working size.
  const prob = focus ? new Uint8Array(w * h) : await segmentPerson(shown, w, h, 256);
  if (prob && focus && !(await segmentRegion(shown, w, h, refocusBox(focus, w, h), prob))) return null;
  return prob ? { shown, prob, seg: segmentationMask(prob, w, h), focused: !!focus } : null;
}

/** A picture whose 0.5-99.5% range (over all channels) spans less than this many levels is stretched for the person model. */
const NARROW_RANGE = 192;

/**
 * The picture with its levels stretched to the full range when it is dim or washed out, for the person
 * model only. The model reads the same photo differently under other light: musepose darkened to 45%
 * kept 0.56 of her mask (IoU with the original's), hazed 0.65; stretched about 0.9. One map for all
 * channels: stretching each channel on its own (white balance) took a warm or cool cast off but cost as
 * much elsewhere (musepose warm 0.81 -> 0.42, the 4D-Humans photo cool 0.93 -> 0.77). Photos as taken
 * span at least 200 levels (the six people and the cup) and are shown as they are.
 */
function levelled(rgba: Buffer): Buffer {
  const n = rgba.length >> 2;
  const hist = new Uint32Array(256);
  for (let p = 0; p < n * 4; p++) if ((p & 3) !== 3) hist[rgba[p]]++;
  const level = (share: number): number => {
    let sum = 0;
    for (let v = 0; v < 256; v++) if ((sum += hist[v]) >= share * 3 * n) return v;
    return 255;
  };
  const lo = level(0.005);
  const hi = level(0.995);
  if (hi - lo >= NARROW_RANGE || hi <= lo) return rgba;
  const map = new Uint8Array(256);
  for (let v = 0; v < 256; v++) map[v] = Math.max(0, Math.min(255, Math.round(((v - lo) * 255) / (hi - lo))));
  const out = Buffer.from(rgba);
  for (let p = 0; p < n * 4; p++) if ((p & 3) !== 3) out[p] = map[rgba[p]];
  return out;
}

/**
 * The figure as the person model reads it, a figure it is sure of looked at again closer (see refocus);
 * null when what it found is too small to be a figure.
 */
async function personResult(w: number, h: number, { shown, prob, seg, focused }: PersonReading): Promise<ForegroundResult | null> {
  const confident = seg.confidence >= CONFIDENT_SEGMENTATION;
  const minArea = w * h * MIN_AREA_SHARE;
  // Only a figure the first pass is sure of is looked at again: zooming into a faint blob on a busy
  // picture would just let the model find a person there.
  if (!focused && confident && seg.area >= minArea && (await refocus(shown, w, h, seg.mask, prob))) seg = segmentationMask(prob, w, h);
  if (seg.area < minArea) return null;
  const evidence = { segmentationArea: seg.area / (w * h), segmentationConfidence: seg.confidence };
  return { mask: seg.mask, raw: seg.raw, method: 'segmentation', confident, evidence };
}

/**
 * The person model's figure whatever the border says, with how sure the model is of it: for a picture
 * the photo pose models read as a person although its plain background made it look like a drawing
 * (analyze.ts decides). Null when the model found nothing of a figure's size. `luminance`: the model is
 * shown the picture's luminance, which a colour cast does not change (see analyze.ts, a body off the mask).
 */
export async function personForeground(
  rgba: Buffer,
  w: number,
  h: number,
  luminance = false,
  focus?: Bounds,
): Promise<(ForegroundResult & { sure: boolean }) | null> {
  const person = await personReading(luminance ? greyOf(rgba) : rgba, w, h, focus);
  const found = person && (await personResult(w, h, person));
  return found && { ...found, sure: found.confident, confident: true };
}

/** The picture's luminance in all three channels (Rec. 601 weights), alpha kept. */
function greyOf(rgba: Buffer): Buffer {
  const out = Buffer.from(rgba);
  for (let p = 0; p < out.length; p += 4) {
    out[p] = out[p + 1] = out[p + 2] = Math.round(0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2]);
  }
  return out;
}

function paperInside(mask: Uint8Array, strength: Uint8Array): number {
  let n = 0,
    bare = 0;
  for (let p = 0; p < mask.length; p++) {
    if (!mask[p]) continue;
    n++;
    if (strength[p] < 28) bare++;
  }
  return n ? bare / n : 0;
}

/** A figure whose padded box covers less than this share of the picture is segmented a second time. */
const REFOCUS_SHARE = 0.7;
/** Padding of that box, as a fraction of the figure's long side: room for limbs the first pass lost. */
const REFOCUS_PAD = 0.25;

/**
 * The model sees the whole picture at 256x256, so a figure standing small in a wide scene gets a few
 * dozen pixels across and loses thin parts (a raised arm, a foot). The figure's padded box is then
 * segmented again, at the model's full resolution, and its result replaces the first pass inside the
 * box (in place, in `prob`).
 */
async function refocus(rgba: Buffer, w: number, h: number, figure: Uint8Array, prob: Uint8Array): Promise<boolean> {
  const b = maskBounds(figure, w, h);
  if (!b) return false;
  const box = refocusBox(b, w, h);
  if (box.w * box.h >= REFOCUS_SHARE * w * h || box.w < 16 || box.h < 16) return false;
  return segmentRegion(rgba, w, h, box, prob);
}

type Bounds = { x0: number; y0: number; x1: number; y1: number };
type Box = { x0: number; y0: number; w: number; h: number };

/** A figure's box padded by REFOCUS_PAD of its long side, clamped to the picture. */
function refocusBox(b: Bounds, w: number, h: number): Box {
  const pad = Math.round(Math.max(b.x1 - b.x0, b.y1 - b.y0) * REFOCUS_PAD);
  const x0 = Math.max(0, Math.round(b.x0) - pad),
    y0 = Math.max(0, Math.round(b.y0) - pad);
  return { x0, y0, w: Math.min(w - 1, Math.round(b.x1) + pad) - x0 + 1, h: Math.min(h - 1, Math.round(b.y1) + pad) - y0 + 1 };
}

/** The person model's reading of `box` of the picture at its full resolution, written over `prob` there (false: none). */
async function segmentRegion(rgba: Buffer, w: number, h: number, box: Box, prob: Uint8Array): Promise<boolean> {
  const crop = Buffer.alloc(box.w * box.h * 4);
  for (let y = 0; y < box.h; y++) rgba.copy(crop, y * box.w * 4, ((box.y0 + y) * w + box.x0) * 4, ((box.y0 + y) * w + box.x0 + box.w) * 4);
  const inner = await segmentPerson(crop, box.w, box.h, 256);
  if (!inner) return false;
  for (let y = 0; y < box.h; y++) prob.set(inner.subarray(y * box.w, (y + 1) * box.w), (box.y0 + y) * w + box.x0);
  return true;
}

/** Thresholded and cleaned segmentation, with the model's mean probability over the kept figure. */
function segmentationMask(prob: Uint8Array, w: number, h: number): { mask: Uint8Array; raw: Uint8Array; area: number; confidence: number } {
  const raw = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) raw[p] = prob[p] >= 128 ? 1 : 0;
  const mask = cleanup(raw, w, h);
  const area = maskArea(mask);
  let sum = 0;
  for (let p = 0; p < w * h; p++) if (mask[p]) sum += prob[p];
  return { mask, raw, area, confidence: area ? sum / area / 255 : 0 };
}

/** Half the width of a thigh kept by refineSegmentationWithPose, in torsos (a calf's is 0.12). */
const THIGH_RADIUS = 0.16;

/** Ankle score from which the feet are trusted to mark where the figure ends and the ground begins. */
const FOOT_SCORE = 0.3;

/**
 * Person segmentation bleeds into what the figure stands on (a lit road, a shadow, a pet at its feet);
 * once that blob joins both feet, hole filling also turns the gap between the legs into "body", and the
 * legs can no longer move apart. With the pose known this is recognised by foreground reaching clearly
 * below the feet; then, from 0.6 torso above the higher ankle down, only the shins and feet (capsules
 * around the knee-ankle segments and from the ankles onwards) are kept before the usual cleanup. A long
 * dress ends at the feet and does not trigger it. Returns null when nothing needs trimming or the feet
 * are not seen well enough to decide.
 */
export function refineSegmentationWithPose(raw: Uint8Array, w: number, h: number, body: Keypoint[]): Uint8Array | null {
  const knees = [body[13], body[14]];
  const ankles = [body[15], body[16]];
  if (ankles.some((a) => a.score < FOOT_SCORE)) return null;
  const scale = bodyScale(body);
  // Generous for a calf or a shoe (both ~0.1 of a torso across), tight enough to drop the ground around them.
  const legR = 0.12 * scale;
  const capsules: Array<[number, number, number, number, number]> = [];
  for (let i = 0; i < 2; i++) {
    const a = ankles[i];
    const k = knees[i];
    // A knee the model is unsure of still gives the shin's direction well enough; without one, straight up.
    const kx = k.score >= 0.1 ? k.x : a.x;
    const ky = k.score >= 0.1 ? k.y : a.y - scale;
    const len = Math.hypot(a.x - kx, a.y - ky) || 1;
    capsules.push([kx, ky, a.x, a.y, legR]);
    // The foot: down and along the shin's lean, far enough for a shoe seen from the side.
    capsules.push([a.x, a.y, a.x + ((a.x - kx) / len) * 0.25 * scale, a.y + 0.3 * scale, legR]);
    // The thigh, wider: in a lunge or a kneel the knee is down by the feet and the thigh crosses the trimmed
    // band (the 4D-Humans lunge: its back leg was cut at the knee and lost, under some light or orientation).
    const hip = body[11 + i];
    if (k.score >= 0.1 && hip.score >= FOOT_SCORE) capsules.push([hip.x, hip.y, kx, ky, THIGH_RADIUS * scale]);
  }
  const near = (x: number, y: number) =>
    capsules.some(([ax, ay, bx, by, r]) => {
      const dx = bx - ax;
      const dy = by - ay;
      const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy || 1)));
      const ex = x - (ax + t * dx);
      const ey = y - (ay + t * dy);
      return ex * ex + ey * ey <= r * r;
    });
  const lowestAnkle = Math.max(ankles[0].y, ankles[1].y);
  const ground = Math.ceil(lowestAnkle + 0.35 * scale);
  let spill = 0;
  for (let y = Math.max(0, ground); y < h; y++) for (let x = 0; x < w; x++) if (raw[y * w + x] && !near(x, y)) spill++;
  // Ground bleed shows as foreground well below and beside the feet: a few percent of a torso square.
  if (spill < 0.03 * scale * scale) return null;
  const top = Math.max(0, Math.floor(Math.min(ankles[0].y, ankles[1].y) - 0.6 * scale));
  const away = new Uint8Array(w * h);
  for (let y = top; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      if (raw[p] && !near(x, y)) away[p] = 1;
    }
  }
  // What lies away from the legs but continues the body from above the band without reaching the ground
  // is the figure's (shorts over a knee that is down by the feet, in a lunge); the rest is trimmed.
  const out = raw.slice();
  forEachComponent8(away, w, h, (members, count, box) => {
    if (box.y0 <= top && box.y1 < ground) return;
    for (let k = 0; k < count; k++) out[members[k]] = 0;
  });
  return cleanup(out, w, h);
}
