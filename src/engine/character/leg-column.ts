/**
 * Legs drawn together, for the silhouette-skeleton pose (skeleton-pose.ts).
 *
 * Two legs drawn side by side with no gap the mask keeps (touching, or a shared line) are one column of
 * the silhouette: its skeleton runs down the column's middle and forks, if at all, only at the feet. The
 * skeleton's rule (the lowest end on each side of the body's middle is a foot) then took the column for
 * one leg and a hanging arm, or the column's other toe, for the second (generated seeds 8, 17 and 29: a
 * knee and an ankle on the arm beside the wrist; seed 28: both hips, knees and ankles on one line, the
 * hips up in the body). Two legs parting at the crotch fork where the lower leg's column widens into the
 * body (its hip line); a second end whose path joins the lower leg's above that line is an arm, one
 * joining well below it a toe. The column is then split along its middle: each leg's joints a quarter of
 * the column's width either side of its centre line, the hips on the hip line, the ankles a leg's half
 * thickness above the column's bottom and the knees halfway between, as the artist's annotation puts them.
 */
import { runAround } from './arm-root.js';

/** The column's top (the hip line) is the last row before its width exceeds its own by this factor. */
const HIP_WIDEN = 1.3;

/** Share of the foot's path to the root, after the foot itself, over which the column's width is measured. */
const WIDTH_FROM = 0.1;
const WIDTH_TO = 0.4;

/** Furthest a second leg's top, bottom and fork may lie from the lowest leg's, as a share of that leg's length. */
const CROTCH_SPAN = 0.35;

/** Grid point [x, y]. */
type GridPt = [number, number];

export interface LegColumn {
  /** Grid rows of the column's top (the hip line) and bottom. */
  hipRow: number;
  bottom: number;
  /** [left, right] legs (COCO: the figure's left, the image's right side), each [hip, knee, ankle]. */
  legs: [[GridPt, GridPt, GridPt], [GridPt, GridPt, GridPt]];
}

/**
 * The column holding the lowest foot's path (`path`, foot end first, grid pixels `y * w + x` of the 0/1
 * grid `m`), split into two legs; null when the path is too short to hold a leg or the column is
 * narrower than `minWidth` grid px (an outline's loose stroke, not two legs: generated seed 7 as drawn,
 * whose mask kept the head and a stroke of a leg).
 */
export function legColumn(m: Uint8Array, w: number, path: number[], minWidth: number): LegColumn | null {
  const at = (i: number): GridPt => [path[i] % w, Math.floor(path[i] / w)];
  const widthAt = (i: number): number => {
    const [a, b] = runAround(m, w, ...at(i));
    return b - a + 1;
  };
  const from = Math.floor(WIDTH_FROM * path.length),
    to = Math.floor(WIDTH_TO * path.length);
  if (to - from < 3) return null;
  const widths: number[] = [];
  for (let i = from; i < to; i++) widths.push(widthAt(i));
  const width = widths.sort((a, b) => a - b)[widths.length >> 1];
  if (width < minWidth) return null;
  // Up from the foot past a shoe (wider than the column), then up to the row where the body widens it.
  let i = 0;
  while (i < to && widthAt(i) > width) i++;
  while (i + 1 < path.length && widthAt(i + 1) <= HIP_WIDEN * width) i++;
  const top = i;
  const [fx, fy] = at(0);
  let bottom = fy;
  while (m[(bottom + 1) * w + fx]) bottom++;
  const hipRow = at(top)[1],
    ankleRow = bottom - width / 4;
  if (ankleRow <= hipRow) return null;
  const kneeRow = (hipRow + ankleRow) / 2;
  // Each joint on the row of the path's point nearest it, a quarter of the column's span either side of
  // its middle; the span bridges a gap between the legs narrower than half the column (the fork at the
  // feet), unless that takes in more than the column (an arm hanging close beside it).
  const nearest = (row: number): number => {
    let best = 0;
    for (let k = 1; k <= top; k++) if (Math.abs(at(k)[1] - row) < Math.abs(at(best)[1] - row)) best = k;
    return best;
  };
  const split = (row: number): [GridPt, GridPt] => {
    const [x] = at(nearest(row));
    const y = Math.round(row);
    const span = spanAround(m, w, x, y, width / 2);
    const [a, b] = span[1] - span[0] + 1 <= HIP_WIDEN * width ? span : runAround(m, w, x, y);
    const mid = (a + b) / 2,
      q = (b - a + 1) / 4;
    return [
      [mid + q, y],
      [mid - q, y],
    ];
  };
  const [hipL, hipR] = split(hipRow),
    [kneeL, kneeR] = split(kneeRow),
    [ankleL, ankleR] = split(ankleRow);
  return {
    hipRow,
    bottom,
    legs: [
      [hipL, kneeL, ankleL],
      [hipR, kneeR, ankleR],
    ],
  };
}

/**
 * Whether a second foot (its path `otherPath`, foot first, and its column `other`) is the other leg
 * beside the lowest foot's (`path`, `column`): its column's top and bottom lie on the lowest one's hip
 * line and bottom, and the two paths join no lower than the hip line, each within CROTCH_SPAN of the
 * lowest leg's length. A hanging arm's column ends above the legs' bottom; the column's other toe joins
 * the lowest foot's path where the toes part, below the hip line.
 */
export function isOtherLeg(w: number, column: LegColumn, path: number[], other: LegColumn, otherPath: number[]): boolean {
  const span = CROTCH_SPAN * (column.bottom - column.hipRow);
  const on = new Set(path);
  const join = otherPath.find((q) => on.has(q));
  return (
    join !== undefined &&
    Math.floor(join / w) <= column.hipRow + span &&
    Math.abs(other.hipRow - column.hipRow) <= span &&
    Math.abs(other.bottom - column.bottom) <= span
  );
}

/**
 * First and last column of the figure on row y around column x, bridging background gaps narrower than
 * `gap` (b < a: the row is empty at x).
 */
function spanAround(m: Uint8Array, w: number, x: number, y: number, gap: number): [number, number] {
  let [a, b] = runAround(m, w, x, y);
  if (b < a) return [a, b];
  for (let more = true; more;) {
    more = false;
    for (let g = 2; g <= gap && a - g >= 0; g++) {
      if (m[y * w + a - g]) {
        [a] = runAround(m, w, a - g, y);
        more = true;
        break;
      }
    }
  }
  for (let more = true; more;) {
    more = false;
    for (let g = 2; g <= gap && b + g < w; g++) {
      if (m[y * w + b + g]) {
        [, b] = runAround(m, w, b + g, y);
        more = true;
        break;
      }
    }
  }
  return [a, b];
}
