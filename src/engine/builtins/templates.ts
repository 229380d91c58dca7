/**
 * Motion templates that ship with the service, authored here as keyframed poses of the canonical
 * puppet skeleton and turned into MotionTracks (24 fps, 512x768 canvas, no video, plate or audio).
 * Keyframes are cyclic (the last blends back into the first), so every template loops seamlessly.
 *
 * Stable ids (part of the public API: GET /v1/motions/templates):
 *   tpl_idle, tpl_wave, tpl_walk, tpl_jump, tpl_dance, tpl_jacks, tpl_run, tpl_clap, tpl_bow,
 *   tpl_spin, tpl_kick, tpl_sit
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EngineError, type MotionAssets, type MotionTrack } from '../types.js';
import { CANVAS, REST_POSE, puppetKeypoints, type PuppetPose } from './puppet-pose.js';

interface Template {
  id: string;
  name: string;
  durationS: number;
  /** Keyframe times as fractions of one loop [0, 1), and partial poses over REST_POSE. */
  keys: Array<[number, Partial<PuppetPose>]>;
  /** Loops of the keyframe cycle within durationS. */
  loops: number;
}

const TEMPLATES: Template[] = [
  {
    id: 'tpl_idle',
    name: 'Idle',
    durationS: 4,
    loops: 1,
    keys: [
      [0, { ry: 0, lean: 0, head: 0 }],
      [0.25, { ry: 3, lean: 2, head: 4, lSh: 20, rSh: 27 }],
      [0.5, { ry: 0, lean: 0, head: 0 }],
      [0.75, { ry: 3, lean: -2, head: -4, lSh: 27, rSh: 20 }],
    ],
  },
  {
    id: 'tpl_wave',
    name: 'Wave',
    durationS: 4,
    loops: 4,
    keys: [
      [0, { rSh: 115, rEl: 45, head: -5, lean: 3 }],
      [0.5, { rSh: 115, rEl: 5, head: -5, lean: 3 }],
    ],
  },
  {
    id: 'tpl_walk',
    name: 'Walk',
    durationS: 4,
    loops: 4,
    keys: [
      [0, { lHip: 22, rHip: -18, lKnee: -6, rKnee: -10, lSh: 8, rSh: 30, ry: 2 }],
      [0.25, { lHip: 4, rHip: 4, lKnee: -20, rKnee: 0, lSh: 20, rSh: 20, ry: -4 }],
      [0.5, { lHip: -18, rHip: 22, lKnee: -10, rKnee: -6, lSh: 30, rSh: 8, ry: 2 }],
      [0.75, { lHip: 4, rHip: 4, lKnee: 0, rKnee: -20, lSh: 20, rSh: 20, ry: -4 }],
    ],
  },
  {
    id: 'tpl_jump',
    name: 'Jump',
    durationS: 4,
    loops: 2,
    keys: [
      [0, {}],
      [0.2, { ry: 36, lHip: 30, rHip: 30, lKnee: -55, rKnee: -55, lSh: 10, rSh: 10, lEl: 20, rEl: 20 }],
      [0.45, { ry: -130, lHip: 4, rHip: 4, lKnee: 0, rKnee: 0, lSh: 150, rSh: 150, lEl: 10, rEl: 10 }],
      [0.7, { ry: 30, lHip: 28, rHip: 28, lKnee: -50, rKnee: -50, lSh: 40, rSh: 40 }],
      [0.85, {}],
    ],
  },
  {
    id: 'tpl_dance',
    name: 'Dance',
    durationS: 6,
    loops: 3,
    keys: [
      [0, { rx: -30, lean: -8, lSh: 140, lEl: 20, rSh: 60, rEl: 70, lHip: 12, rHip: 2, head: -8 }],
      [0.25, { rx: 0, ry: 18, lean: 0, lSh: 90, lEl: 60, rSh: 90, rEl: 60, lHip: 20, rHip: 20, lKnee: -30, rKnee: -30 }],
      [0.5, { rx: 30, lean: 8, rSh: 140, rEl: 20, lSh: 60, lEl: 70, rHip: 12, lHip: 2, head: 8 }],
      [0.75, { rx: 0, ry: 18, lean: 0, lSh: 30, lEl: 100, rSh: 30, rEl: 100, lHip: 20, rHip: 20, lKnee: -30, rKnee: -30 }],
    ],
  },
  {
    id: 'tpl_jacks',
    name: 'Jumping jacks',
    durationS: 4,
    loops: 4,
    keys: [
      [0, { ry: 0 }],
      [0.25, { ry: -30, lSh: 100, rSh: 100, lHip: 18, rHip: 18 }],
      [0.5, { ry: 0, lSh: 165, rSh: 165, lEl: 0, rEl: 0, lHip: 22, rHip: 22 }],
      [0.75, { ry: -30, lSh: 100, rSh: 100, lHip: 18, rHip: 18 }],
    ],
  },
  {
    id: 'tpl_run',
    name: 'Run',
    durationS: 4,
    loops: 6,
    keys: [
      [0, { lHip: 38, rHip: -30, lKnee: -10, rKnee: -45, lSh: 10, rSh: 55, lEl: -70, rEl: -40, ry: -6, lean: 2 }],
      [0.25, { lHip: 6, rHip: 6, lKnee: -40, rKnee: -5, lSh: 30, rSh: 30, lEl: -60, rEl: -60, ry: 6 }],
      [0.5, { lHip: -30, rHip: 38, lKnee: -45, rKnee: -10, lSh: 55, rSh: 10, lEl: -40, rEl: -70, ry: -6, lean: -2 }],
      [0.75, { lHip: 6, rHip: 6, lKnee: -5, rKnee: -40, lSh: 30, rSh: 30, lEl: -60, rEl: -60, ry: 6 }],
    ],
  },
  {
    id: 'tpl_clap',
    name: 'Clap',
    durationS: 4,
    loops: 6,
    keys: [
      [0, { lSh: 45, rSh: 45, lEl: -75, rEl: -75, head: 2 }],
      [0.5, { lSh: 32, rSh: 32, lEl: -112, rEl: -112, head: -2, ry: 3 }],
    ],
  },
  {
    id: 'tpl_bow',
    name: 'Bow',
    durationS: 4,
    loops: 1,
    keys: [
      [0, {}],
      [0.25, { bend: 55, head: 0, lSh: 12, rSh: 12, lEl: 0, rEl: 0, ry: 6 }],
      [0.55, { bend: 60, lSh: 10, rSh: 10, lEl: 0, rEl: 0, ry: 8 }],
      [0.8, {}],
    ],
  },
  {
    id: 'tpl_spin',
    name: 'Spin',
    durationS: 4,
    loops: 2,
    keys: [
      [0, { turn: 0, lSh: 80, rSh: 80, lEl: 0, rEl: 0 }],
      [0.25, { turn: 90, lSh: 85, rSh: 85, lEl: 0, rEl: 0, ry: -4 }],
      [0.5, { turn: 180, lSh: 80, rSh: 80, lEl: 0, rEl: 0 }],
      [0.75, { turn: 270, lSh: 85, rSh: 85, lEl: 0, rEl: 0, ry: -4 }],
      // Keyframes interpolate linearly in value: 360 then wraps to 0, which is the same pose.
      [0.999, { turn: 360, lSh: 80, rSh: 80, lEl: 0, rEl: 0 }],
    ],
  },
  {
    id: 'tpl_kick',
    name: 'Kick',
    durationS: 4,
    loops: 2,
    keys: [
      [0, { lSh: 30, rSh: 30 }],
      [0.3, { rHip: 20, rKnee: -60, lSh: 45, rSh: 40, lean: -3, ry: 4 }],
      [0.45, { rHip: 85, rKnee: -5, lSh: 70, rSh: 55, lean: -8, lEl: 20 }],
      [0.65, { rHip: 15, rKnee: -40, lSh: 40, rSh: 35, lean: -2 }],
    ],
  },
  {
    id: 'tpl_sit',
    name: 'Sit',
    durationS: 4,
    loops: 1,
    keys: [
      [0, { squat: 0.95, lHip: 14, rHip: 14, lKnee: -8, rKnee: -8, lSh: 18, rSh: 18, lEl: -30, rEl: -30 }],
      [0.5, { squat: 0.95, lHip: 14, rHip: 14, lKnee: -8, rKnee: -8, lSh: 18, rSh: 18, lEl: -30, rEl: -30, head: 6, lean: 1 }],
    ],
  },
];

export const TEMPLATE_FPS = 24;

export function listTemplates(): Array<{ id: string; name: string; durationS: number }> {
  return TEMPLATES.map(({ id, name, durationS }) => ({ id, name, durationS }));
}

/** The pose of template `id` at time `s` seconds (looping), for composing templates over time. */
export function templatePoseAt(id: string, s: number): PuppetPose {
  const t = TEMPLATES.find((x) => x.id === id);
  if (!t) throw new EngineError('INVALID_MOTION', `unknown motion template ${id}`, { templateId: id });
  const loopS = t.durationS / t.loops;
  const u = (((s / loopS) % 1) + 1) % 1;
  return poseAt(t, u);
}

/** Smooth (cosine-eased) cyclic interpolation of the keyframed poses at loop phase `u` ∈ [0, 1). */
function poseAt(t: Template, u: number): PuppetPose {
  const keys = t.keys.map(([k, p]) => [k, { ...REST_POSE, ...p }] as const);
  let i = keys.length - 1;
  while (i > 0 && keys[i][0] > u) i--;
  const [ka, a] = keys[i];
  const [kbRaw, b] = keys[(i + 1) % keys.length];
  const kb = kbRaw <= ka ? kbRaw + 1 : kbRaw;
  const f = (u - ka) / (kb - ka);
  const e = (1 - Math.cos(Math.PI * f)) / 2;
  const out = { ...a };
  for (const key of Object.keys(out) as Array<keyof PuppetPose>) out[key] = a[key] + (b[key] - a[key]) * e;
  return out;
}

export function templateTrack(id: string): MotionTrack {
  const t = TEMPLATES.find((x) => x.id === id);
  if (!t) throw new EngineError('INVALID_MOTION', `unknown motion template ${id}`, { templateId: id });
  const frameCount = Math.round(t.durationS * TEMPLATE_FPS);
  const frames = Array.from({ length: frameCount }, (_, i) => {
    const u = ((i / frameCount) * t.loops) % 1;
    return { timeMs: Math.round((i * 1000) / TEMPLATE_FPS), body: puppetKeypoints(poseAt(t, u)), score: 1, detected: true };
  });
  return {
    version: 1,
    fps: TEMPLATE_FPS,
    frameCount,
    durationMs: Math.round((frameCount * 1000) / TEMPLATE_FPS),
    width: CANVAS.width,
    height: CANVAS.height,
    smoothing: false,
    frames,
  };
}

/** Writes `track.json` for template `id` into `outDir`. */
export async function writeTemplateMotion(id: string, outDir: string): Promise<MotionAssets> {
  const track = templateTrack(id);
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'track.json'), JSON.stringify(track));
  return { dir: outDir, track, trackFile: 'track.json', sourceVideoFile: null, plateFile: null, audioFile: null };
}
