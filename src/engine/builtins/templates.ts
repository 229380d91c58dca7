/**
 * Motion templates that ship with the service, authored here as keyframed poses of the canonical
 * puppet skeleton and turned into MotionTracks (24 fps, 512x768 canvas, no video, plate or audio).
 * Keyframes are cyclic (the last blends back into the first), so every template loops seamlessly.
 *
 * Stable ids (part of the public API: GET /v1/motions/templates):
 *   tpl_idle, tpl_wave, tpl_walk, tpl_jump, tpl_dance, tpl_jacks
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
    id: 'tpl_idle', name: 'Idle', durationS: 4, loops: 1,
    keys: [
      [0, { ry: 0, lean: 0, head: 0 }],
      [0.25, { ry: 3, lean: 2, head: 4, lSh: 20, rSh: 27 }],
      [0.5, { ry: 0, lean: 0, head: 0 }],
      [0.75, { ry: 3, lean: -2, head: -4, lSh: 27, rSh: 20 }],
    ],
  },
  {
    id: 'tpl_wave', name: 'Wave', durationS: 4, loops: 4,
    keys: [
      [0, { rSh: 115, rEl: 45, head: -5, lean: 3 }],
      [0.5, { rSh: 115, rEl: 5, head: -5, lean: 3 }],
    ],
  },
  {
    id: 'tpl_walk', name: 'Walk', durationS: 4, loops: 4,
    keys: [
      [0, { lHip: 22, rHip: -18, lKnee: -6, rKnee: -10, lSh: 8, rSh: 30, ry: 2 }],
      [0.25, { lHip: 4, rHip: 4, lKnee: -20, rKnee: 0, lSh: 20, rSh: 20, ry: -4 }],
      [0.5, { lHip: -18, rHip: 22, lKnee: -10, rKnee: -6, lSh: 30, rSh: 8, ry: 2 }],
      [0.75, { lHip: 4, rHip: 4, lKnee: 0, rKnee: -20, lSh: 20, rSh: 20, ry: -4 }],
    ],
  },
  {
    id: 'tpl_jump', name: 'Jump', durationS: 4, loops: 2,
    keys: [
      [0, {}],
      [0.2, { ry: 36, lHip: 30, rHip: 30, lKnee: -55, rKnee: -55, lSh: 10, rSh: 10, lEl: 20, rEl: 20 }],
      [0.45, { ry: -130, lHip: 4, rHip: 4, lKnee: 0, rKnee: 0, lSh: 150, rSh: 150, lEl: 10, rEl: 10 }],
      [0.7, { ry: 30, lHip: 28, rHip: 28, lKnee: -50, rKnee: -50, lSh: 40, rSh: 40 }],
      [0.85, {}],
    ],
  },
  {
    id: 'tpl_dance', name: 'Dance', durationS: 6, loops: 3,
    keys: [
      [0, { rx: -30, lean: -8, lSh: 140, lEl: 20, rSh: 60, rEl: 70, lHip: 12, rHip: 2, head: -8 }],
      [0.25, { rx: 0, ry: 18, lean: 0, lSh: 90, lEl: 60, rSh: 90, rEl: 60, lHip: 20, rHip: 20, lKnee: -30, rKnee: -30 }],
      [0.5, { rx: 30, lean: 8, rSh: 140, rEl: 20, lSh: 60, lEl: 70, rHip: 12, lHip: 2, head: 8 }],
      [0.75, { rx: 0, ry: 18, lean: 0, lSh: 30, lEl: 100, rSh: 30, rEl: 100, lHip: 20, rHip: 20, lKnee: -30, rKnee: -30 }],
    ],
  },
  {
    id: 'tpl_jacks', name: 'Jumping jacks', durationS: 4, loops: 4,
    keys: [
      [0, { ry: 0 }],
      [0.25, { ry: -30, lSh: 100, rSh: 100, lHip: 18, rHip: 18 }],
      [0.5, { ry: 0, lSh: 165, rSh: 165, lEl: 0, rEl: 0, lHip: 22, rHip: 22 }],
      [0.75, { ry: -30, lSh: 100, rSh: 100, lHip: 18, rHip: 18 }],
    ],
  },
];

export const TEMPLATE_FPS = 24;

export function listTemplates(): Array<{ id: string; name: string; durationS: number }> {
  return TEMPLATES.map(({ id, name, durationS }) => ({ id, name, durationS }));
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
    version: 1, fps: TEMPLATE_FPS, frameCount, durationMs: Math.round((frameCount * 1000) / TEMPLATE_FPS),
    width: CANVAS.width, height: CANVAS.height, smoothing: false, frames,
  };
}

/** Writes `track.json` for template `id` into `outDir`. */
export async function writeTemplateMotion(id: string, outDir: string): Promise<MotionAssets> {
  const track = templateTrack(id);
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'track.json'), JSON.stringify(track));
  return { dir: outDir, track, trackFile: 'track.json', sourceVideoFile: null, plateFile: null, audioFile: null };
}
