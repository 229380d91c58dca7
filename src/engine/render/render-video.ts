/**
 * The render stage: retarget → deform → rasterize → composite → encode, one frame at a time.
 * Frames go through a ring of RING buffers; a buffer is reused only after ffmpeg has consumed it,
 * so memory is flat in the clip length and encoding (a separate process) overlaps rendering.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Rig } from '../rig/build-rig.js';
import { BONE_COUNT } from '../rig/skeleton.js';
import type { BackgroundSpec, MotionAssets, ProgressFn, RenderResult } from '../types.js';
import { abortError } from '../media/ffmpeg.js';
import { backgroundFrame } from './background.js';
import { deform } from './deform.js';
import { FrameEncoder } from './encode.js';
import { TEXTURE_PAD, drawTriangles, makeTexture, type DrawBounds } from './rasterizer.js';
import { AFFINE, createRetargeter, type Retargeter } from './retarget.js';
import type { Point } from '../rig/skeleton.js';

export interface RenderJob {
  ffmpeg: string;
  rig: Rig;
  /** Absolute path of the character texture. */
  textureFile: string;
  motion: MotionAssets;
  background: BackgroundSpec;
  outDir: string;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
  /** Output size; default: the driving size capped at MAX_SIDE (the track's coordinates scale to it). */
  output?: { width: number; height: number };
  /** Per-frame additions (generation and scene compositing); see FrameHooks. */
  hooks?: FrameHooks;
  /** Audio to mux instead of the motion's own: `copy` for AAC, `aac` to encode (e.g. a WAV mix). */
  audio?: { file: string; codec: 'copy' | 'aac' } | null;
  /** x264 settings (defaults: veryfast, CRF 20). */
  encode?: { crf?: number; preset?: string };
  /** Adjusts the character's texture (RGBA, resized) once before rendering, e.g. colour matching. */
  textureFilter?: (rgba: Uint8Array, width: number, height: number) => void;
}

/**
 * What a caller can add to each frame. All buffers are RGBA, `width x height`, row-major.
 * - background: paints frame i's background (alpha 0) instead of the static one;
 * - underlay: after the background, before the character; `pos` holds the posed vertices (x, y
 *   pairs in output px) and `floorY` the floor line, so a contact shadow can sit under the feet;
 * - post: the finished frame, changed in place before it is encoded (camera moves, keyframe blends).
 */
export interface FrameHooks {
  background?(i: number, out: Uint8Array): void;
  underlay?(i: number, frame: Uint8Array, pos: Float32Array, floorY: number): void;
  post?(i: number, frame: Uint8Array): void;
}

const RING = 3;
/** Output frames are capped at this many pixels on the long side (DECISIONS, Renders). */
const MAX_SIDE = 1920;

/** Driving size capped at MAX_SIDE on the long side, both sides even. */
export function outputSize(w: number, h: number): { width: number; height: number } {
  const k = Math.min(1, MAX_SIDE / Math.max(w, h));
  const even = (v: number): number => Math.max(2, Math.floor((v * k) / 2) * 2);
  return { width: even(w), height: even(h) };
}

/** What `createFrameRenderer` prepares once per render: the frame size and a per-frame painter. */
export interface FrameRenderer {
  width: number;
  height: number;
  frameCount: number;
  retarget: Retargeter;
  /** The static background (alpha 0), as drawn under the character when no background hook is set. */
  background: Uint8Array;
  /**
   * Paints frame i into `frame` (RGBA, width x height): background (or the hook's), underlay hook,
   * the character. Posed joints (RIG_JOINTS order, output px) are written into `joints` when given.
   */
  draw(i: number, frame: Uint8Array, joints?: Point[]): void;
}

/**
 * Everything a render needs before its first frame: retargeter, texture resampled to the output
 * scale, UVs, chain labels, background. Shared by the video render and the contact sheet.
 */
export async function createFrameRenderer(
  job: Pick<RenderJob, 'rig' | 'textureFile' | 'motion' | 'background' | 'output' | 'hooks' | 'textureFilter'>,
): Promise<FrameRenderer> {
  const { rig, motion, background } = job;
  const track = motion.track;
  const { width: W, height: H } = job.output ?? outputSize(track.width, track.height);
  const hooks = job.hooks ?? {};
  const retarget = createRetargeter(rig, track, W, await bottomInset(rig, job.textureFile));

  // Texture resampled to about one texel per output pixel: bilinear taps then never skip texels
  // (no minification shimmer) and the working set stays small.
  const texScale = Math.min(1, retarget.scale * 1.25);
  const tw = Math.max(1, Math.round(rig.textureWidth * texScale));
  const th = Math.max(1, Math.round(rig.textureHeight * texScale));
  const texRaw = await sharp(job.textureFile).ensureAlpha().resize(tw, th, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  job.textureFilter?.(new Uint8Array(texRaw.buffer, texRaw.byteOffset, texRaw.length), tw, th);
  const tex = makeTexture(texRaw, tw, th);
  const nv = rig.vertices.length / 2;
  const uv = new Float32Array(nv * 2);
  for (let v = 0; v < nv; v++) {
    uv[v * 2] = (rig.vertices[v * 2] * tw) / rig.textureWidth + TEXTURE_PAD;
    uv[v * 2 + 1] = (rig.vertices[v * 2 + 1] * th) / rig.textureHeight + TEXTURE_PAD;
  }
  const tris = Uint32Array.from(rig.triangles);
  const clip = rig.triangleClip ? Uint8Array.from(rig.triangleClip) : null;
  const labels = rig.labels ? labelTexture(rig.labels, tex.width, tex.height, tw, th) : null;
  const bg = await backgroundFrame(background, motion, W, H, retarget.floorY);
  const aff = new Float64Array(BONE_COUNT * AFFINE);
  const pos = new Float32Array(nv * 2);
  const bounds: DrawBounds = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  return {
    width: W,
    height: H,
    frameCount: track.frames.length,
    retarget,
    background: bg,
    draw(i, frame, joints) {
      if (hooks.background) hooks.background(i, frame);
      else frame.set(bg);
      retarget.pose(i, aff, joints);
      deform(rig, aff, pos);
      hooks.underlay?.(i, frame, pos, retarget.floorY);
      bounds.minX = W;
      bounds.minY = H;
      bounds.maxX = 0;
      bounds.maxY = 0;
      drawTriangles(frame, W, H, pos, uv, tris, tex, bounds, clip, labels);
    },
  };
}

export async function renderVideo(job: RenderJob): Promise<RenderResult> {
  const { motion, background, signal } = job;
  const track = motion.track;
  const progress = monotonic(job.onProgress);
  if (signal?.aborted) throw abortError(signal);
  progress('analyzing', 0);
  const t0 = performance.now();
  let t1 = 0,
    t2 = 0;
  const hooks = job.hooks ?? {};
  const fr = await createFrameRenderer(job);
  const { width: W, height: H } = fr;
  progress('analyzing', 5);

  const transparent = background.mode === 'transparent';
  await mkdir(job.outDir, { recursive: true });
  const videoFile = join(job.outDir, 'video.mp4');
  const alphaFile = transparent ? join(job.outDir, 'alpha.mp4') : null;
  const frameCount = track.frames.length;
  const durationS = frameCount / track.fps;
  const audio = job.audio !== undefined ? (job.audio?.file ?? null) : motion.audioFile ? join(motion.dir, motion.audioFile) : null;
  const audioCodec = job.audio?.codec ?? 'copy';
  const enc = { ffmpeg: job.ffmpeg, width: W, height: H, fps: track.fps, durationS, crf: job.encode?.crf, preset: job.encode?.preset };
  const encoders = [new FrameEncoder({ ...enc, input: 'rgba', outFile: videoFile, audioFile: audio, audioCodec })];
  if (alphaFile) encoders.push(new FrameEncoder({ ...enc, input: 'gray', outFile: alphaFile }));
  const onAbort = (): void => {
    for (const e of encoders) void e.kill();
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  try {
    t1 = performance.now();
    const frames = Array.from({ length: RING }, () => new Uint8Array(W * H * 4));
    const masks = transparent ? Array.from({ length: RING }, () => new Uint8Array(W * H)) : [];
    const pending: Array<Promise<unknown>> = Array.from({ length: RING }, () => Promise.resolve());
    for (let i = 0; i < frameCount; i++) {
      if (signal?.aborted) throw abortError(signal);
      const slot = i % RING;
      await pending[slot];
      if (signal?.aborted) throw abortError(signal);
      const frame = frames[slot];
      fr.draw(i, frame);
      hooks.post?.(i, frame);
      const writes = [encoders[0].write(frame)];
      if (transparent) {
        const m = masks[slot];
        for (let p = 0, o = 3; p < m.length; p++, o += 4) m[p] = frame[o];
        writes.push(encoders[1].write(m));
      }
      pending[slot] = Promise.all(writes);
      // Surface encoder failures early instead of at the ring's next turn.
      pending[slot].catch(() => undefined);
      progress('rendering', 5 + (90 * (i + 1)) / frameCount);
    }
    await Promise.all(pending);
    t2 = performance.now();
    progress('finishing', 95);
    await Promise.all(encoders.map((e) => e.finish()));
    if (signal?.aborted) throw abortError(signal);
  } catch (err) {
    await Promise.all(encoders.map((e) => e.kill()));
    await rm(videoFile, { force: true });
    if (alphaFile) await rm(alphaFile, { force: true });
    throw signal?.aborted ? abortError(signal) : err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  progress('finishing', 100);
  return {
    videoFile,
    alphaFile,
    durationMs: track.durationMs,
    frameCount,
    fps: track.fps,
    width: W,
    height: H,
    hasAudio: audio !== null,
    timings: { setupMs: Math.round(t1 - t0), framesMs: Math.round(t2 - t1), finishMs: Math.round(performance.now() - t2) },
  };
}

/** Rest-pose distance from the lowest opaque texel row down to the rig mesh's lowest vertex (texture px). */
async function bottomInset(rig: Rig, textureFile: string): Promise<number> {
  const { data, info } = await sharp(textureFile).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  const sy = info.height / rig.textureHeight;
  let low = -1;
  for (let y = info.height - 1; y >= 0 && low < 0; y--) {
    for (let x = 0, o = y * info.width; x < info.width; x++, o++) {
      if (data[o] >= 128) {
        low = (y + 1) / sy;
        break;
      }
    }
  }
  if (low < 0) return 0;
  let meshLow = -Infinity;
  for (let v = 1; v < rig.vertices.length; v += 2) meshLow = Math.max(meshLow, rig.vertices[v]);
  return Math.max(0, meshLow - low);
}

/**
 * Upsamples the rig's chain labels (a coarse grid) onto the padded texture grid, 0 in the border.
 * Each texel takes the label with the largest bilinear weight among its four coarse neighbours, so
 * seam borders come out as smooth interpolated curves rather than the coarse grid's staircase.
 */
function labelTexture(l: NonNullable<Rig['labels']>, pw: number, ph: number, tw: number, th: number): Uint8Array {
  const src = Buffer.from(l.data, 'base64');
  const out = new Uint8Array(pw * ph);
  const acc = new Float64Array(8);
  const at = (x: number, y: number): number =>
    src[Math.min(l.height - 1, Math.max(0, y)) * l.width + Math.min(l.width - 1, Math.max(0, x))];
  for (let y = 0; y < th; y++) {
    const gy = ((y + 0.5) * l.height) / th - 0.5;
    const y0 = Math.floor(gy),
      fy = gy - y0;
    for (let x = 0; x < tw; x++) {
      const gx = ((x + 0.5) * l.width) / tw - 0.5;
      const x0 = Math.floor(gx),
        fx = gx - x0;
      acc.fill(0);
      acc[at(x0, y0)] += (1 - fx) * (1 - fy);
      acc[at(x0 + 1, y0)] += fx * (1 - fy);
      acc[at(x0, y0 + 1)] += (1 - fx) * fy;
      acc[at(x0 + 1, y0 + 1)] += fx * fy;
      let best = 0;
      for (let c = 1; c < 8; c++) if (acc[c] > acc[best]) best = c;
      out[(y + TEXTURE_PAD) * pw + x + TEXTURE_PAD] = best;
    }
  }
  return out;
}

/** Wraps a progress callback so reported percentages never go down and are whole numbers. */
function monotonic(fn?: ProgressFn): ProgressFn {
  let last = -1;
  return (stage, pct) => {
    const p = Math.min(100, Math.floor(pct));
    if (!fn || p <= last) return;
    last = p;
    fn(stage, p);
  };
}
