/**
 * A drawing's ink strokes on the rig's working grid (drawings only; fields.ts InkWalls, inkSeam below). The
 * texture's mask can be solid where the drawing is not: the narrow wedge of paper between an arm hanging
 * close beside a dress and the dress's side is sealed by the mask (and by the rig's dilation of it), so
 * the silhouette alone shows one blob there. The two outline strokes with the paper between them still
 * say where the arm ends and the body begins.
 */
import { BEHIND_JOINT, geodesic } from './fields.js';
import { boneFrame, distanceToOutside, mostConcaveEdge, segmentDistance, type Mask } from './mask.js';
import type { Point } from './skeleton.js';
import { reach4 } from '../vision/mask-ops.js';

/**
 * A stroke is at most this share of the working grid's long side wide (twice it, the closing's
 * diameter): a 6 px marker on a 450 px drawing is 1.3 %; char1's outline about 1 %.
 */
const STROKE_SHARE = 0.015;
/** A pixel this much darker (luma, 0-255) than its surroundings with thin strokes closed over is ink. */
const INK_CONTRAST = 48;

/**
 * Running max (or min) over a window of 2r+1 along rows, then columns. One loop per extreme with
 * Math.max / Math.min called directly (a function picked at run time is a call V8 cannot inline).
 */
function boxExtreme(src: Float32Array, w: number, h: number, r: number, max: boolean): Float32Array {
  const tmp = new Float32Array(w * h),
    out = new Float32Array(w * h);
  if (max) {
    alongRows(src, tmp, w, h, r, true);
    alongColumns(tmp, out, w, h, r, true);
  } else {
    alongRows(src, tmp, w, h, r, false);
    alongColumns(tmp, out, w, h, r, false);
  }
  return out;
}

function alongRows(src: Float32Array, out: Float32Array, w: number, h: number, r: number, max: boolean): void {
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = src[y * w + x];
      const k1 = Math.min(w - 1, x + r);
      if (max) for (let k = Math.max(0, x - r); k <= k1; k++) v = Math.max(v, src[y * w + k]);
      else for (let k = Math.max(0, x - r); k <= k1; k++) v = Math.min(v, src[y * w + k]);
      out[y * w + x] = v;
    }
  }
}

function alongColumns(src: Float32Array, out: Float32Array, w: number, h: number, r: number, max: boolean): void {
  for (let y = 0; y < h; y++) {
    const k1 = Math.min(h - 1, y + r);
    for (let x = 0; x < w; x++) {
      let v = src[y * w + x];
      if (max) for (let k = Math.max(0, y - r); k <= k1; k++) v = Math.max(v, src[k * w + x]);
      else for (let k = Math.max(0, y - r); k <= k1; k++) v = Math.min(v, src[k * w + x]);
      out[y * w + x] = v;
    }
  }
}

/**
 * Ink on the working grid `m` (1 = a stroke pixel inside `m`): a pixel whose luma lies INK_CONTRAST
 * below the grey-level closing of the picture (a max then a min over a square of STROKE_SHARE of the
 * long side), i.e. a thin dark line on lighter paper or fill, whatever the colours. A wide dark fill
 * closes onto itself and is not ink. Each working pixel takes the darkest covered texel it spans, so a
 * stroke thinner than a working pixel is kept. `rgba`: the texture (tw x th), `scale` working px per
 * texture px.
 */
export function inkMap(rgba: Uint8Array, tw: number, th: number, scale: number, m: Mask): Uint8Array {
  const { w, h } = m;
  const luma = new Float32Array(w * h).fill(255);
  for (let ty = 0; ty < th; ty++) {
    const y = Math.min(h - 1, Math.floor(ty * scale));
    for (let tx = 0; tx < tw; tx++) {
      const p = (ty * tw + tx) * 4;
      if (rgba[p + 3] < 128) continue;
      const x = Math.min(w - 1, Math.floor(tx * scale));
      const l = 0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2];
      if (l < luma[y * w + x]) luma[y * w + x] = l;
    }
  }
  const r = Math.max(2, Math.round(STROKE_SHARE * Math.max(w, h)));
  const closed = boxExtreme(boxExtreme(luma, w, h, r, true), w, h, r, false);
  const ink = new Uint8Array(w * h);
  for (let i = 0; i < ink.length; i++) if (m.data[i] && closed[i] - luma[i] >= INK_CONTRAST) ink[i] = 1;
  return ink;
}

/** A drawing's strokes and its own (undilated) mask on the working grid (InkWalls, inkSeam). */
export interface DrawnInk {
  ink: Uint8Array;
  inside: Uint8Array;
  /** The strokes are only the figure's own edge (a hatched figure, see drawnInk): no part inside is closed by them. */
  edgeOnly?: boolean;
}

/** Depth (working px) from the nearest stroke at which a pixel is open fill. */
const OPEN_FILL_DEPTH = 3;
/**
 * Below this share of the figure in open fill, its strokes are hatching, not outlines: the hatched
 * generated seeds of 1-120 whose crayon reads as ink 0.00-0.16 as drawn (seed 32, a pencil box body
 * hatched in orange, 0.100; seed 112 0.162), outlined, flat-coloured and stick figures 0.22 and more.
 */
const MIN_OPEN_FILL = 0.19;
/** A hatched figure's outline: the pixels of its own mask less than this far (working px) from outside it. */
const EDGE_DEPTH = 3;

/**
 * The drawing's strokes as borders. A figure coloured by hatching (the crayon's lines a few px apart
 * across every part: under MIN_OPEN_FILL of it further than OPEN_FILL_DEPTH from a stroke) has no fill
 * between its outlines to tell an outline by: its hatching as walls made the fill costly to cross and
 * the strokes corridors (seed 11: a hand's tip went to the torso; seed 32, just over the old 10 % line,
 * had its regions' borders run ragged along the hatching, and every motion tore it). Its borders are
 * then its own edge (edgeOnly): the cut along the ink leaves the paper between an arm and the body
 * outside the mask, the rig's dilation seals it, and the edge on either side parts them as an outline
 * would (seed 32's hanging arm).
 */
export function drawnInk(rgba: Uint8Array, tw: number, th: number, scale: number, m: Mask, inside: Uint8Array): DrawnInk | undefined {
  const ink = inkMap(rgba, tw, th, scale, m);
  const notInk = new Uint8Array(ink.length);
  for (let i = 0; i < ink.length; i++) notInk[i] = ink[i] ? 0 : 1;
  const depth = distanceToOutside({ w: m.w, h: m.h, data: notInk });
  let area = 0,
    open = 0;
  for (let i = 0; i < ink.length; i++) {
    if (!inside[i]) continue;
    area++;
    if (!ink[i] && depth[i] >= OPEN_FILL_DEPTH) open++;
  }
  if (area === 0) return undefined;
  return open >= MIN_OPEN_FILL * area ? { ink, inside } : { ink: maskEdge(m.w, m.h, inside), inside, edgeOnly: true };
}

/** The pixels of `inside` less than EDGE_DEPTH from a pixel outside it: the figure's own edge, as a stroke. */
function maskEdge(w: number, h: number, inside: Uint8Array): Uint8Array {
  const depth = distanceToOutside({ w, h, data: inside });
  const edge = new Uint8Array(w * h);
  for (let i = 0; i < edge.length; i++) if (inside[i] && depth[i] < EDGE_DEPTH) edge[i] = 1;
  return edge;
}

/** Share of a disc round a fill pixel that is fill, from which that pixel is the corner between two strokes. */
const NOTCH_CONCAVITY = 0.62;
/** Share of the fill along the arm's bones that must be reached from them without crossing a stroke or the cut. */
const ARM_REACHED = 0.7;

/**
 * An arm lying close beside the body (a dress's side, arms down): the silhouette, sealed between them,
 * shows no armpit (armRoot finds none and cuts nothing), but the drawing does: the arm's underside stroke
 * and the body's side stroke meet there, at the end of the paper between them. Here the fill (the mask
 * less its strokes) has a notch, the stroke they share, and its most concave pixel near the upper arm on
 * the hip's side of its bone is the armpit. The seam runs from there through the shoulder joint to the
 * outline beyond; the arm is the fill reached from its forearm (elbow to wrist) without crossing a stroke or
 * the seam, with the strokes nearer to it than to the rest of the fill. Everything else scores
 * BEHIND_JOINT per pixel of distance from the seam for both arm bones (as cutArm's), so the body keeps its
 * side and its outline when the arm lifts. Nothing changes when the reached fill holds the body's middle
 * or less than ARM_REACHED of the fill along the arm's bones (an arm whose fill a line crosses).
 */
export function inkSeam(
  m: Mask,
  d: DrawnInk,
  ds: Float64Array[],
  a: Point,
  e: Point,
  wr: Point,
  r: number,
  root: Point,
  mid: Point,
): boolean {
  const { w, h } = m;
  const upper = r > 0 ? boneFrame(a, e, root) : null;
  if (!upper) return false;
  // The armpit lies on the hips' side of the upper arm's line or of the forearm's, and on the arm's side
  // of the body's middle line: a hanging arm's shoulder under the neck (arm-root.ts, shoulderUnderNeck)
  // puts the upper arm's bone across the top of the dress, and the notch between arm and dress can lie
  // outside that line.
  const fore = boneFrame(e, wr, root);
  const axis = boneFrame(root, mid, e);
  const armSide = (x: number, y: number): boolean =>
    (upper.side(x, y) === upper.hipSide || (!!fore && fore.side(x, y) === fore.hipSide)) && (!axis || axis.side(x, y) === axis.hipSide);
  const frame = { ...upper, side: (x: number, y: number): number => (armSide(x, y) ? 1 : -1), hipSide: 1 };
  const fill = new Uint8Array(w * h);
  for (let i = 0; i < fill.length; i++) fill[i] = d.inside[i] && !d.ink[i] ? 1 : 0;
  const isFill = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < w && y < h && fill[y * w + x] === 1;
  // The armpit: the most concave fill pixel beside a stroke (not the figure's outside) near the upper arm.
  const R = Math.max(3, Math.round(r));
  const armpit = mostConcaveEdge(w, h, isFill, frame, r, R, 0, NOTCH_CONCAVITY, (x, y) => {
    let n = 0,
      k = 0;
    for (let dy = -R; dy <= R; dy++)
      for (let dx = -R; dx <= R; dx++) {
        if (dx * dx + dy * dy > R * R) continue;
        const xx = x + dx,
          yy = y + dy;
        // The figure's outside within the disc: an outline corner, not a notch between two strokes.
        if (xx < 0 || yy < 0 || xx >= w || yy >= h || m.data[yy * w + xx] !== 1) return null;
        k++;
        if (fill[yy * w + xx]) n++;
      }
    return k > 0 ? n / k : null;
  });
  if (armpit < 0) return false;
  const ax = (armpit % w) + 0.5,
    ay = Math.floor(armpit / w) + 0.5;
  // The seam: from the armpit to the shoulder joint, then on to the figure's outside.
  const sl = Math.hypot(a.x - ax, a.y - ay);
  if (sl < 1) return false;
  for (let s = 1; s < sl; s++) if (!inMaskAt(m, ax + ((a.x - ax) * s) / sl, ay + ((a.y - ay) * s) / sl)) return false;
  const exit = seamExit(m, { x: ax, y: ay }, a);
  if (!exit) return false;
  const seam: Array<[Point, Point]> = [
    [{ x: ax, y: ay }, a],
    [a, exit],
  ];
  const open = new Uint8Array(fill);
  for (const [p, q] of seam) {
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    const ux = (q.x - p.x) / len,
      uy = (q.y - p.y) / len;
    for (let s = -1; s <= len + 3; s += 0.5)
      for (const [ox, oy] of [
        [0, 0],
        [1, 0],
        [0, 1],
      ]) {
        const x = Math.floor(p.x + ux * s) + ox,
          y = Math.floor(p.y + uy * s) + oy;
        if (x >= 0 && y >= 0 && x < w && y < h) open[y * w + x] = 0;
      }
  }
  // The arm's fill: reached from its bones (elbow to wrist) inside the fill, not across the seam.
  const seeds: number[] = [];
  const along: number[] = [];
  const l2 = Math.hypot(wr.x - e.x, wr.y - e.y);
  for (let s = 0; s <= l2; s += 1) {
    const x = Math.floor(e.x + ((wr.x - e.x) * s) / Math.max(l2, 1e-6)),
      y = Math.floor(e.y + ((wr.y - e.y) * s) / Math.max(l2, 1e-6));
    if (x < 0 || y < 0 || x >= w || y >= h || !fill[y * w + x]) continue;
    along.push(y * w + x);
    if (open[y * w + x]) seeds.push(y * w + x);
  }
  if (seeds.length === 0) return false;
  // Walked 4-connected: a slanted 1 px pencil line holds (seed 21's arm reached its dress's fill across the
  // 1 px lines between them when walked 8-connected).
  const reach = reach4(open, 1, w, h, seeds);
  // The body's fill: what its middle reaches the same way (not a speck of paper in the notch).
  const body = nearestFill(open, w, h, mid, R);
  if (body < 0 || reach[body]) return false;
  let got = 0;
  for (const i of along) if (reach[i]) got++;
  if (got < ARM_REACHED * along.length) return false;
  const rest = reach4(open, 1, w, h, [body]);
  // Strokes and rim go to the nearer fill: the arm's, or the body's.
  const armSeeds: number[] = [],
    restSeeds: number[] = [];
  for (let i = 0; i < fill.length; i++) {
    if (reach[i]) armSeeds.push(i);
    else if (rest[i]) restSeeds.push(i);
  }
  const dArm = geodesic(m, armSeeds),
    dRest = geodesic(m, restSeeds);
  for (let i = 0; i < fill.length; i++) {
    if (!m.data[i] || !(dRest[i] < dArm[i])) continue;
    const x = (i % w) + 0.5,
      y = Math.floor(i / w) + 0.5;
    const add = BEHIND_JOINT * Math.min(segmentDistance(x, y, seam[0][0], seam[0][1]), segmentDistance(x, y, seam[1][0], seam[1][1]));
    for (const sc of ds) sc[i] += add;
  }
  return true;
}

/**
 * Where an armpit seam leaves the figure past the shoulder joint `a`: the nearest point outside the mask
 * ahead of the joint (on the far side of the line through it square to the armpit's way to it). Straight
 * on from the armpit through the joint is that point for a shoulder at the figure's side; a hanging arm's
 * shoulder under the neck (arm-root.ts, shoulderUnderNeck) lies well inside the body, and the straight
 * line ran on through the neck and the head (seed 21: 89 working px past the joint, the outline 15 px off).
 * Null when nothing outside lies within the grid.
 */
function seamExit(m: Mask, armpit: Point, a: Point): Point | null {
  const { w, h } = m;
  const l = Math.hypot(a.x - armpit.x, a.y - armpit.y);
  const ux = (a.x - armpit.x) / l,
    uy = (a.y - armpit.y) / l;
  let best: Point | null = null,
    bd = Infinity;
  for (let y = -1; y <= h; y++)
    for (let x = -1; x <= w; x++) {
      if (x >= 0 && y >= 0 && x < w && y < h && m.data[y * w + x] === 1) continue;
      const dx = x + 0.5 - a.x,
        dy = y + 0.5 - a.y;
      if (dx * ux + dy * uy < 0) continue;
      const d = dx * dx + dy * dy;
      if (d < bd) [bd, best] = [d, { x: x + 0.5, y: y + 0.5 }];
    }
  return best;
}

/** The fill pixel nearest `p` within `r` px, or -1. */
function nearestFill(fill: Uint8Array, w: number, h: number, p: Point, r: number): number {
  let best = -1,
    bd = Infinity;
  for (let dy = -r; dy <= r; dy++)
    for (let dx = -r; dx <= r; dx++) {
      const x = Math.floor(p.x) + dx,
        y = Math.floor(p.y) + dy;
      if (x < 0 || y < 0 || x >= w || y >= h || !fill[y * w + x] || dx * dx + dy * dy >= bd) continue;
      bd = dx * dx + dy * dy;
      best = y * w + x;
    }
  return best;
}

function inMaskAt(m: Mask, x: number, y: number): boolean {
  const ix = Math.floor(x),
    iy = Math.floor(y);
  return ix >= 0 && iy >= 0 && ix < m.w && iy < m.h && m.data[iy * m.w + ix] === 1;
}
