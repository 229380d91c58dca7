/**
 * Character-animation videos (`anim_`): the character performs in the driving scene. Compared with a
 * plain render: 24 frames/s, the driving size rounded down to multiples of 32 (long side capped at
 * 1920), the character's colours moved part of the way towards the scene around the performer, a
 * soft contact shadow under the feet, and always an audio track (the driving clip's, or synthesised
 * ambience when it has none). The performer's place and scale come from the track as in renders.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { renderVideo } from '../render/render-video.js';
import type { Rig } from '../rig/build-rig.js';
import type { MotionAssets, MotionTrack, PoseFrame, ProgressFn, RenderResult } from '../types.js';
import { SAMPLE_RATE, ambience, writeWav } from './audio.js';
import { colourStats, drawContactShadow, drawOverlay, harmonizeTexture, watermarkOverlay } from './look.js';

export const ANIMATION_FPS = 24;
const MAX_SIDE = 1920;

/** The driving size capped at 1920 on the long side, each side rounded down to a multiple of 32. */
export function animationSize(w: number, h: number): { width: number; height: number } {
  const k = Math.min(1, MAX_SIDE / Math.max(w, h));
  const m32 = (v: number): number => Math.max(32, Math.floor((v * k) / 32) * 32);
  return { width: m32(w), height: m32(h) };
}

/** The track at another frame rate: keypoints interpolated linearly between neighbouring frames. */
export function resampleTrack(track: MotionTrack, fps: number): MotionTrack {
  if (Math.abs(track.fps - fps) < 1e-6) return track;
  const n = Math.max(1, Math.round((track.durationMs / 1000) * fps));
  const frames: PoseFrame[] = [];
  for (let i = 0; i < n; i++) {
    const src = (i / fps) * track.fps;
    const a = Math.min(track.frames.length - 1, Math.floor(src));
    const b = Math.min(track.frames.length - 1, a + 1);
    const f = Math.min(1, src - a);
    const fa = track.frames[a],
      fb = track.frames[b];
    frames.push({
      timeMs: Math.round((i * 1000) / fps),
      body: fa.body.map((k, j) => ({
        x: k.x + (fb.body[j].x - k.x) * f,
        y: k.y + (fb.body[j].y - k.y) * f,
        score: Math.min(k.score, fb.body[j].score),
      })),
      score: fa.score + (fb.score - fa.score) * f,
      detected: fa.detected && fb.detected,
    });
  }
  return { ...track, fps, frameCount: n, durationMs: Math.round((n * 1000) / fps), frames };
}

export interface SceneRenderJob {
  ffmpeg: string;
  rig: Rig;
  textureFile: string;
  motion: MotionAssets;
  seed: number;
  watermark: boolean;
  outDir: string;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
}

export async function renderInScene(job: SceneRenderJob): Promise<RenderResult> {
  const track = resampleTrack(job.motion.track, ANIMATION_FPS);
  const { width: W, height: H } = animationSize(track.width, track.height);
  const motion: MotionAssets = { ...job.motion, track };

  // The scene's colours around the performer (the clean plate, where the performer was removed).
  let scene = null;
  if (motion.plateFile) {
    const plate = await sharp(join(motion.dir, motion.plateFile)).removeAlpha().resize(W, H, { fit: 'fill' }).raw().toBuffer();
    const k = W / track.width;
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -Infinity,
      y1 = -Infinity;
    for (const f of track.frames)
      for (const p of f.body)
        if (p.score > 0.2) {
          x0 = Math.min(x0, p.x * k);
          x1 = Math.max(x1, p.x * k);
          y0 = Math.min(y0, p.y * k);
          y1 = Math.max(y1, p.y * k);
        }
    const box = Number.isFinite(x0)
      ? { x0: x0 - 0.25 * (x1 - x0), x1: x1 + 0.25 * (x1 - x0), y0: y0 - 0.1 * (y1 - y0), y1: y1 + 0.1 * (y1 - y0) }
      : null;
    scene = colourStats(new Uint8Array(plate.buffer, plate.byteOffset, plate.length), W, H, box, 3, false);
  }

  let audio: { file: string; codec: 'copy' | 'aac' };
  if (motion.audioFile) audio = { file: join(motion.dir, motion.audioFile), codec: 'copy' };
  else {
    const file = join(job.outDir, '..', `ambience-${process.pid}-${Date.now()}.wav`);
    const n = Math.round((track.durationMs / 1000) * SAMPLE_RATE);
    const mono = ambience('room', job.seed, n);
    const pcm = Buffer.alloc(n * 4);
    for (let i = 0; i < n; i++) {
      const g = Math.min(1, i / 2205, (n - 1 - i) / 2205);
      const v = Math.round(Math.max(-1, Math.min(1, mono[i] * 1.5 * g)) * 32000);
      pcm.writeInt16LE(v, i * 4);
      pcm.writeInt16LE(v, i * 4 + 2);
    }
    await writeWav(file, pcm, 2);
    audio = { file, codec: 'aac' };
  }
  const mark = job.watermark ? await watermarkOverlay(W, H) : null;
  return renderVideo({
    ffmpeg: job.ffmpeg,
    rig: job.rig,
    textureFile: job.textureFile,
    motion,
    background: { mode: 'original' },
    outDir: job.outDir,
    signal: job.signal,
    onProgress: job.onProgress,
    output: { width: W, height: H },
    audio,
    textureFilter: scene ? (rgba, w, h) => harmonizeTexture(rgba, w, h, scene) : undefined,
    hooks: {
      underlay: (_i, frame, pos, floorY) => drawContactShadow(frame, W, H, pos, floorY, 0.35),
      post: mark ? (_i, frame) => drawOverlay(frame, W, mark) : undefined,
    },
  });
}
