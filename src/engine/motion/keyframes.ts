/**
 * Pose on fewer frames: the detector runs on key frames (every `span`-th), and the frames between
 * two known frames are interpolated from them when the body barely moved from one to the other, or
 * else the middle frame is detected and each half decided again. Pose estimation is most of the cost
 * of motion extraction, and a dancer is slow for much of a clip (holds, sways, the torso and legs
 * between the arm moves), so this saves a large share of the detector's calls while fast limbs keep
 * a detection on every frame.
 *
 * The test is on the two known frames' own joints: the largest movement of a joint seen in either,
 * in torso lengths. Linear interpolation of a joint that moved d between them is off by at most d/2
 * (a reversal inside the interval) and usually far less.
 *
 * Defaults (issue 14, measured on real extractions, not simulations: the key frames' own tracking
 * crops then differ from an every-frame run, which is most of the difference): keys every 2nd frame,
 * the frame between detected when a joint moved 0.5 torso or more. Against the every-frame track
 * (raw, body joints seen there, in its torso lengths) the detector ran on 65% (animate-x dance_1),
 * 55% (dance_3), 53% (liveportrait s13) and 69% (the render bench's 5 s clip) of the frames, with
 * 97.6% / 100% / 100% / 97.8% of joints within 0.2 torso and a mean 0.045 / 0.011 / 0.017 / 0.043
 * torso. The earlier setting (keys every 4th, 0.3 torso) ran the detector on 74% / 56% / 41% / 86%
 * with a mean 0.047 / 0.013 / 0.021 / 0.051: on the fast clips it saved less and strayed more (over
 * four frames the key frames' tracking crops miss a turn), on the slow ones a little more saving for
 * a little more difference. Every 2nd frame with no check at all: 50-51% and 0.050 / 0.013 / 0.018 /
 * 0.050; keys every 4th at 0.5 torso: 32-67% and up to 0.055.
 */
import type { Keypoint } from '../types.js';
import { isBodyDetection, SEEN_SCORE, type PoseResult } from '../vision/pose-detector.js';

/** Default largest joint movement between two known frames (torso lengths) below which the frames between are interpolated. */
export const DEFAULT_MAX_MOTION = 0.5;

function torsoLength(body: Keypoint[]): number {
  const sx = (body[5].x + body[6].x) / 2;
  const sy = (body[5].y + body[6].y) / 2;
  const hx = (body[11].x + body[12].x) / 2;
  const hy = (body[11].y + body[12].y) / 2;
  return Math.hypot(sx - hx, sy - hy);
}

/**
 * Largest movement of a joint seen (score >= SEEN_SCORE) in either detection, in torso lengths (the
 * mean of the two torsos). Infinity when either is not a body or its hips are not seen.
 */
export function keyMotion(a: PoseResult | null, b: PoseResult | null): number {
  if (!isBodyDetection(a) || !isBodyDetection(b)) return Infinity;
  for (const i of [11, 12]) if (a.body[i].score < SEEN_SCORE || b.body[i].score < SEEN_SCORE) return Infinity;
  const torso = (torsoLength(a.body) + torsoLength(b.body)) / 2;
  if (!(torso > 1)) return Infinity;
  let worst = 0;
  for (let j = 0; j < a.body.length; j++) {
    // A joint seen in either counts, wherever the other put it: one vanishing or appearing moves
    // (MoveNet's unsure guess is seldom where the joint was), so it is detected, not interpolated.
    if (a.body[j].score < SEEN_SCORE && b.body[j].score < SEEN_SCORE) continue;
    worst = Math.max(worst, Math.hypot(a.body[j].x - b.body[j].x, a.body[j].y - b.body[j].y));
  }
  return worst / torso;
}

export interface KeyframeStats {
  frames: number;
  detected: number;
  interpolated: number;
}

/** Default distance between key frames: a power of two, halved where the body moves. */
export const DEFAULT_SPAN = 2;

/**
 * Runs `detect` on the frames of a stream with key frames and interpolation, keeping at most
 * `capacity` detections in flight. Key frames are every `span`-th frame and the last one. Between
 * two known frames a and b: when the body moved less than `maxMotion` from a to b, the frames between
 * are interpolated linearly; otherwise the middle frame is detected and each half is decided the
 * same way, down to neighbours. Frames must be offered in order; results come back through
 * `onResult` in index order. Calls to `detect` happen in an order that depends only on the frames
 * and the results (never on timing), so the track is the same on every run.
 *
 * `detect` gets `hint` undefined for a key frame (the detector tracks from its previous key frames)
 * and, for a frame between keys, the body expected there (interpolated from the known frames around
 * it) or null when neither has one: such a frame is detected on its own, leaving the key frames'
 * tracking untouched.
 */
export class KeyframePoser {
  private readonly results: Array<PoseResult | null | undefined> = [];
  private readonly held = new Map<number, Buffer>();
  private readonly inflight: Array<{ index: number; job: Promise<PoseResult | null> }> = [];
  /** For a detected middle frame: the interval [a, b] it splits, decided once it is known. */
  private readonly splits = new Map<number, [number, number]>();
  private readonly span: number;
  private readonly maxMotion: number;
  private lastKey = -1;
  private next = 0;
  private offered = 0;
  readonly stats: KeyframeStats = { frames: 0, detected: 0, interpolated: 0 };

  constructor(
    private readonly detect: (frame: Buffer, hint: Keypoint[] | null | undefined) => Promise<PoseResult | null>,
    private readonly onResult: (index: number, result: PoseResult | null) => void,
    private readonly opts: { capacity: number; maxMotion?: number; span?: number },
  ) {
    this.maxMotion = opts.maxMotion ?? DEFAULT_MAX_MOTION;
    // maxMotion 0: no frame is ever interpolated, so every frame is a key (the detector's own tracking).
    this.span = this.maxMotion <= 0 ? 1 : Math.max(1, opts.span ?? DEFAULT_SPAN);
  }

  private submit(index: number, frame: Buffer, hint: Keypoint[] | null | undefined): void {
    const job = this.detect(frame, hint);
    // Marked handled now; the rejection still surfaces when this frame is settled in order.
    job.catch(() => undefined);
    this.inflight.push({ index, job });
    this.stats.detected++;
  }

  private submitKey(index: number, frame: Buffer): void {
    if (this.lastKey >= 0) this.splits.set(index, [this.lastKey, index]);
    this.lastKey = index;
    this.submit(index, frame, undefined);
  }

  async offer(index: number, frame: Buffer): Promise<void> {
    this.offered = index + 1;
    this.stats.frames++;
    if (index % this.span === 0) this.submitKey(index, frame);
    else this.held.set(index, frame);
    while (this.inflight.length >= this.opts.capacity) await this.settleOne();
  }

  /** After the last frame: the last frame is a key; everything is settled. */
  async finish(): Promise<void> {
    const last = this.offered - 1;
    const tail = this.held.get(last);
    if (tail) {
      this.held.delete(last);
      this.submitKey(last, tail);
    }
    while (this.inflight.length > 0) await this.settleOne();
    this.flush();
  }

  private async settleOne(): Promise<void> {
    const { index, job } = this.inflight.shift()!;
    this.results[index] = await job;
    // Keys settle in order (first in, first out), so the key before this one is known by now; a
    // middle frame settles after the two ends of its interval.
    const split = this.splits.get(index);
    if (split) {
      this.splits.delete(index);
      const [a, b] = split;
      if (index === b) this.decide(a, b);
      else {
        this.decide(a, index);
        this.decide(index, b);
      }
    }
    this.flush();
  }

  /** Frames strictly between a and b (both known): interpolated, or the middle one detected. */
  private decide(a: number, b: number): void {
    if (b - a <= 1) return;
    const ra = this.results[a] ?? null;
    const rb = this.results[b] ?? null;
    if (ra && rb && keyMotion(ra, rb) < this.maxMotion) {
      for (let i = a + 1; i < b; i++) {
        this.held.delete(i);
        this.results[i] = lerpPose(ra, rb, (i - a) / (b - a));
        this.stats.interpolated++;
      }
      return;
    }
    const m = (a + b) >> 1;
    const frame = this.held.get(m)!;
    this.held.delete(m);
    this.splits.set(m, [a, b]);
    const t = (m - a) / (b - a);
    this.submit(m, frame, ra && rb ? lerpPose(ra, rb, t).body : ((ra ?? rb)?.body ?? null));
  }

  /** Hands out every result that is known, in index order. */
  private flush(): void {
    while (this.results[this.next] !== undefined) {
      this.onResult(this.next, this.results[this.next]!);
      this.next++;
    }
  }
}

/** Linear interpolation of two detections at t in [0, 1]; each joint's score is the lower of the two. */
export function lerpPose(a: PoseResult, b: PoseResult, t: number): PoseResult {
  return {
    body: a.body.map((k, j) => ({
      x: k.x + (b.body[j].x - k.x) * t,
      y: k.y + (b.body[j].y - k.y) * t,
      score: Math.min(k.score, b.body[j].score),
    })),
    score: Math.min(a.score, b.score),
  };
}
