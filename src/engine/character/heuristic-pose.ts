/**
 * Fallback body pose from a silhouette, for figures a pose model cannot read (children's drawings,
 * mascots). Assumes an upright figure facing the viewer, so the figure's right side is on the image's
 * left. Extremities come from the mask (hands = lateral extremes of the upper body, feet = lowest
 * points of each half, head = top blob, neck = narrowest upper row); inner joints from proportions.
 */
import type { Keypoint } from '../types.js';

/** Confidence given to every heuristic joint: present, but not a measurement. */
const HEURISTIC_SCORE = 0.3;

interface Pt {
  x: number;
  y: number;
}

function centroid(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): Pt | null {
  let sx = 0,
    sy = 0,
    n = 0;
  for (let y = Math.max(0, y0); y <= y1; y++) {
    for (let x = Math.max(0, x0); x <= x1 && x < w; x++) {
      if (mask[y * w + x]) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return n ? { x: sx / n, y: sy / n } : null;
}

/** Pose in the mask's pixel space; null when the mask is empty. */
export function heuristicPose(mask: Uint8Array, w: number, h: number): Keypoint[] | null {
  let x0 = w,
    x1 = -1,
    y0 = h,
    y1 = -1;
  const rowMin = new Int32Array(h).fill(-1);
  const rowMax = new Int32Array(h).fill(-1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      if (rowMin[y] < 0) rowMin[y] = x;
      rowMax[y] = x;
    }
    if (rowMin[y] >= 0) {
      x0 = Math.min(x0, rowMin[y]);
      x1 = Math.max(x1, rowMax[y]);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  if (x1 < 0) return null;
  const H = y1 - y0 + 1;
  const W = x1 - x0 + 1;
  const all = centroid(mask, w, x0, y0, x1, y1)!;
  const cx = all.x;

  // Neck: the narrowest row below the head's widest row (crowns, hats and hair tufts are narrow too,
  // so the search starts under the head), within the upper 45% of the figure.
  const widthAt = (y: number) => (rowMin[y] < 0 ? 0 : rowMax[y] - rowMin[y]);
  let headWide = y0 + Math.round(0.1 * H);
  for (let y = y0 + Math.round(0.03 * H); y <= y0 + Math.round(0.25 * H); y++) {
    if (widthAt(y) > widthAt(headWide)) headWide = y;
  }
  let neckY = y0 + Math.round(0.2 * H);
  let narrowest = Infinity;
  for (let y = headWide + 1; y <= y0 + Math.round(0.45 * H); y++) {
    const width = widthAt(y);
    if (width > 0 && width < narrowest) {
      narrowest = width;
      neckY = y;
    }
  }
  const head = centroid(mask, w, x0, y0, x1, neckY) ?? { x: cx, y: y0 + 0.1 * H };
  const headR = Math.max(2, (neckY - y0) / 2);

  const band = Math.round(0.1 * W);
  const armTop = neckY;
  const armBottom = y0 + Math.round(0.65 * H);
  let leftMost = { x: w, y: 0 },
    rightMost = { x: -1, y: 0 };
  for (let y = armTop; y <= armBottom; y++) {
    if (rowMin[y] < 0) continue;
    if (rowMin[y] < leftMost.x) leftMost = { x: rowMin[y], y };
    if (rowMax[y] > rightMost.x) rightMost = { x: rowMax[y], y };
  }
  const handR = centroid(mask, w, leftMost.x, leftMost.y - band, leftMost.x + band, leftMost.y + band) ?? leftMost;
  const handL = centroid(mask, w, rightMost.x - band, rightMost.y - band, rightMost.x, rightMost.y + band) ?? rightMost;

  const footBand = y1 - Math.round(0.12 * H);
  const footR = centroid(mask, w, x0, footBand, Math.floor(cx), y1) ?? { x: cx - 0.1 * W, y: y1 };
  const footL = centroid(mask, w, Math.ceil(cx), footBand, x1, y1) ?? { x: cx + 0.1 * W, y: y1 };

  const hipY = y0 + 0.62 * H;
  const clampX = (x: number) => Math.min(cx + 0.2 * W, Math.max(cx - 0.2 * W, x));
  const hipR = { x: clampX(cx + 0.5 * (footR.x - cx)), y: hipY };
  const hipL = { x: clampX(cx + 0.5 * (footL.x - cx)), y: hipY };
  const shoulderY = neckY + 0.35 * (hipY - neckY);
  const shoulderHalf = Math.max(0.06 * H, (1.1 * Math.abs(hipL.x - hipR.x)) / 2);
  const shR = { x: cx - shoulderHalf, y: shoulderY };
  const shL = { x: cx + shoulderHalf, y: shoulderY };
  const midp = (a: Pt, b: Pt): Pt => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

  const pts: Pt[] = [
    { x: head.x, y: head.y },
    { x: head.x + headR * 0.35, y: head.y - headR * 0.2 },
    { x: head.x - headR * 0.35, y: head.y - headR * 0.2 },
    { x: head.x + headR * 0.8, y: head.y },
    { x: head.x - headR * 0.8, y: head.y },
    shL,
    shR,
    midp(shL, handL),
    midp(shR, handR),
    handL,
    handR,
    hipL,
    hipR,
    midp(hipL, footL),
    midp(hipR, footR),
    footL,
    footR,
  ];
  return pts.map((p) => ({ x: p.x, y: p.y, score: HEURISTIC_SCORE }));
}
