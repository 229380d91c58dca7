/**
 * Measured 3D for a Motion's glb: BlazePose's world landmarks on the driving video, one person crop per
 * frame taken from the stored 2D track (no detector pass, no second 2D tracking).
 *
 * The video is decoded at a working size (BlazePose looks at a 256 px crop; a person in a 384 px
 * frame is already at the model's resolution). BlazePose runs on every `stride`-th frame (and the
 * last); the frames between get the world points interpolated linearly: at 30 fps a dancer's limb
 * direction changes little in 1/15 s, and the points only decide depth directions (lift.ts).
 */
import { decodeFrames, type MediaTools } from '../media/ffmpeg.js';
import type { MotionTrack } from '../types.js';
import { BLAZEPOSE_OF_COCO, runBlazePoseWorld, type RotatedRegion, type WorldPose } from '../vision/blazepose-world.js';
import { HEAD, LIFTED_POINTS, NECK, PELVIS, type WorldDepth } from './lift.js';
import { add, lerp3, scale, type Vec3 } from './math3d.js';
import { faceRegion, interpolateFaces, measureFace, type FaceSample } from './face-controls.js';
import { interpolateHands, measureHands, type HandTrack } from './hand-controls.js';

/** Long side of the decoded frames. */
const WORK_LONG_SIDE = 384;
/** With hands (the full set): a full-body dancer's hand is ~30 px at 384, too small for fingers. */
const HANDS_LONG_SIDE = 768;
const SEEN = 0.3;
/** The model runs on every WORLD_STRIDE-th frame of a glb extraction (speed measured in docs/engine-3d.md). */
export const WORLD_STRIDE = 2;
/** The hand model runs on every HAND_EVERY-th key frame. */
const HAND_EVERY = 2;
/** Below this presence BlazePose's points are not used for that frame. */
const MIN_PRESENCE = 0.5;

export interface WorldTrackOptions {
  tools: MediaTools;
  videoFile: string;
  track: MotionTrack;
  /** Run the model on every stride-th frame (1 = every frame). */
  stride: number;
  signal?: AbortSignal;
  /** 0..1 over the pass. */
  onProgress?: (share: number) => void;
}

/** The crop MediaPipe's tracking would use: centred on the hips, upright along the torso, the whole body inside. */
export function regionFromBody(body: MotionTrack['frames'][number]['body'], sx: number, sy: number): RotatedRegion {
  const k = body.map((p) => ({ x: p.x * sx, y: p.y * sy, score: p.score }));
  const hx = (k[11].x + k[12].x) / 2,
    hy = (k[11].y + k[12].y) / 2;
  const dx = (k[5].x + k[6].x) / 2 - hx,
    dy = (k[5].y + k[6].y) / 2 - hy;
  let r = 0;
  for (const p of k) if (p.score >= SEEN) r = Math.max(r, Math.hypot(p.x - hx, p.y - hy));
  // The top of the head is above the nose: at least ~1.2 torso lengths from the hips.
  r = Math.max(r, 1.2 * Math.hypot(dx, dy), Math.hypot(k[0].x - hx, k[0].y - hy) * 1.15);
  return { cx: hx, cy: hy, size: Math.max(16, 2 * r * 1.25), angle: Math.atan2(dx, -dy) };
}

/** COCO-17 plus the lift's derived points, from one BlazePose result. */
function toLiftPoints(pose: WorldPose): Vec3[] {
  const out: Vec3[] = BLAZEPOSE_OF_COCO.map((i) => pose.world[i]);
  const mid = (a: number, b: number): Vec3 => scale(add(out[a], out[b]), 0.5);
  out[PELVIS] = mid(11, 12);
  out[NECK] = mid(5, 6);
  out[HEAD] = mid(3, 4);
  return out.slice(0, LIFTED_POINTS);
}

export interface VideoMeasures {
  /** BlazePose's world points per frame (interpolated between key frames). */
  depth: WorldDepth;
  /** Face-mesh measures per frame (interpolated), when asked for (joint sets with face controls). */
  faces: Array<FaceSample | null> | null;
  /** Finger bends per frame and hand (interpolated), when asked for (the full set). */
  hands: HandTrack | null;
  /** Frames where each model gave a usable result (the others are interpolated). */
  measured: { pose: number; face: number; hands: number };
}

/** One decode pass: BlazePose on the key frames, and the face mesh on the same frames when `face`. */
export async function measureVideo3d(opts: WorldTrackOptions & { face: boolean; hands?: boolean }): Promise<VideoMeasures> {
  const { track, stride } = opts;
  const s = Math.min(1, (opts.hands ? HANDS_LONG_SIDE : WORK_LONG_SIDE) / Math.max(track.width, track.height));
  const width = Math.max(2, Math.round(track.width * s)),
    height = Math.max(2, Math.round(track.height * s));
  const sx = width / track.width,
    sy = height / track.height;
  const n = track.frames.length;
  const measured: WorldDepth = new Array<Vec3[] | null>(n).fill(null);
  const faces = new Array<FaceSample | null>(n).fill(null);
  const hands: HandTrack = Array.from({ length: n }, () => [null, null]);
  let t = 0;
  for await (const frame of decodeFrames(opts.tools, opts.videoFile, { fps: track.fps, width, height, signal: opts.signal })) {
    if (t >= n) break;
    const body = track.frames[t].body;
    if ((t % stride === 0 || t === n - 1) && body.length >= 17) {
      const pose = await runBlazePoseWorld(frame, width, height, regionFromBody(body, sx, sy));
      if (pose.score >= MIN_PRESENCE) measured[t] = toLiftPoints(pose);
      // Hands cost two model runs: every HAND_STRIDE-th frame (a multiple of the key-frame stride).
      if (opts.hands && pose.score >= MIN_PRESENCE && (t % (stride * HAND_EVERY) === 0 || t === n - 1))
        hands[t] = await measureHands(frame, width, height, pose);
      if (opts.face) faces[t] = await measureFace(frame, width, height, faceRegion(body, sx, sy));
    }
    opts.onProgress?.((t + 1) / n);
    t++;
  }
  return {
    depth: interpolate(measured),
    faces: opts.face ? interpolateFaces(faces) : null,
    hands: opts.hands ? interpolateHands(hands) : null,
    measured: {
      pose: measured.filter((m) => m).length,
      face: faces.filter((f) => f).length,
      hands: hands.reduce((a, h) => a + (h[0] ? 1 : 0) + (h[1] ? 1 : 0), 0),
    },
  };
}

export async function measureWorldDepth(opts: WorldTrackOptions): Promise<WorldDepth> {
  return (await measureVideo3d({ ...opts, face: false })).depth;
}

/** Fills the frames without a measurement linearly between their measured neighbours (held at the ends). */
export function interpolate(measured: WorldDepth): WorldDepth {
  const n = measured.length;
  const before = new Int32Array(n).fill(-1),
    after = new Int32Array(n).fill(-1);
  for (let i = 0, last = -1; i < n; i++) before[i] = measured[i] ? (last = i) : last;
  for (let i = n - 1, next = -1; i >= 0; i--) after[i] = measured[i] ? (next = i) : next;
  return measured.map((m, i) => {
    if (m) return m;
    const a = before[i],
      b = after[i];
    if (a < 0 && b < 0) return null;
    if (a < 0) return measured[b];
    if (b < 0) return measured[a];
    const u = (i - a) / (b - a);
    return measured[a]!.map((p, k) => lerp3(p, measured[b]![k], u));
  });
}
