/**
 * Character analysis: one picture -> foreground mask, 2D body pose, RGBA texture crop and thumbnail.
 *
 * Work happens on a copy reduced to WORK_LONG_SIDE (mask, pose; reading.ts, which reads a small drawing
 * again from its region); only the texture crop is read back at full resolution, so a 24 MP photo costs
 * little more than a 2 MP one.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { EngineError, type CharacterAnalysis, type Keypoint, type Landmarks } from '../types.js';
import { abortError, type MediaTools } from '../media/ffmpeg.js';
import { probeImage } from '../media/probe.js';
import { createPoseDetector, type PoseDetector } from '../vision/pose-detector.js';
import { segmentPerson } from '../vision/segmentation.js';
import { detectStillLandmarks, type StillLandmarks } from '../vision/still-landmarks.js';
import { personForeground, refineSegmentationWithPose } from './foreground.js';
import { readFigure, type WorkingView } from './reading.js';
import { heuristicPose } from './heuristic-pose.js';
import { skeletonPose } from './skeleton-pose.js';
import { limbsNotFound } from './limb-presence.js';
import { dilate, erode, fillHoles, maskArea, maskBounds } from '../vision/mask-ops.js';
import { readTextureSource, writeTexture, type TextureJob, type TextureSource } from './texture.js';
import { cutEnclosedBackground } from './enclosed-background.js';
import { completeThinParts } from './thin-parts.js';

export interface AnalyzeCharacterOptions {
  tools: MediaTools;
  imageFile: string;
  outDir: string;
  thumbnail: boolean;
  signal?: AbortSignal;
  /**
   * Injected for tests. By default BlazePose (full) reads the picture and MoveNet Thunder, on the figure
   * cut out over white, is the fallback when BlazePose finds no plausible body (drawings, mostly).
   */
  detector?: PoseDetector;
  /**
   * Called with the analysis and the finished texture's pixels (read only) while the texture's PNG is being
   * written: the rig is built there, beside the encoding.
   */
  withTexture?: (analysis: CharacterAnalysis, texture: TextureSource) => void;
}

export interface AnalyzeCharacterResult {
  analysis: CharacterAnalysis;
  /** Paths relative to outDir. */
  textureFile: string;
  thumbnailFile: string | null;
}

/** Foreground below this share of the picture is not a figure. */
const MIN_FIGURE_SHARE = 0.003;
/** Foreground above this share means nothing was separated from the background. */
const MAX_FIGURE_SHARE = 0.97;

let stillDetector: PoseDetector | null = null;

/**
 * Loads the pose and segmentation models used for pictures (about 1-2 s on first use) so the first
 * analysis does not pay for it. Safe to call more than once.
 */
export async function warmUpCharacterAnalysis(): Promise<void> {
  const blank = Buffer.alloc(64 * 64 * 4, 255);
  stillDetector ??= createPoseDetector({ model: 'thunder' });
  await stillDetector.detect(blank, 64, 64);
  await segmentPerson(blank, 64, 64);
  await detectStillLandmarks(blank, 64, 64);
}

export async function analyzeCharacterImage(opts: AnalyzeCharacterOptions): Promise<AnalyzeCharacterResult> {
  const { imageFile, outDir, signal } = opts;
  const check = () => {
    if (signal?.aborted) throw abortError(signal);
  };
  check();
  const info = await probeImage(imageFile);
  const reading = await readFigure(imageFile, info, check);
  const { view } = reading;
  let { fg, bounds } = reading;
  const { work, w, h, ws } = view;
  let area = maskArea(fg.mask);
  if (!bounds || area < w * h * MIN_FIGURE_SHARE) {
    throw new EngineError('INVALID_CHARACTER', 'No figure found: nothing in the picture stands out from its background', {
      maskMethod: fg.method,
      foregroundShare: area / (w * h),
      ...fg.evidence,
    });
  }
  if (area > w * h * MAX_FIGURE_SHARE) {
    throw new EngineError('INVALID_CHARACTER', 'No figure found: the whole picture reads as foreground', {
      maskMethod: fg.method,
      foregroundShare: area / (w * h),
    });
  }
  check();

  const thunder = opts.detector ?? (stillDetector ??= createPoseDetector({ model: 'thunder' }));
  let still = opts.detector ? null : await landmarksInFigure(work, w, h, fg.mask, bounds);
  // MoveNet's reading of a figure cut as a drawing, when BlazePose saw a person in it (kept for below).
  let movenetOnDrawn: Keypoint[] | null = null;
  if (fg.method === 'classical' && fg.confident && still && !still.body) {
    // On one flat colour a figure dressed in that colour is cut without those clothes (dance_1's cut-out
    // on black: her black hair and top), and BlazePose on that cut's box misses the person (0.39); given
    // the room round it of WIDER_CONTEXT of the figure it finds her (0.93).
    const wider = await landmarksInFigure(work, w, h, fg.mask, bounds, WIDER_CONTEXT);
    if (wider.body) still = wider;
  }
  // Lines found on the "sheet" do not settle it: a hazy studio backdrop's folds pass for a ruling (demo1
  // hazed: 6 lines), so a figure BlazePose reads as a body is checked whatever its paper showed.
  if ((fg.method === 'drawing' || fg.method === 'classical') && still?.body) {
    // A person photographed on a plain background (a studio shot, a bare wall, an illustration on white)
    // has the plain border of a drawing. Two photo pose models reading the same person in it say it is
    // a photo: on drawings at most one of them accepts the figure (see readAsPerson). The picture is
    // then read as the photo it is, by the person model, whose path keeps its colours (no paper division)
    // and the gaps between its limbs.
    movenetOnDrawn = await detectInFigure(thunder, work, w, h, fg.mask, bounds);
    const read = await personOnPlainBackground(thunder, work, w, h, still.body, movenetOnDrawn, bounds);
    // A drawing the pose models read as a person (an oval figure, arms down) is cut by the person model
    // without parts whose fill it does not take for a person: what it leaves out of the drawing mask is
    // then the drawing's own fill, in the colours of what it keeps (see ownFillLeftOut).
    const found = read && fg.method === 'drawing' && ownFillLeftOut(work, w, h, fg.mask, read.person.mask) ? null : read;
    const person = found?.person;
    const personBounds = person && maskBounds(person.mask, w, h);
    if (person && personBounds && maskArea(person.mask) >= w * h * MIN_FIGURE_SHARE) {
      // On one flat colour (a confident classical cut: the border's colour, differenced) that cut is
      // exact where the person model's, read at 256 px, leaves a rim of the background: the figure keeps
      // it and is read as a person for its pose, as long as the cut is the figure's (see cutOnFigure).
      const flat = fg.method === 'classical' && fg.confident && cutOnFigure(fg.mask, person.mask, w, h);
      const reading = flat ? { ...person, mask: flatCutFilled(fg.mask, person.mask, w, h), raw: undefined } : person;
      [fg, bounds, area, movenetOnDrawn] = [reading, flat ? bounds : personBounds, maskArea(reading.mask), null];
      // The second look already read the person model's figure, as it is kept unless the cut is flat.
      still = !flat && found.landmarks ? found.landmarks : await landmarksInFigure(work, w, h, fg.mask, bounds);
    }
    check();
  }
  if (fg.method === 'segmentation' && still && still.bodyScore >= LONE_BLAZEPOSE) {
    const better = await personWithBody(work, w, h, still, fg.mask, bounds);
    if (better) [fg, bounds, area, still] = [better.person, better.bounds, maskArea(better.person.mask), better.landmarks];
    check();
  }
  // A drawing's figure box is final here: its texture crop is decoded (on libuv's threads) while the
  // joints are worked out. Other figures' boxes may still change with their pose.
  const drawingSource = fg.method === 'drawing' ? readTextureSource(imageFile, textureCrop(bounds, view, info), true) : undefined;
  drawingSource?.catch(() => undefined);
  const blaze = still?.body ?? null;
  const drawn = fg.method === 'drawing' || fg.method === 'classical';
  // The silhouette's skeleton reads drawings, and any confident figure the photo models refused (a juice
  // cup with arms and legs, a creature): limbs found as branches move; only without them is the figure
  // rigged from its proportions alone.
  const drawnSkeleton = fg.confident && drawn ? skeletonPose(fg.mask, w, h) : null;
  const figureProportions = drawnSkeleton ? heuristicPose(fg.mask, w, h) : null;
  // A drawing whose skeleton gave every joint (biped hips come from the proportions, below) has no use
  // for MoveNet's reading: it is skipped (a tenth of a 12 MP drawing's analysis).
  const complete =
    !!drawnSkeleton &&
    drawnSkeleton.body.every((k, i) => k.score > 0 || (drawnSkeleton.kind === 'biped' && (i === 11 || i === 12) && !!figureProportions));
  const movenet = complete ? null : (movenetOnDrawn ?? (await detectInFigure(thunder, work, w, h, fg.mask, bounds)));
  // A confident figure that one photo model reads as a body while the other refuses it is a person only
  // when that model is sure (see sureAlone): the juice cup is taken by one model or the other, weakly,
  // under some light or size and by neither under another, and its reading flipped between the model's
  // pose and its skeleton with it.
  const lone = fg.method === 'segmentation' && fg.confident && !(movenet && blaze);
  // Both may accept it, each unsure, and disagree (the cup turned 15 degrees on grey: BlazePose 0.61,
  // MoveNet's mean 0.36, 4 of 12 limb joints together): that is no more a person than one unsure model.
  const weakPair =
    fg.method === 'segmentation' &&
    fg.confident &&
    !!movenet &&
    !!blaze &&
    !sureAlone(movenet, still) &&
    !readAsPerson(movenet, blaze, bounds, true);
  const modelPose = (lone && !sureAlone(movenet, still)) || weakPair ? null : fusePoses(movenet, blaze);
  check();
  let body: Keypoint[];
  let poseMethod: CharacterAnalysis['poseMethod'];
  let figure: CharacterAnalysis['figure'] = 'biped';
  let jointSources: CharacterAnalysis['jointSources'];
  if (fg.method === 'segmentation' && fg.confident && !modelPose) {
    // The person model found a figure that no photo pose model reads as a person (a cup with stick arms):
    // its mask drops thin limbs of colours no person has; they are grown back before the skeleton reads
    // the limbs (thin-parts.ts). People keep the model's mask: their pose refines it below.
    const completed = completeThinParts(work, w, h, fg.mask);
    if (completed.added) {
      fg.mask = completed.mask;
      area = maskArea(fg.mask);
      bounds = maskBounds(fg.mask, w, h) ?? bounds;
    }
  }
  const skeleton = drawnSkeleton ?? (fg.confident && !modelPose ? skeletonPose(fg.mask, w, h) : null);
  if (skeleton) {
    // Pose models trained on photos misread drawings (a stick arm, a crayon fill, a four-legged animal):
    // the skeleton's limbs come first; a limb it did not find is taken from the pose model when the model
    // accepted the figure, else from the silhouette proportions.
    const proportions = figureProportions ?? heuristicPose(fg.mask, w, h);
    // On an upright figure the skeleton puts the hips where the legs leave a fat belly, deep inside it;
    // the silhouette proportions place them better (char1: 78 px vs within 12% of the figure), and better
    // than a photo model on a drawing (char3 on paper: the model's hips missed, the proportions' did not).
    // Legs drawn together have their hips on their column's top, which a dress's proportions miss
    // (generated seed 29: both hips more than 0.1 figure sizes off).
    const isHip = (i: number): boolean => skeleton.kind === 'biped' && !skeleton.hipsOnColumn && (i === 11 || i === 12);
    const own = (k: Keypoint, i: number): boolean => k.score > 0 && !isHip(i);
    const fallbackAt = (i: number): 'model' | 'heuristic' | null =>
      isHip(i) && drawn && proportions ? 'heuristic' : modelPose ? 'model' : proportions ? 'heuristic' : null;
    body = skeleton.body.map((k, i) => {
      if (own(k, i)) return k;
      const from = fallbackAt(i);
      return from === 'model' ? modelPose![i] : from === 'heuristic' ? proportions![i] : k;
    });
    jointSources = skeleton.body.map((k, i) => (own(k, i) ? 'skeleton' : (fallbackAt(i) ?? 'skeleton')));
    poseMethod = 'skeleton';
    figure = skeleton.kind;
  } else if (modelPose) {
    body = modelPose;
    poseMethod = 'model';
    if (fg.raw) {
      const refined = refineSegmentationWithPose(fg.raw, w, h, body);
      const refinedBounds = refined && maskBounds(refined, w, h);
      if (refined && refinedBounds && maskArea(refined) >= w * h * MIN_FIGURE_SHARE) {
        fg.mask = refined;
        area = maskArea(refined);
        bounds = refinedBounds;
        // MoveNet reads the cut-out figure, so it gets a second look without the ground that was removed.
        body = fusePoses(await detectInFigure(thunder, work, w, h, fg.mask, bounds), blaze) ?? body;
      }
    }
  } else {
    if (!fg.confident) {
      throw new EngineError(
        'INVALID_CHARACTER',
        'No figure found: neither a person nor a drawing on a plain background could be made out',
        {
          maskMethod: fg.method,
          ...fg.evidence,
        },
      );
    }
    const guess = heuristicPose(fg.mask, w, h);
    if (!guess) throw new EngineError('INVALID_CHARACTER', 'No figure could be rigged from the picture', { maskMethod: fg.method });
    body = guess;
    poseMethod = 'heuristic';
  }
  // A limb guessed from the proportions where the picture shows none rides with the torso.
  const guessedFrom =
    poseMethod === 'heuristic' ? body.map(() => 'heuristic' as const) : poseMethod === 'skeleton' ? jointSources : undefined;
  const rigidLimbs = guessedFrom ? limbsNotFound(fg.mask, w, h, body, guessedFrom) : [];
  const face = still && poseMethod !== 'heuristic' ? faceOnHead(still.face, body) : null;
  const hands = still && poseMethod !== 'heuristic' ? handsAtWrists(still.hands, body) : [];
  // The person model's mask closes concavities over busy backgrounds; the pose and the picture's colours
  // say which of that is background (enclosed-background.ts). Only the texture's cut changes.
  const textureMask = fg.method === 'segmentation' ? cutEnclosedBackground(work, w, h, fg.mask, body).mask : fg.mask;
  const { x: ox, y: oy } = view.origin;
  const toSource = (l: Landmarks): Landmarks => ({ score: l.score, points: l.points.map((p) => ({ x: p.x / ws + ox, y: p.y / ws + oy })) });
  body = body.map((k) => ({ x: k.x / ws + ox, y: k.y / ws + oy, score: k.score }));
  check();

  await mkdir(outDir, { recursive: true });
  const crop = textureCrop(bounds, view, info);
  const textureFile = 'texture.png';
  const thumbnailFile = opts.thumbnail ? 'thumbnail.png' : null;
  const analysis: CharacterAnalysis = {
    version: 1,
    width: info.width,
    height: info.height,
    maskMethod: fg.method,
    body,
    poseMethod,
    figure,
    ...(jointSources ? { jointSources } : {}),
    ...(rigidLimbs.length ? { rigidLimbs } : {}),
    crop,
    face: face && toSource(face),
    hands: hands.map((hnd) => ({ side: hnd.side, ...toSource(hnd) })),
  };
  await writeTexture(
    {
      imageFile,
      crop,
      mask: textureMask,
      maskWidth: w,
      maskHeight: h,
      maskScale: ws,
      maskOrigin: view.origin,
      keepSourceAlpha: fg.method === 'alpha',
      paper: fg.method === 'drawing' ? fg.paper : undefined,
      textureFile: path.join(outDir, textureFile),
      thumbnailFile: thumbnailFile ? path.join(outDir, thumbnailFile) : null,
    },
    drawingSource,
    opts.withTexture && ((texture) => opts.withTexture!(analysis, texture)),
  );
  return { analysis, textureFile, thumbnailFile };
}

type Bounds = { x0: number; y0: number; x1: number; y1: number };
/** The person model's figure as personForeground reads it. */
type PersonFigure = NonNullable<Awaited<ReturnType<typeof personForeground>>>;

/** The rim the person model's figure leaves round a person at its 256 px reading (two of its pixels), working px. */
const personRim = (w: number, h: number): number => Math.ceil((2 * Math.max(w, h)) / 256);

/** Share of a flat colour's cut that may lie off the person model's figure (grown by its rim) for it to be the figure's. */
const FLAT_CUT_OFF_FIGURE = 0.2;

/**
 * Whether a flat colour's cut is the person's outline: at most FLAT_CUT_OFF_FIGURE of it off the person
 * model's figure grown by the model's rim. A grey canvas of fine noise passes the plain-border test, and
 * there the cut is whatever differs from the grey: a photo set small on it is cut as its whole rectangle
 * (demo1 and musepose small on noise of +-60: 0.62 and 0.37 of the cut off the figure), where a person
 * cut out on black leaves at most 0.05 off it (demo1, musepose, s13 and the 4D-Humans man).
 */
function cutOnFigure(flat: Uint8Array, person: Uint8Array, w: number, h: number): boolean {
  const grown = dilate(person, w, h, personRim(w, h));
  let cut = 0,
    off = 0;
  for (let p = 0; p < flat.length; p++) {
    if (!flat[p]) continue;
    cut++;
    if (!grown[p]) off++;
  }
  return off <= FLAT_CUT_OFF_FIGURE * cut;
}

/**
 * A person on one flat colour: the colour's cut is exact at the outline, but it loses what has that colour
 * inside the figure (black shorts and vest on black: the 4D-Humans photo's cut-out kept 0.60 of its mask).
 * The person model's figure, shrunk by the rim it leaves at its 256 px reading (two of its pixels), fills
 * those in without moving the outline.
 */
function flatCutFilled(flat: Uint8Array, person: Uint8Array, w: number, h: number): Uint8Array {
  const inside = erode(person, w, h, personRim(w, h));
  const out = flat.slice();
  for (let p = 0; p < out.length; p++) if (inside[p]) out[p] = 1;
  return fillHoles(out, w, h);
}

/** The texture's crop of the picture (source px): the figure's box, with a margin for soft edges and for the deformer to push outlines outwards. */
function textureCrop(bounds: Bounds, view: WorkingView, info: { width: number; height: number }): TextureJob['crop'] {
  const { ws, origin } = view;
  // Within the region the figure was read from: past its edge the mask's last row was smeared into the
  // texture (a picture set on a canvas read alone, its floor at its bottom edge: a strip of the canvas).
  const [x1, y1] = view.size ? [origin.x + view.size.width, origin.y + view.size.height] : [info.width, info.height];
  const bw = (bounds.x1 - bounds.x0 + 1) / ws;
  const bh = (bounds.y1 - bounds.y0 + 1) / ws;
  const margin = Math.round(Math.max(bw, bh) * 0.05 + 4);
  const x = Math.max(origin.x, Math.floor(bounds.x0 / ws + origin.x) - margin);
  const y = Math.max(origin.y, Math.floor(bounds.y0 / ws + origin.y) - margin);
  return {
    x,
    y,
    width: Math.min(info.width, x1, Math.ceil((bounds.x1 + 1) / ws + origin.x) + margin) - x,
    height: Math.min(info.height, y1, Math.ceil((bounds.y1 + 1) / ws + origin.y) + margin) - y,
  };
}
/** The figure's bounding box padded by `share` (10%) of its long side, clamped to the picture. */
function paddedBox(w: number, h: number, b: Bounds, share = 0.1): { x0: number; y0: number; w: number; h: number } {
  const pad = Math.round(Math.max(b.x1 - b.x0, b.y1 - b.y0) * share);
  const x0 = Math.max(0, b.x0 - pad),
    y0 = Math.max(0, b.y0 - pad);
  const x1 = Math.min(w - 1, b.x1 + pad),
    y1 = Math.min(h - 1, b.y1 + pad);
  return { x0, y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

/** The mask grown by 3% of the padded box, so joints on the outline still count as on the figure. */
function nearFigure(mask: Uint8Array, w: number, h: number, box: { w: number; h: number }): Uint8Array {
  return dilate(mask, w, h, Math.max(2, Math.round(Math.max(box.w, box.h) * 0.03)));
}

/**
 * BlazePose, face mesh and hands on the figure's padded box of the picture as it is (their detectors
 * want context, not a cut-out). Coordinates in working-image pixels; the body is null unless it is a
 * plausible body lying on the figure.
 */
type FigureLandmarks = {
  body: Keypoint[] | null;
  bodyScore: number;
  /** BlazePose's body with a confident torso whether or not it lies on the figure (null: none). */
  seen: Keypoint[] | null;
  face: Landmarks | null;
  hands: Landmarks[];
};

async function landmarksInFigure(rgba: Buffer, w: number, h: number, mask: Uint8Array, b: Bounds, context = 0.1): Promise<FigureLandmarks> {
  const box = paddedBox(w, h, b, context);
  const crop = Buffer.alloc(box.w * box.h * 4);
  for (let y = 0; y < box.h; y++) {
    const from = ((box.y0 + y) * w + box.x0) * 4;
    rgba.copy(crop, y * box.w * 4, from, from + box.w * 4);
  }
  const res: StillLandmarks = await detectStillLandmarks(crop, box.w, box.h);
  const shift = (l: Landmarks): Landmarks => ({ score: l.score, points: l.points.map((p) => ({ x: p.x + box.x0, y: p.y + box.y0 })) });
  const face = res.face && shift(res.face);
  const hands = res.hands.map(shift);
  if (!res.body || res.body.score < 0.5) return { body: null, bodyScore: res.body?.score ?? 0, seen: null, face, hands };
  const body = res.body.body.map((k) => ({ x: k.x + box.x0, y: k.y + box.y0, score: k.score }));
  // BlazePose is sure of itself on almost anything figure-like: demand a confident torso as well.
  const confident = [5, 6, 11, 12].every((i) => body[i].score >= 0.5);
  const plausible = confident && plausibleBody(body, nearFigure(mask, w, h, paddedBox(w, h, b)), w, h, b);
  return { body: plausible ? body : null, bodyScore: res.body.score, seen: confident ? body : null, face, hands };
}

/** Room round a flat colour's cut BlazePose is read again with when the cut's box misses a body (see above). */
const WIDER_CONTEXT = 0.25;

/** Shoulder-centre to hip-centre distance. */
function torsoLength(body: Keypoint[]): number {
  return Math.hypot((body[5].x + body[6].x - body[11].x - body[12].x) / 2, (body[5].y + body[6].y - body[11].y - body[12].y) / 2);
}

/** The face mesh when its centre lies on the figure's head (within half a torso of the face keypoints). */
function faceOnHead(face: Landmarks | null, body: Keypoint[]): Landmarks | null {
  const seen = body.slice(0, 5).filter((k) => k.score >= 0.3);
  if (!face || seen.length === 0) return null;
  const hx = seen.reduce((s, k) => s + k.x, 0) / seen.length;
  const hy = seen.reduce((s, k) => s + k.y, 0) / seen.length;
  const fx = face.points.reduce((s, p) => s + p.x, 0) / face.points.length;
  const fy = face.points.reduce((s, p) => s + p.y, 0) / face.points.length;
  return Math.hypot(fx - hx, fy - hy) <= 0.5 * torsoLength(body) ? face : null;
}

/**
 * Hands whose wrist landmark lies within 0.25 torso of a confident body wrist, named by that wrist.
 * The hand model also answers on hair, fists of fabric and drawn shapes; a hand away from every
 * wrist is not the figure's.
 */
function handsAtWrists(hands: Landmarks[], body: Keypoint[]): Array<Landmarks & { side: 'left' | 'right' }> {
  const reach = 0.25 * torsoLength(body);
  const out: Array<Landmarks & { side: 'left' | 'right' }> = [];
  for (const [side, wi] of [
    ['left', 9],
    ['right', 10],
  ] as const) {
    const wrist = body[wi];
    if (wrist.score < 0.3) continue;
    let best: Landmarks | null = null;
    let bestD = reach;
    for (const hnd of hands) {
      const d = Math.hypot(hnd.points[0].x - wrist.x, hnd.points[0].y - wrist.y);
      if (d <= bestD) [best, bestD] = [hnd, d];
    }
    if (best && !out.some((o) => o.points === best.points)) out.push({ side, ...best });
  }
  return out;
}

/**
 * Runs the pose model on the figure's padded bounding box (over white where the mask is empty, so
 * background clutter cannot pull joints away) and accepts the result only when it is a plausible,
 * upright body lying on the figure. Returns keypoints in working-image pixels, or null.
 */
async function detectInFigure(
  detector: PoseDetector,
  rgba: Buffer,
  w: number,
  h: number,
  mask: Uint8Array,
  b: Bounds,
): Promise<Keypoint[] | null> {
  const box = paddedBox(w, h, b);
  const near = nearFigure(mask, w, h, box);
  const crop = Buffer.alloc(box.w * box.h * 4, 255);
  for (let y = 0; y < box.h; y++) {
    for (let x = 0; x < box.w; x++) {
      const p = (box.y0 + y) * w + box.x0 + x;
      if (!near[p]) continue;
      const o = (y * box.w + x) * 4;
      const a = rgba[p * 4 + 3] / 255;
      for (let c = 0; c < 3; c++) crop[o + c] = Math.round(rgba[p * 4 + c] * a + 255 * (1 - a));
    }
  }
  const res = await detector.detect(crop, box.w, box.h);
  if (!res || res.score < 0.3) return null;
  const body = res.body.map((k) => ({ x: k.x + box.x0, y: k.y + box.y0, score: k.score }));
  return plausibleBody(body, near, w, h, b) ? body : null;
}

/** COCO-17 indices of left/right pairs (eyes, ears, shoulders, elbows, wrists, hips, knees, ankles). */
const LR_PAIRS: Array<[number, number]> = [
  [1, 2],
  [3, 4],
  [5, 6],
  [7, 8],
  [9, 10],
  [11, 12],
  [13, 14],
  [15, 16],
];
/** A joint MoveNet reports at least this sure of is kept; below it BlazePose's may replace it. */
const KEEP_MOVENET = 0.5;

/**
 * One pose from MoveNet Thunder's and BlazePose's readings of the same picture. MoveNet's joints are
 * the base, because the driving videos are read by MoveNet too and its joint conventions (where a hip
 * sits under a skirt, say) then agree on both sides of the retargeting; a joint it is unsure of is
 * taken from BlazePose when BlazePose is sure of it (on the sample media: knees and ankles under
 * skirts and sheer stockings). BlazePose's left and right are first matched to MoveNet's, since the two
 * can disagree on a figure seen from behind.
 */
export function fusePoses(movenet: Keypoint[] | null, blaze: Keypoint[] | null): Keypoint[] | null {
  if (!movenet || !blaze) return movenet ?? blaze;
  let other = blaze;
  const sameSide = (movenet[5].x - movenet[6].x) * (blaze[5].x - blaze[6].x) >= 0;
  if (!sameSide) {
    other = blaze.slice();
    for (const [l, r] of LR_PAIRS) [other[l], other[r]] = [blaze[r], blaze[l]];
  }
  return movenet.map((k, i) => (k.score < KEEP_MOVENET && other[i].score >= KEEP_MOVENET ? other[i] : k));
}

/**
 * A figure found on a plain border that the photo pose models read as a person, as the person model
 * cuts it; null when it is not read as one (a drawing). BlazePose has accepted a body on the figure.
 * MoveNet reads the figure cut out as a drawing and, when that reading does not agree with
 * BlazePose's, cut out by the person model: a photo whose dark sky or grey corners pass for a plain
 * border gives a drawing mask of most of the picture, on which MoveNet misplaces the limbs (musepose
 * hazed: 7 of 12 agree; on her own mask 9, the other 3 joints MoveNet is unsure of, see readAsPerson). With the two models agreeing the person model's figure is
 * taken even when the model is unsure of it (down to PERSON_MASK_WITH_POSE), as long as BlazePose's
 * body lies on it: under other light it is less sure of a glowing outline than of a person in a photo.
 */
async function personOnPlainBackground(
  thunder: PoseDetector,
  rgba: Buffer,
  w: number,
  h: number,
  blaze: Keypoint[],
  movenetOnDrawn: Keypoint[] | null,
  drawnBounds: Bounds,
): Promise<{ person: PersonFigure; landmarks?: FigureLandmarks } | null> {
  const agreeOnDrawn = !!movenetOnDrawn && readAsPerson(movenetOnDrawn, blaze, drawnBounds);
  const person = await personForeground(rgba, w, h);
  const b = person && maskBounds(person.mask, w, h);
  if (!person || !b) return null;
  // Unsure of its figure, the person model's mask is taken only when BlazePose's body lies on it.
  const holdsPose = person.sure || (person.evidence.segmentationConfidence ?? 0) >= PERSON_MASK_WITH_POSE;
  if (!holdsPose || (!person.sure && !plausibleBody(blaze, nearFigure(person.mask, w, h, paddedBox(w, h, b)), w, h, b))) return null;
  if (agreeOnDrawn) return { person };
  // Both models read again on the person model's figure: BlazePose closer (a small figure on a large
  // canvas), MoveNet on its cut-out. BlazePose's reading goes with the figure (the caller's own reading).
  const landmarks = await landmarksInFigure(rgba, w, h, person.mask, b);
  const closer = landmarks.body;
  const movenet = closer && (await detectInFigure(thunder, rgba, w, h, person.mask, b));
  return movenet && closer && readAsPerson(movenet, closer, b, true) ? { person, landmarks } : null;
}

/**
 * Share of the colours (a histogram of 8 levels a channel) that what the person model leaves out of a
 * drawing mask shares with what it keeps, from which the left-out part is the figure's own fill: a
 * drawing's fill is its crayon and the paper between the strokes wherever the person model stops.
 * Generated hatched seed 116: 0.88 (the person mask without the head's fill and an arm); flat orange
 * seed 86: 0.77 (without both arms). Photographed people on a plain border, where what the person model
 * leaves out is backdrop: musepose darkened and hazed and demo1 hazed 0.16-0.54; people cut out on white,
 * cream, grey and blue 0.11-0.44. Seed 17 (flat colour, only its outline left out) 0.20, not caught.
 */
const OWN_FILL_SHARE = 0.7;

/** Whether what `person` leaves out of the drawing mask `drawn` is coloured as what it keeps (OWN_FILL_SHARE). */
function ownFillLeftOut(rgba: Buffer, w: number, h: number, drawn: Uint8Array, person: Uint8Array): boolean {
  const left = new Float64Array(512),
    kept = new Float64Array(512);
  let nLeft = 0,
    nKept = 0;
  for (let i = 0; i < w * h; i++) {
    if (!drawn[i]) continue;
    const bin = ((rgba[i * 4] >> 5) << 6) | ((rgba[i * 4 + 1] >> 5) << 3) | (rgba[i * 4 + 2] >> 5);
    if (person[i]) {
      kept[bin]++;
      nKept++;
    } else {
      left[bin]++;
      nLeft++;
    }
  }
  if (!nLeft || !nKept) return false;
  let shared = 0;
  for (let k = 0; k < 512; k++) shared += Math.min(left[k] / nLeft, kept[k] / nKept);
  return shared >= OWN_FILL_SHARE;
}

/** Mean person probability the person model's figure needs when both pose models read it as a person. */
const PERSON_MASK_WITH_POSE = 0.65;

/**
 * How sure a photo model must be to read a confident figure as a person on its own, the other refusing
 * it: BlazePose its body score; MoveNet its mean joint score, or BlazePose having seen a body there (its
 * score, though the body did not lie on the mask or its torso was too short). People, under every
 * variation of light, size, tilt and background measured: BlazePose alone 0.92-1.00; MoveNet alone
 * 0.35-0.65 with BlazePose at 0.80-0.98. The juice cup: BlazePose alone 0.56-0.83; MoveNet alone
 * 0.33-0.45 with BlazePose at 0.10-0.48; never both.
 */
const LONE_BLAZEPOSE = 0.9;
const LONE_MOVENET = 0.5;
const BLAZEPOSE_SAW_BODY = 0.75;

function sureAlone(movenet: Keypoint[] | null, still: { bodyScore: number } | null): boolean {
  const blazeScore = still?.bodyScore ?? 0;
  if (!movenet) return blazeScore >= LONE_BLAZEPOSE;
  return movenet.reduce((s, k) => s + k.score, 0) / movenet.length >= LONE_MOVENET || blazeScore >= BLAZEPOSE_SAW_BODY;
}

/** Limb joints (of 12) on which MoveNet and BlazePose must agree for a figure to read as a photographed person. */
const PERSON_AGREEMENT = 10;
/** Of those, how many MoveNet must be sure of when the rest are joints it is unsure of (see readAsPerson). */
const PERSON_AGREEMENT_SURE = 8;

/**
 * Whether MoveNet's and BlazePose's readings of a figure (each already plausible, see plausibleBody) put
 * at least PERSON_AGREEMENT of the 12 limb joints within a tenth of the figure's size of each other,
 * left and right matched as fusePoses does. People on plain backgrounds (three photos and an
 * illustration, on white, cream, grey, blue and black) score 10-12; on the shared drawings and their
 * synthetic phone photos the two models never both accept the figure.
 *
 * `deferUnsure`: a joint MoveNet is unsure of (below KEEP_MOVENET), where BlazePose is sure, is taken
 * from BlazePose by fusePoses, so it counts as agreeing, as long as PERSON_AGREEMENT_SURE joints agree
 * outright. Used on the person model's cut-out only (three models then read a person): musepose hazed or
 * on black has MoveNet unsure of her knees and ankles under the translucent skirt (9 of 12 agree).
 */
function readAsPerson(movenet: Keypoint[], blaze: Keypoint[], b: Bounds, deferUnsure = false): boolean {
  const size = Math.max(b.x1 - b.x0, b.y1 - b.y0);
  const sameSide = (movenet[5].x - movenet[6].x) * (blaze[5].x - blaze[6].x) >= 0;
  let agree = 0;
  let deferred = 0;
  for (let j = 5; j <= 16; j++) {
    const other = sameSide ? blaze[j] : blaze[j % 2 ? j + 1 : j - 1];
    if (Math.hypot(movenet[j].x - other.x, movenet[j].y - other.y) <= 0.1 * size) agree++;
    else if (movenet[j].score < KEEP_MOVENET && other.score >= KEEP_MOVENET) deferred++;
  }
  if (agree >= PERSON_AGREEMENT) return true;
  return deferUnsure && agree >= PERSON_AGREEMENT_SURE && agree + deferred >= PERSON_AGREEMENT;
}

/**
 * BlazePose is sure of a body (LONE_BLAZEPOSE) and some of its limb joints do not lie on the person model's
 * figure: the model kept part of the person. It reads a colour cast or clipped highlights differently
 * (musepose under a cool cast: her dress and head alone, 0.27 of her mask; brightened, her dress alone;
 * under a warm cast, no arms), the luminance much less so (cool: 0.73), and it sees more of a figure
 * read closer, at its full resolution, on the box of the body BlazePose sees (brightened: head, body and
 * legs). Of those readings (the luminance of the whole picture, the colours and the luminance of
 * BlazePose's box), the one with the fewest of BlazePose's joints off it (read again on it) is taken when
 * BlazePose's body lies on it and it has fewer off than the figure; then the larger. A cup or a creature
 * BlazePose is not sure of is left alone, and so is a figure BlazePose's limbs all lie on.
 */
async function personWithBody(
  rgba: Buffer,
  w: number,
  h: number,
  still: FigureLandmarks,
  mask: Uint8Array,
  bounds: Bounds,
): Promise<PersonWithBody | null> {
  const off = still.seen ? jointsOff(still.seen, mask, w, h, bounds) : LIMB_JOINTS;
  if (off === 0) return null;
  const focus = still.seen && bodyBounds(still.seen);
  const readings: Array<[boolean, Bounds | undefined]> = [[true, undefined]];
  if (focus) readings.push([false, focus], [true, focus]);
  let best: (PersonWithBody & { off: number; area: number }) | null = null;
  for (const [luminance, region] of readings) {
    const person = await personForeground(rgba, w, h, luminance, region);
    const b = person && maskBounds(person.mask, w, h);
    if (!person || !b) continue;
    const landmarks = await landmarksInFigure(rgba, w, h, person.mask, b);
    if (!landmarks.body) continue;
    const candidate = { person, bounds: b, landmarks, off: jointsOff(landmarks.body, person.mask, w, h, b), area: maskArea(person.mask) };
    if (candidate.off >= off || candidate.area <= maskArea(mask)) continue;
    if (!best || candidate.off < best.off || (candidate.off === best.off && candidate.area > best.area)) best = candidate;
  }
  return best;
}

type PersonWithBody = { person: PersonFigure; bounds: Bounds; landmarks: FigureLandmarks };

/** Limb joints of a COCO-17 body (shoulders to ankles). */
const LIMB_JOINTS = 12;

/** The box of a body's joints. */
function bodyBounds(body: Keypoint[]): Bounds {
  const xs = body.map((k) => k.x),
    ys = body.map((k) => k.y);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/** BlazePose's confident limb joints (of 12) that do not lie on the figure (grown as nearFigure). */
function jointsOff(body: Keypoint[], mask: Uint8Array, w: number, h: number, b: Bounds): number {
  const near = nearFigure(mask, w, h, paddedBox(w, h, b));
  let off = 0;
  for (let j = 5; j <= 16; j++) {
    const x = Math.round(body[j].x),
      y = Math.round(body[j].y);
    if (body[j].score >= 0.5 && !(x >= 0 && y >= 0 && x < w && y < h && near[y * w + x])) off++;
  }
  return off;
}

/** A torso of some height, upright, and at least 8 confident joints of which 80% lie on the figure. */
function plausibleBody(body: Keypoint[], near: Uint8Array, w: number, h: number, b: Bounds): boolean {
  const core = [5, 6, 11, 12];
  if (core.some((i) => body[i].score < 0.25)) return false;
  const shoulderY = (body[5].y + body[6].y) / 2;
  const hipY = (body[11].y + body[12].y) / 2;
  if (hipY - shoulderY < (b.y1 - b.y0) * 0.08) return false;
  const confident = body.filter((k) => k.score >= 0.3);
  const inside = confident.filter((k) => {
    const x = Math.round(k.x),
      y = Math.round(k.y);
    return x >= 0 && y >= 0 && x < w && y < h && near[y * w + x] === 1;
  });
  return confident.length >= 8 && inside.length >= confident.length * 0.8;
}
