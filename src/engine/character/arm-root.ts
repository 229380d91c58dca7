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
