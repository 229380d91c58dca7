/**
 * The performer's sole below the ankle keypoint, measured per clip: how far the lowest point of the
 * feet (shoes included) lies below the detected ankle while a foot is down. The retargeter stands the
 * character on the performer's lowest ankle plus this drop (render/retarget.ts, groundOffsets).
 *
 * Why measured: a barefoot ankle is ANKLE_HEIGHT (3.9%) of stature above the floor, but heels and
 * platforms put the sole much lower (dance_3: about 7% in heeled sandals, s13: about 11% in platform
 * sandals), and with the barefoot value every character floated above the performer's floor there.
 *
 * How: while the pose pass runs, a small square crop around the feet of every other frame is kept
 * (bounded: decimated as the clip grows). Once the track is known, a few crops from foot-down frames
 * are matted (vision/matting.ts, RVM: it follows legs and shoes on a crop of the feet alone, where the
 * Selfie segmenter finds nothing), and under each planted ankle the lowest matted row is the sole.
 * The median over feet and frames is kept when enough measures agree and it is within SOLE_BOUNDS;
 * otherwise the track carries no sole and the barefoot allowance is used.
 */
import { bodyScale, jointsFromKeypoints } from '../rig/skeleton.js';
import type { Keypoint, MotionTrack, PoseFrame } from '../types.js';

/**
 * Height of the ankle joint above the sole, as a share of stature (Drillis and Contini's segment
 * proportions: 0.039): the drop used when the clip's sole was not measured.
 */
export const ANKLE_HEIGHT = 0.039;
/** Torso + legs (hip to shoulder, plus hip to ankle) as a share of a standing adult's stature. */
export const TORSO_LEGS = 0.77;
/** A foot is down when the performer's lowest ankle is within this share of the frame height of the ground line. */
export const FOOT_DOWN_BAND = 0.02;
/** Keypoints below this score are not seen (the retargeter's threshold). */
export const ANKLE_SCORE = 0.2;
/**
 * A measured drop outside this range (share of stature) is not a sole: below it the matte stopped at
 * the ankle, above it it ran into a reflection or a shadow. 12% is a platform heel's depth.
 */
export const SOLE_BOUNDS: readonly [number, number] = [0.02, 0.12];

/** Crops matted per clip (each ~0.1-0.3 s): two feet each, so up to twice as many measures. */
const SOLE_FRAMES = 6;
/** Crops kept during the pose pass; past it every other one is dropped and the sampling stride doubles. */
const MAX_CROPS = 40;
/** Crop side as a share of stature: the lower shins and feet, with room for a platform under them. */
const CROP_SIDE = 0.32;
/** Half-width of the column window under an ankle (share of stature): one foot, not its neighbour. */
const FOOT_HALF_WIDTH = 0.04;
/** Matte alpha (0..255) at or above which a pixel is the performer's. */
const ALPHA_IN = 64;
/** Fewest measures (feet), from at least two frames, for a confident sole. */
const MIN_MEASURES = 3;
/** Largest spread (75th - 25th percentile, share of stature) of the measures for a confident sole. */
const MAX_SPREAD = 0.03;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((s.length - 1) * p)))];
}

/**
 * The performer's torso + leg length over the clip (90th percentile, so crouching frames do not
 * shrink it; frames that were gap-filled are skipped unless there is nothing else), track px.
 */
export function clipBodyScale(frames: PoseFrame[]): number {
  const seen = frames.filter((f) => f.score > 0);
  return percentile(
    (seen.length ? seen : frames).map((f) => bodyScale(jointsFromKeypoints(f.body))),
    0.9,
  );
}

/** The lowest seen ankle's y per frame (NaN when neither ankle is seen). */
export function lowestAnkles(frames: PoseFrame[]): number[] {
  return frames.map((f) => {
    const ys = [15, 16].filter((j) => (f.body[j]?.score ?? 0) >= ANKLE_SCORE).map((j) => f.body[j].y);
    return ys.length ? Math.max(...ys) : NaN;
  });
}

/** The drop (share of stature) to use for a track: its measured sole when present and sane, else ANKLE_HEIGHT. */
export function soleShare(track: Pick<MotionTrack, 'sole'>): number {
  const s = track.sole?.share;
  return typeof s === 'number' && s >= SOLE_BOUNDS[0] && s <= SOLE_BOUNDS[1] ? s : ANKLE_HEIGHT;
}

export interface SoleMeasure {
  /** Rows from the ankle down to the lowest matted row under it. */
  drop: number;
  /** The matte reached the frame's (or the crop's) bottom: the sole is at least this low. */
  censored: boolean;
}

/**
 * The sole under one ankle in a matte (alpha 0..255, w x h): the last row of the matted run that
 * starts at the ankle, counting pixels within `half` columns of it (gaps of up to two rows bridged).
 * `floor` is the first row that is not picture (the frame's bottom inside a padded crop). Null when
 * the ankle itself is not matted (the matte missed the leg: no measure).
 */
export function soleBelow(alpha: Uint8Array, w: number, h: number, ax: number, ay: number, half: number, floor = h): SoleMeasure | null {
  const bottom = Math.min(h, Math.round(floor));
  const x0 = Math.max(0, Math.round(ax - half));
  const x1 = Math.min(w - 1, Math.round(ax + half));
  const y0 = Math.max(0, Math.round(ay));
  if (x1 < x0 || y0 >= bottom) return null;
  const count = (y: number): number => {
    let n = 0;
    for (let x = x0; x <= x1; x++) if (alpha[y * w + x] >= ALPHA_IN) n++;
    return n;
  };
  let atAnkle = 0;
  for (let y = Math.max(0, y0 - 2); y <= Math.min(bottom - 1, y0 + 2); y++) atAnkle = Math.max(atAnkle, count(y));
  if (atAnkle < 2) return null;
  let last = y0,
    gap = 0;
  for (let y = y0; y < bottom; y++) {
    if (count(y) >= 2) {
      last = y;
      gap = 0;
    } else if (++gap > 2) break;
  }
  return { drop: last - ay, censored: last >= bottom - 2 };
}

/**
 * The clip's sole from per-foot drops (share of stature, each with its frame): the median of those
 * within SOLE_BOUNDS, when at least MIN_MEASURES from two frames or more agree within MAX_SPREAD;
 * otherwise null (not confident). A censored drop (the foot reached the frame's bottom) is a lower
 * bound and counts as its value: on a clip whose feet touch the frame's edge the ground is put there.
 */
export function combineSoles(drops: Array<{ share: number; frame: number }>): { share: number; feet: number } | null {
  const ok = drops.filter((d) => d.share >= SOLE_BOUNDS[0] && d.share <= SOLE_BOUNDS[1]);
  if (ok.length < MIN_MEASURES || new Set(ok.map((d) => d.frame)).size < 2) return null;
  const shares = ok.map((d) => d.share);
  if (percentile(shares, 0.75) - percentile(shares, 0.25) > MAX_SPREAD) return null;
  const s = [...shares].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const share = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { share: Math.round(share * 10000) / 10000, feet: ok.length };
}

interface FeetCrop {
  index: number;
  /** Top-left of the crop in frame px (may lie outside the frame: padded with black). */
  x0: number;
  y0: number;
  side: number;
  rgba: Buffer;
}

/** Mattes one RGBA image: alpha 0..255 per pixel (see vision/matting.ts). */
export type Matte = (rgba: Buffer, width: number, height: number) => Promise<Uint8Array>;

/**
 * Keeps feet crops during the pose pass and measures the sole once the track is known. Frames are
 * offered before their pose (`offer`) and released when it arrives (`record`), so only the frames in
 * flight are held whole.
 */
export class SoleSampler {
  private readonly held = new Map<number, Buffer>();
  private crops: FeetCrop[] = [];
  private stride = 2;

  /** @param width,height size of the offered frames (the pose pass's working size) */
  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  offer(index: number, rgba: Buffer): void {
    if (index % this.stride === 0) this.held.set(index, rgba);
  }

  /** The pose of frame `index` (offered-frame px), or null when nobody was found. */
  record(index: number, body: Keypoint[] | null): void {
    const frame = this.held.get(index);
    for (const k of this.held.keys()) if (k <= index) this.held.delete(k);
    if (!frame || !body || index % this.stride !== 0) return;
    const ankles = [15, 16].filter((j) => body[j].score >= ANKLE_SCORE).map((j) => body[j]);
    const stature = bodyScale(jointsFromKeypoints(body)) / TORSO_LEGS;
    if (ankles.length === 0 || !(stature > 20)) return;
    const xs = ankles.map((a) => a.x);
    const side = Math.round(Math.max(CROP_SIDE * stature, Math.max(...xs) - Math.min(...xs) + 0.2 * stature));
    const x0 = Math.round((Math.max(...xs) + Math.min(...xs)) / 2 - side / 2);
    const y0 = Math.round(Math.max(...ankles.map((a) => a.y)) - side / 2);
    const rgba = Buffer.alloc(side * side * 4);
    const ax0 = Math.max(0, x0),
      ax1 = Math.min(this.width, x0 + side);
    if (ax1 <= ax0) return;
    for (let y = Math.max(0, y0); y < Math.min(this.height, y0 + side); y++) {
      frame.copy(rgba, ((y - y0) * side + (ax0 - x0)) * 4, (y * this.width + ax0) * 4, (y * this.width + ax1) * 4);
    }
    this.crops.push({ index, x0, y0, side, rgba });
    if (this.crops.length > MAX_CROPS) {
      this.stride *= 2;
      this.crops = this.crops.filter((c) => c.index % this.stride === 0);
    }
  }

  get cropCount(): number {
    return this.crops.length;
  }

  /**
   * The sole as a share of the performer's stature, from up to SOLE_FRAMES crops of foot-down frames.
   * `frames` is the final track; `toFrame` maps its coordinates to offered-frame px. Null when not
   * confident (see combineSoles).
   */
  async measure(frames: PoseFrame[], toFrame: { x: number; y: number }, matte: Matte): Promise<{ share: number; feet: number } | null> {
    const stature = (clipBodyScale(frames) * toFrame.y) / TORSO_LEGS;
    const low = lowestAnkles(frames).map((y) => y * toFrame.y);
    const seen = low.filter(Number.isFinite);
    if (!(stature > 20) || seen.length === 0) return null;
    const ground = percentile(seen, 0.9);
    const band = FOOT_DOWN_BAND * this.height;
    const down = this.crops.filter((c) => frames[c.index] && low[c.index] >= ground - band);
    const n = Math.min(SOLE_FRAMES, down.length);
    const chosen = Array.from({ length: n }, (_, q) => down[Math.floor(((q + 0.5) * down.length) / n)]);
    const mattes = await Promise.all(chosen.map((c) => matte(c.rgba, c.side, c.side).catch(() => null)));
    const drops: Array<{ share: number; frame: number }> = [];
    chosen.forEach((c, q) => {
      const alpha = mattes[q];
      if (!alpha) return;
      const body = frames[c.index].body;
      for (const j of [15, 16]) {
        if (body[j].score < ANKLE_SCORE || body[j].y * toFrame.y < ground - band) continue;
        const ax = body[j].x * toFrame.x - c.x0,
          ay = body[j].y * toFrame.y - c.y0;
        const m = soleBelow(alpha, c.side, c.side, ax, ay, FOOT_HALF_WIDTH * stature, this.height - c.y0);
        if (m) drops.push({ share: m.drop / stature, frame: c.index });
      }
    });
    this.crops = [];
    return combineSoles(drops);
  }
}
