/**
 * The embedded generator: prompt (+ optional first and last frame) → a video with native audio,
 * on CPU. It plays a scene plan (plan.ts) with the render engine: the subject (the first frame's
 * figure, cut out and rigged, or the built-in character) performs the planned actions as motion
 * templates in the output frame, in front of the first frame's background with the figure removed or
 * a painted setting, under the planned camera move; music, ambience and spoken dialogue are mixed
 * into the soundtrack. Deterministic in (inputs, seed).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { templatePoseAt } from '../builtins/templates.js';
import { REST_POSE, puppetKeypoints, type PuppetPose } from '../builtins/puppet-pose.js';
import { fillUnseen } from '../motion/background-plate.js';
import { renderVideo } from '../render/render-video.js';
import type { Rig } from '../rig/build-rig.js';
import type { CharacterAssets, Keypoint, MotionTrack, ProgressFn } from '../types.js';
import { mixSoundtrack, writeWav, type SpeechClip } from './audio.js';
import { applyCamera, blendImage, drawContactShadow, drawOverlay, watermarkOverlay, type CameraPose } from './look.js';
import { ACTIONS, CAMERA_MOVES, enhancePrompt, planScene, type Action, type ScenePlan } from './plan.js';
import { mulberry32 } from './random.js';
import { paintScene } from './scene.js';
import { speak, voiceFor } from './tts.js';

export const GENERATED_FPS = 24;
/** Frames over which the video leaves the first frame image and reaches the last one. */
const KEYFRAME_BLEND = 12;
/** Seconds over which one action blends into the next. */
const ACTION_BLEND_S = 0.5;

export interface GenerateInput {
  ffmpeg: string;
  prompt: string;
  tags: string[];
  durationS: number;
  width: number;
  height: number;
  seed: number;
  quality: 'low' | 'high';
  enhance: boolean;
  watermark: boolean;
  /** The subject: the first frame's figure (analysed) or the built-in character. */
  subject: CharacterAssets;
  /** Rig of the subject (from its character.json). */
  rig: Rig;
  /** True when `subject` was cut out of `firstFrameFile`. */
  subjectFromFirstFrame: boolean;
  firstFrameFile: string | null;
  lastFrameFile: string | null;
  workDir: string;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
}

export interface GenerateResult {
  videoFile: string;
  durationMs: number;
  frameCount: number;
  width: number;
  height: number;
  plan: ScenePlan;
  enhancedPrompt: string | null;
  spokenLines: number;
}

/** Where a cover-resized image lands in the output: scale and crop offset. */
interface Cover {
  s: number;
  ox: number;
  oy: number;
}

function coverOf(w: number, h: number, W: number, H: number): Cover {
  const s = Math.max(W / w, H / h);
  return { s, ox: (w * s - W) / 2, oy: (h * s - H) / 2 };
}

/** An image file as RGB at W x H, cover-resized (what frame 0 / the last frame must look like). */
export async function coverImage(file: string, W: number, H: number): Promise<Uint8Array> {
  const buf = await sharp(file).rotate().removeAlpha().resize(W, H, { fit: 'cover', position: 'centre' }).raw().toBuffer();
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

/**
 * `enhance_mode=prompt`: what the prompt leaves open is filled in from the seed (a setting, a
 * gentle camera move, a gesture), and the plan is written out as a detailed description.
 */
function enrich(plan: ScenePlan): ScenePlan {
  const rnd = mulberry32(plan.seed ^ 0xe4a1);
  const setting =
    plan.setting === 'studio' ? (['sky', 'room', 'beach', 'forest', 'city', 'stage'] as const)[Math.floor(rnd() * 6)] : plan.setting;
  const camera =
    plan.camera === 'static' ? (['zoom-in', 'pan-right', 'dolly-in', 'pan-left'] as const)[Math.floor(rnd() * 4)] : plan.camera;
  let actions = plan.actions;
  if (actions.length === 1 && actions[0].action === 'idle' && plan.durationS >= 3) {
    const extra: Action = (['wave', 'dance', 'clap', 'bow'] as const)[Math.floor(rnd() * 4)];
    actions = [
      { action: 'idle', startS: 0, endS: plan.durationS / 2 },
      { action: extra, startS: plan.durationS / 2, endS: plan.durationS },
    ];
  }
  return { ...plan, setting, camera, actions };
}

const lerpPose = (a: PuppetPose, b: PuppetPose, t: number): PuppetPose => {
  const out = { ...a };
  for (const k of Object.keys(out) as Array<keyof PuppetPose>) out[k] = a[k] + (b[k] - a[k]) * t;
  return out;
};
const smooth = (t: number): number => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));

function poseAtTime(plan: ScenePlan, s: number): PuppetPose {
  const acts = plan.actions;
  let i = acts.findIndex((a) => s < a.endS);
  if (i < 0) i = acts.length - 1;
  const cur = templatePoseAt(`tpl_${acts[i].action}`, s - acts[i].startS);
  const at = (a: Action, t: number): PuppetPose => (a === 'idle' ? templatePoseAt('tpl_idle', t) : templatePoseAt(`tpl_${a}`, t));
  // Blend over ACTION_BLEND_S centred on each boundary.
  if (i > 0 && s - acts[i].startS < ACTION_BLEND_S / 2) {
    const prev = at(acts[i - 1].action, s - acts[i - 1].startS);
    return lerpPose(prev, cur, smooth(0.5 + (s - acts[i].startS) / ACTION_BLEND_S));
  }
  if (i < acts.length - 1 && acts[i].endS - s < ACTION_BLEND_S / 2) {
    const next = at(acts[i + 1].action, s - acts[i + 1].startS);
    return lerpPose(cur, next, smooth(0.5 - (acts[i].endS - s) / ACTION_BLEND_S));
  }
  return { ...REST_POSE, ...cur };
}

interface Placement {
  /** Output px of the feet (ankle line) and the hip centre's x; figure height in px. */
  footX: number;
  footY: number;
  height: number;
}

const REST_KP = puppetKeypoints(REST_POSE);
const REST_ANKLE_Y = Math.max(REST_KP[15].y, REST_KP[16].y);
const REST_ROOT_X = (REST_KP[11].x + REST_KP[12].x) / 2;
/** Puppet height from the top of the head (above the eyes by about a head radius) to the ankles. */
const REST_HEIGHT = REST_ANKLE_Y - (Math.min(REST_KP[1].y, REST_KP[2].y) - 52);

/** Travel speed in figure heights per second. */
const TRAVEL: Partial<Record<Action, number>> = { walk: 0.32, run: 0.75 };

/** The built-in puppet's height in a painted scene: most of the frame's height, but narrow frames (9:16) keep its arms inside. */
function puppetHeight(W: number, H: number): number {
  return Math.min(0.62 * H, 0.8 * W);
}

/** Where zoom and dolly moves close in: the middle of the subject where it starts. */
function focusOf(place: Placement, W: number, H: number): { x: number; y: number } {
  return { x: place.footX / W, y: (place.footY - place.height / 2) / H };
}

function buildTrack(plan: ScenePlan, W: number, H: number, place: Placement, own: Keypoint[] | null): MotionTrack {
  const n = Math.max(1, Math.round(plan.durationS * GENERATED_FPS));
  const s = place.height / REST_HEIGHT;
  let x = place.footX;
  let dir = plan.direction;
  const frames = [];
  // A travelling subject turns back before any part of it leaves what the camera shows at that
  // moment (the camera's window, less the figure's reach with its arms out).
  const reach = 0.3 * place.height;
  const focus = focusOf(place, W, H);
  for (let i = 0; i < n; i++) {
    const t = i / GENERATED_FPS;
    const cam = cameraAt(plan, n > 1 ? i / (n - 1) : 0, focus);
    let minX = cam.cx * W - W / (2 * cam.zoom) + reach,
      maxX = cam.cx * W + W / (2 * cam.zoom) - reach;
    if (minX > maxX) minX = maxX = cam.cx * W;
    if (i === 0 && x < minX) dir = 1;
    if (i === 0 && x > maxX) dir = -1;
    const pose = poseAtTime(plan, t);
    const act = plan.actions.find((a) => t < a.endS) ?? plan.actions[plan.actions.length - 1];
    if (i > 0 && maxX > minX) {
      x += (dir * (TRAVEL[act.action] ?? 0) * place.height) / GENERATED_FPS;
      if ((x < minX && dir < 0) || (x > maxX && dir > 0)) {
        dir = (dir * -1) as 1 | -1;
        x = Math.min(Math.max(maxX, place.footX), Math.max(Math.min(minX, place.footX), x));
      }
    }
    let body: Keypoint[] = puppetKeypoints(pose).map((k) => ({
      x: x + (k.x - REST_ROOT_X) * s,
      y: place.footY + (k.y - REST_ANKLE_Y) * s,
      score: 1,
    }));
    // From the first frame's own pose into the plan, so frame 0 shows the figure as it stands.
    if (own && i < KEYFRAME_BLEND) {
      const e = smooth(i / KEYFRAME_BLEND);
      body = body.map((k, j) => ({ x: own[j].x + (k.x - own[j].x) * e, y: own[j].y + (k.y - own[j].y) * e, score: 1 }));
    }
    frames.push({ timeMs: Math.round((i * 1000) / GENERATED_FPS), body, score: 1, detected: true });
  }
  return {
    version: 1,
    fps: GENERATED_FPS,
    frameCount: n,
    durationMs: Math.round((n * 1000) / GENERATED_FPS),
    width: W,
    height: H,
    smoothing: false,
    frames,
  };
}

function cameraAt(plan: ScenePlan, u: number, focus: { x: number; y: number }): CameraPose {
  const e = smooth(u);
  const f = { x: Math.min(0.62, Math.max(0.38, focus.x)), y: Math.min(0.6, Math.max(0.4, focus.y)) };
  switch (plan.camera) {
    case 'zoom-in':
    case 'dolly-in':
      return { zoom: 1 + 0.3 * e, cx: 0.5 + (f.x - 0.5) * e, cy: 0.5 + (f.y - 0.5) * e };
    case 'zoom-out':
    case 'dolly-out':
      return { zoom: 1.3 - 0.3 * e, cx: f.x + (0.5 - f.x) * e, cy: f.y + (0.5 - f.y) * e };
    case 'pan-left':
      return { zoom: 1.15, cx: 0.565 - 0.13 * e, cy: 0.5 };
    case 'pan-right':
      return { zoom: 1.15, cx: 0.435 + 0.13 * e, cy: 0.5 };
    default:
      return { zoom: 1, cx: 0.5, cy: 0.5 };
  }
}

/** The first frame's background with the subject removed (filled from around it), cover-resized. */
async function firstFrameBackground(file: string, subject: CharacterAssets, W: number, H: number): Promise<Uint8Array> {
  const { data, info } = await sharp(file).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const w = info.width,
    h = info.height;
  const rgb = new Uint8Array(data.buffer, data.byteOffset, data.length);
  const known = new Uint8Array(w * h).fill(1);
  const crop = subject.analysis.crop;
  const tex = await sharp(join(subject.dir, subject.textureFile))
    .ensureAlpha()
    .extractChannel(3)
    .resize(crop.width, crop.height, { fit: 'fill' })
    .raw()
    .toBuffer();
  // The figure, grown by a few pixels so its fringe goes with it.
  const grow = Math.max(2, Math.round(Math.max(w, h) / 200));
  for (let y = 0; y < crop.height; y++) {
    for (let x = 0; x < crop.width; x++) {
      if (tex[y * crop.width + x] < 24) continue;
      for (let dy = -grow; dy <= grow; dy += grow) {
        for (let dx = -grow; dx <= grow; dx += grow) {
          const X = crop.x + x + dx,
            Y = crop.y + y + dy;
          if (X >= 0 && Y >= 0 && X < w && Y < h) known[Y * w + X] = 0;
        }
      }
    }
  }
  fillUnseen(rgb, known, w, h);
  const out = await sharp(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.length), { raw: { width: w, height: h, channels: 3 } })
    .resize(W, H, { fit: 'cover', position: 'centre' })
    .raw()
    .toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

export async function generateVideo(input: GenerateInput): Promise<GenerateResult> {
  const { width: W, height: H, signal } = input;
  const base = planScene({ prompt: input.prompt, tags: input.tags, durationS: input.durationS, seed: input.seed });
  const plan = input.enhance ? enrich(base) : base;
  const enhancedPrompt = input.enhance ? enhancePrompt(input.prompt, plan, input.subjectFromFirstFrame ? 'figure' : 'puppet') : null;
  await mkdir(input.workDir, { recursive: true });
  input.onProgress?.('analyzing', 2);

  // Setting and placement.
  let background: Uint8Array;
  let place: Placement;
  let own: Keypoint[] | null = null;
  if (input.firstFrameFile) {
    const a = input.subject.analysis;
    const cov = coverOf(a.width, a.height, W, H);
    if (input.subjectFromFirstFrame) {
      background = await firstFrameBackground(input.firstFrameFile, input.subject, W, H);
      own = a.body.map((k) => ({ x: k.x * cov.s - cov.ox, y: k.y * cov.s - cov.oy, score: 1 }));
      const ankle = Math.max(own[15].y, own[16].y);
      const top = Math.min(...own.slice(0, 5).map((k) => k.y)) - 0.12 * (ankle - Math.min(...own.map((k) => k.y)));
      place = { footX: (own[11].x + own[12].x) / 2, footY: ankle, height: Math.max(8, ankle - top) };
    } else {
      // No figure could be cut out: the first frame is the setting and the puppet enters it.
      background = await coverImage(input.firstFrameFile, W, H);
      place = { footX: base.subjectX * W, footY: 0.9 * H, height: puppetHeight(W, H) };
    }
  } else {
    const scene = paintScene(plan, W, H);
    background = scene.pixels;
    place = { footX: plan.subjectX * W, footY: scene.floorY, height: puppetHeight(W, H) };
  }
  const bgRgba = background.length === W * H * 4 ? background : rgbToRgba(background, W, H);
  const track = buildTrack(plan, W, H, place, own);
  const n = track.frameCount;
  const first = input.firstFrameFile ? await coverImage(input.firstFrameFile, W, H) : null;
  const last = input.lastFrameFile ? await coverImage(input.lastFrameFile, W, H) : null;
  const mark = input.watermark ? await watermarkOverlay(W, H) : null;
  input.onProgress?.('analyzing', 4);

  const wav = join(input.workDir, 'soundtrack.wav');
  const spoken = await soundtrackOf(plan, n / GENERATED_FPS, wav, input.workDir, signal);
  input.onProgress?.('analyzing', 8);

  const focus = focusOf(place, W, H);
  const scratch = new Uint8Array(W * H * 4);
  const dolly = plan.camera === 'dolly-in' || plan.camera === 'dolly-out';
  const outDir = join(input.workDir, 'out');
  const result = await renderVideo({
    ffmpeg: input.ffmpeg,
    rig: input.rig,
    textureFile: join(input.subject.dir, input.subject.textureFile),
    motion: { dir: input.workDir, track, trackFile: 'track.json', sourceVideoFile: null, plateFile: null, audioFile: null },
    background: { mode: 'original' },
    output: { width: W, height: H },
    audio: { file: wav, codec: 'aac' },
    encode: input.quality === 'high' ? { preset: 'medium', crf: 17 } : { preset: 'veryfast', crf: 21 },
    outDir,
    signal,
    onProgress: (stage, p) => input.onProgress?.(stage, 8 + p * 0.92),
    hooks: {
      background: (i, out) => {
        if (!dolly) {
          out.set(bgRgba);
          return;
        }
        // Dolly: the background moves less than the subject (parallax) by counter-zooming it.
        const cam = cameraAt(plan, n > 1 ? i / (n - 1) : 0, focus);
        // The frame is zoomed by cam.zoom afterwards; the background ends up zoomed by half as much.
        applyCamera(bgRgba, out, W, H, { zoom: (1 + (cam.zoom - 1) * 0.5) / cam.zoom, cx: 0.5, cy: 0.5 });
        for (let o = 3; o < out.length; o += 4) out[o] = 0;
      },
      underlay: (_i, frame, pos, floorY) =>
        drawContactShadow(frame, W, H, pos, Math.max(floorY, place.footY), input.subjectFromFirstFrame ? 0.3 : 0.45),
      post: (i, frame) => {
        const cam = cameraAt(plan, n > 1 ? i / (n - 1) : 0, focus);
        if (cam.zoom !== 1 || cam.cx !== 0.5 || cam.cy !== 0.5) {
          applyCamera(frame, scratch, W, H, cam);
          frame.set(scratch);
        }
        if (first) blendImage(frame, first, 1 - smooth(i / KEYFRAME_BLEND));
        if (last) blendImage(frame, last, 1 - smooth((n - 1 - i) / KEYFRAME_BLEND));
        if (mark) drawOverlay(frame, W, mark);
      },
    },
  });
  return {
    videoFile: result.videoFile,
    durationMs: result.durationMs,
    frameCount: result.frameCount,
    width: W,
    height: H,
    plan,
    enhancedPrompt,
    spokenLines: spoken,
  };
}

/**
 * The clip's native audio as a stereo WAV: dialogue first (its length is known only once spoken),
 * placed from 0.4 s with short pauses, then the mix. Returns how many lines were spoken.
 */
async function soundtrackOf(plan: ScenePlan, durationS: number, file: string, workDir: string, signal?: AbortSignal): Promise<number> {
  const speech: SpeechClip[] = [];
  let at = 0.4;
  for (const line of plan.dialogue) {
    if (at >= durationS - 0.3) break;
    const samples = await speak(line, voiceFor(plan.seed), workDir, signal);
    speech.push({ atS: at, samples });
    at += samples.length / 44100 + 0.3;
  }
  await writeWav(file, mixSoundtrack(plan, speech, durationS), 2);
  return speech.length;
}

/** The embedded generator's soundtrack for a prompt, for generators that make pictures only (GPU servers). */
export async function writeSoundtrack(
  input: { prompt: string; tags: string[]; seed: number; durationS: number; workDir: string; signal?: AbortSignal },
  file: string,
): Promise<void> {
  await mkdir(input.workDir, { recursive: true });
  const plan = planScene({ prompt: input.prompt, tags: input.tags, durationS: input.durationS, seed: input.seed });
  await soundtrackOf(plan, input.durationS, file, input.workDir, input.signal);
}

function rgbToRgba(rgb: Uint8Array, W: number, H: number): Uint8Array {
  const out = new Uint8Array(W * H * 4);
  for (let i = 0, j = 0; i < W * H; i++, j += 3) {
    out[i * 4] = rgb[j];
    out[i * 4 + 1] = rgb[j + 1];
    out[i * 4 + 2] = rgb[j + 2];
  }
  return out;
}

/** What the generator understands, for the docs and the API's validation messages. */
export const GENERATOR_VOCABULARY = { actions: ACTIONS, cameraMoves: CAMERA_MOVES } as const;

export async function readRig(subject: CharacterAssets): Promise<Rig> {
  const file = JSON.parse(await readFile(join(subject.dir, subject.characterFile), 'utf8')) as { rig: Rig };
  return file.rig;
}
