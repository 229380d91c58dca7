/**
 * Where a drawn arm leaves the torso, for the silhouette-skeleton pose (skeleton-pose.ts).
 *
 * The skeleton's own rule (the medial axis thickens past 1.6x the arm's thickness) finds the shoulder
 * where a thin arm meets the body, but a thick sleeve widens into the body gradually and the rule then
 * fires deep inside the body (char1: 0.8 and 1.2 upper arms in), with the elbow at the body's edge. An
 * artist puts the shoulder where the arm leaves the torso's outline. That outline is read at the armpit:
 * walking down the rows, the side of the run holding the body's middle column jumps inwards, once or over
 * a few rows (an arm's underside slanting into the body), and then settles onto the torso's steady side.
 * The rows swept by those jumps must lie along the arm's own centre line: a round belly's bottom or a
 * leg parting at the crotch also steps inwards, but far from the arm. The shoulder is where the arm's
 * centre line crosses the settled side's column, moved half the arm's half thickness further in along the
 * line (the pivot of a limb sits a little inside the outline it leaves; a whole half thickness put char3's
 * shoulders 0.036 figure sizes from the artist's, half of it 0.019).
 */

/** Inward step of the side, in grid px per row, that is a jump (the arm's underside leaving it). */
const ARMPIT_STEP = 2;

/** Rows below the armpit the side must hold without an inward jump, in arm half thicknesses (min 3). */
const SETTLE_RADII = 0.5;

/** Furthest the arm's centre line may lie above the armpit where it is swept, in arm half thicknesses. */
const ALONG_ARM_RADII = 3;

/** How far inside the torso's side the shoulder sits along the arm's centre line, in arm half thicknesses. */
const SHOULDER_INSET_RADII = 0.5;

/**
 * Column of the torso's side where the arm whose path is `path` (hand first, grid pixels `y * w + x`,
 * half thickness `r` grid px) leaves it, or NaN when no armpit is seen (an arm hanging against the body,
 * merged with it): the arm then keeps the skeleton's own shoulder. `m` is the 0/1 grid, `cx` the body's
 * middle column (the skeleton's root's), rows `top`..`bottom` the figure's. Of several armpits along the
 * arm, the lowest: the jumps above it are the sleeve's slanted underside (on char3 on squared paper the
 * body's middle row lies inside it, and its first outward step going up is the sleeve, not the torso).
 */
export function armpitSide(m: Uint8Array, w: number, cx: number, top: number, bottom: number, path: number[], r: number): number {
  const high = path[0] % w > cx;
  // The side of the run holding the middle column on the arm's side, per row (NaN: the column is empty).
  const side = new Float64Array(bottom + 2).fill(NaN);
  for (let y = top; y <= bottom; y++) {
    if (!m[y * w + cx]) continue;
    let x = cx;
    if (high) while (x < w - 1 && m[y * w + x + 1]) x++;
    else while (x > 0 && m[y * w + x - 1]) x--;
    side[y] = x;
  }
  const inward = (y: number): number => (high ? side[y - 1] - side[y] : side[y] - side[y - 1]);
  const settle = Math.max(3, Math.round(SETTLE_RADII * r));
  let best = NaN;
  for (let y = top + 1; y + settle <= bottom; y++) {
    if (!(inward(y) > ARMPIT_STEP)) continue;
    let steady = true;
    for (let k = 1; k <= settle && steady; k++) steady = inward(y + k) <= ARMPIT_STEP;
    if (!steady) continue;
    // The swept part (row y - 1 between the old and the new side) must lie along the arm: the arm's
    // centre line crosses those columns at most ALONG_ARM_RADII half thicknesses above the armpit row
    // (or up to one below it: an arm hanging out and down parts from the body beside its centre line).
    const lo = Math.min(side[y - 1], side[y]),
      hi = Math.max(side[y - 1], side[y]);
    let gap = Infinity;
    for (const p of path) {
      const x = p % w;
      if (x < lo || x > hi) continue;
      const dy = y - Math.floor(p / w);
      if (dy >= -r && dy <= ALONG_ARM_RADII * r + 1 && Math.abs(dy) < Math.abs(gap)) gap = dy;
    }
    if (Number.isFinite(gap)) best = side[y];
  }
  return best;
}

/**
 * Index along an arm's path (hand first, grid pixels `y * w + x`, half thickness `r`) of its shoulder:
 * where the path first reaches the torso's side column `side` (NaN: none), then SHOULDER_INSET_RADII
 * half thicknesses further along it. -1 when the path never reaches that column.
 */
export function armRootIndex(path: number[], w: number, side: number, r: number): number {
  if (Number.isNaN(side)) return -1;
  const high = path[0] % w > side;
  for (let i = 0; i < path.length; i++) {
    const x = path[i] % w;
    if (high ? x <= side : x >= side) return Math.min(path.length - 1, i + Math.round(SHOULDER_INSET_RADII * r));
  }
  return -1;
}

/**
 * Furthest a hanging arm's armpit-to-hand line may lean from straight down (degrees). An arm leaning
 * further is nearer level than hanging: its line runs into the torso, not up the torso's side (a
 * dress's arm merged along its slanted side, 58 degrees, was walked into the dress).
 */
const HANGING_MAX_DEGREES = 45;

/** How far outside the arm's centre line its outer side is probed, in arm half thicknesses. */
const OUTER_PROBE_RADII = 0.5;

/** Longest walk up from the armpit, as a share of the arm seen below it (an upper arm is no longer than the rest). */
const WALK_SHARE = 0.8;

/**
 * An arm hanging down beside the torso (a dress, a round belly) touches it from the armpit up to the
 * shoulder; the armpit is then where the arm leaves the torso, well below where it joins it (generated
 * drawings with hanging arms, bench/_drawing-synth.ts: shoulders at the armpit, 0.11-0.17 figure sizes
 * from the annotation's). The arm goes on up
 * along its own line, its outer side still outlined, until that side turns in at the shoulder's top.
 * From `from` (the armpit-side shoulder, grid px `[x, y]`) this walks up along the hand-to-`from` line
 * while the point half an arm half thickness outside the line (away from the body's middle column `cx`)
 * is inside the 0/1 grid `m`, and returns where the walk stopped, moved back half a half thickness (the
 * pivot sits inside the outline), with the length walked; null when the arm does not hang (more than
 * HANGING_MAX_DEGREES from straight down) or the walk made no headway.
 */
export function hangingShoulder(
  m: Uint8Array,
  w: number,
  h: number,
  cx: number,
  from: [number, number],
  hand: [number, number],
  r: number,
): { at: [number, number]; walked: number } | null {
  const dx = from[0] - hand[0],
    dy = from[1] - hand[1];
  const len = Math.hypot(dx, dy);
  if (dy >= 0 || len < 1 || Math.abs(dx) > -dy * Math.tan((HANGING_MAX_DEGREES * Math.PI) / 180)) return null;
  const ux = dx / len,
    uy = dy / len;
  // Outward: the normal to the arm's (upward) line on the side away from the body's middle.
  const sign = hand[0] < cx ? -1 : 1;
  const nx = -uy * sign,
    ny = ux * sign;
  const probe = OUTER_PROBE_RADII * r;
  const inside = (x: number, y: number): boolean => {
    const xi = Math.round(x),
      yi = Math.round(y);
    return xi >= 0 && yi >= 0 && xi < w && yi < h && m[yi * w + xi] === 1;
  };
  let s = 0;
  const limit = WALK_SHARE * len;
  while (s + 1 <= limit && inside(from[0] + ux * (s + 1) + nx * probe, from[1] + uy * (s + 1) + ny * probe)) s++;
  const walked = Math.max(0, s - probe);
  if (walked < 1) return null;
  return { at: [from[0] + ux * walked, from[1] + uy * walked], walked };
}

/**
 * The neck: of the grid rows `from`..`to` (the head's centre down to the root), the one where the run of
 * the 0/1 grid `m` holding the body's middle column `cx` is narrowest (NaN when the column is empty
 * there throughout).
 */
export function neckRow(m: Uint8Array, w: number, cx: number, from: number, to: number): number {
  let best = NaN,
    bestWidth = Infinity;
  for (let y = from; y <= to; y++) {
    const [a, b] = runAround(m, w, cx, y);
    if (b >= a && b - a < bestWidth) [best, bestWidth] = [y, b - a];
  }
  return best;
}

/** First and last column of the run of row y holding column cx (b < a: the column is empty there). */
export function runAround(m: Uint8Array, w: number, cx: number, y: number): [number, number] {
  if (!m[y * w + cx]) return [1, 0];
  let a = cx,
    b = cx;
  while (a > 0 && m[y * w + a - 1]) a--;
  while (b < w - 1 && m[y * w + b + 1]) b++;
  return [a, b];
}

/** Lowest a hanging arm's shoulder may be found, as a share of the way from the neck down to its hand. */
const SHOULDER_DROP = 1 / 3;

/** Where a hanging arm's shoulder goes: this share of the way from the neck down to its hand. */
const SHOULDER_BELOW_NECK = 1 / 8;

/** An arm hangs when its hand lies below the neck by more than this share of its reach out from the body's middle. */
const HANG_SLOPE = 0.75;

/**
 * ... and within this many arm half thicknesses sideways of its shoulder found. The neck is the narrowest
 * row between the head's centre and the root, and with the root in a big head (generated seed 60) it lies
 * in the head: a level arm's hand then lies far enough below it to pass for hanging, and its shoulder
 * (found at the body's side, 0.01-0.02 figure sizes from the annotation's) was moved up into the head.
 * A hanging arm's hand lies beside its shoulder found (the armpit or in the dress: 0.8-4.3 half
 * thicknesses sideways on the generated seeds 1-96 where this rule moves a shoulder), a level arm's an
 * arm's length out (seed 60: 10.7 and 12.7).
 */
const HANG_SIDEWAYS_RADII = 6;

/**
 * A hanging arm merged with a torso that widens below it (a dress): no armpit is seen where the arm
 * leaves the torso's top, and the skeleton's path from the hand runs into the torso, so its shoulder was
 * found at the armpit or deep in the dress (generated dresses with hanging arms, bench/_drawing-synth.ts:
 * 0.15-0.25 figure sizes below the annotation's, the elbow with it). An artist puts a shoulder at the
 * torso's top, under the neck. An arm hangs when its hand (`hand`, grid [x, y]) lies below the neck row
 * `neck` by more than HANG_SLOPE of its reach out from the body's middle column `cx` (a raised or level
 * arm's hand reaches out further than it drops). When its shoulder found (`shoulder`) lies lower than
 * SHOULDER_DROP of the way from the neck down to the hand, the shoulder goes SHOULDER_BELOW_NECK of that
 * way down, halfway between the middle column and the torso's side on that row (inside the torso, as the
 * annotation's), and the elbow halfway down, one half thickness `r` inside the figure's outer side on the
 * arm's side (the arm's centre line). Null when the arm does not hang (its hand also lies within
 * HANG_SIDEWAYS_RADII half thicknesses sideways of the shoulder found) or its shoulder is high enough.
 */
export function shoulderUnderNeck(
  m: Uint8Array,
  w: number,
  cx: number,
  neck: number,
  shoulder: [number, number],
  hand: [number, number],
  r: number,
): { shoulder: [number, number]; elbow: [number, number] } | null {
  const drop = hand[1] - neck;
  if (Number.isNaN(neck) || drop <= HANG_SLOPE * Math.abs(hand[0] - cx) || shoulder[1] - neck <= SHOULDER_DROP * drop) return null;
  if (Math.abs(hand[0] - shoulder[0]) > HANG_SIDEWAYS_RADII * r) return null;
  const high = hand[0] > cx;
  const step = high ? -1 : 1;
  // The figure's outermost pixel on the elbow's row, on the arm's side.
  const ey = Math.round(neck + drop / 2);
  let outer = high ? w - 1 : 0;
  while (outer !== cx && !m[ey * w + outer]) outer += step;
  const y = Math.round(neck + SHOULDER_BELOW_NECK * drop);
  const [a, b] = runAround(m, w, cx, y);
  if (outer === cx || b < a) return null;
  return { shoulder: [high ? (cx + b) / 2 : (cx + a) / 2, y], elbow: [outer + step * r, ey] };
}

/** Rows over which raisedArmpit judges a step of the side (a jag of the line is no jump). */
const JAG_ROWS = 5;

/** Least drop from a raised arm's shoulder found down to its armpit's corner for the corner to win, in arm half thicknesses. */
const CORNER_DROP_RADII = 2;

/**
 * A raised arm whose path runs into a big head: the figure's root (its thickest point) lies in the head,
 * the arm's path turns up into it where the arm touches the head's outline, and the skeleton's shoulder
 * was found there, 0.14-0.16 figure sizes above the body's top corner where the arm is drawn from
 * (generated big heads with a raised arm, bench/_drawing-synth.ts). The arm's underside still slants
 * down into the torso's side: walking down the rows from the shoulder found (`from`, grid [x, y]; from the first row whose body run
 * reaches it), the
 * side of the run holding the body's middle column `cx` moves inwards by at most ARMPIT_STEP px a row
 * (the underside of an arm raised at 45 degrees moves one px a row, too little for armpitSide's jump;
 * a jag of the line passes when the side moves at most that much a row over JAG_ROWS rows around it)
 * and then holds (the torso's side, or a round body widening below it). That corner is the armpit; the
 * shoulder is one half thickness `r` inside it and half of one above it (the arm is drawn from inside
 * the body's top). Null when the hand (`hand`) is not above the shoulder found, the side is not swept
 * inwards all the way, or the corner lies less than CORNER_DROP_RADII half thicknesses below `from` (the
 * path already reached the torso: a raised arm leaving a box body's top corner).
 */
export function raisedArmpit(
  m: Uint8Array,
  w: number,
  cx: number,
  bottom: number,
  from: [number, number],
  hand: [number, number],
  r: number,
): [number, number] | null {
  if (hand[1] >= from[1]) return null;
  const high = hand[0] > cx;
  const sideAt = (y: number): number => {
    const [a, b] = runAround(m, w, cx, y);
    return b < a ? NaN : high ? b : a;
  };
  const settle = Math.max(3, Math.round(SETTLE_RADII * r));
  // Inward move of the side from row y down to row y + k (negative: outwards).
  const inward = (y: number, k: number): number => (high ? sideAt(y) - sideAt(y + k) : sideAt(y + k) - sideAt(y));
  // The walk starts where the body's run reaches the shoulder found: an armpit found on the arm's
  // underside by a jag of its outline (armpitSide, on a photographed sheet) puts that shoulder where the
  // arm touches the head, and the rows just below it still show the gap between the arm and the head.
  let start = from[1];
  while (start + settle <= bottom && !(high ? sideAt(start) >= from[0] : sideAt(start) <= from[0])) start++;
  for (let y = start; y + settle <= bottom; y++) {
    // A jag of the drawn line (a photographed sheet: 4 px in one row on an underside slanting 1 px a row)
    // is no jump: the side's move is judged over JAG_ROWS rows around the step.
    const around = Math.max(start, y - (JAG_ROWS >> 1));
    if (!(inward(y, 1) <= ARMPIT_STEP || inward(around, JAG_ROWS) <= ARMPIT_STEP * JAG_ROWS)) return null;
    if (inward(y, settle) * 4 > settle) continue;
    // The side holds from row y on (moves in by at most a quarter px a row): the corner, if it lies far
    // enough below the shoulder found.
    if (y - from[1] <= CORNER_DROP_RADII * r) return null;
    const x = sideAt(y);
    const inwards = high ? -1 : 1;
    return [x + inwards * r, y - r / 2];
  }
  return null;
}
