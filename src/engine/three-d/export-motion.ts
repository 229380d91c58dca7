/**
 * The 3D half of a Motion: its pose track → lifted 3D joints → the same animation on a
 * MetaHuman-named and a Mixamo-named skeleton, each as binary glTF and binary FBX, written into one
 * directory. Pure computation plus file writes; no HTTP, no SQL.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EngineError, type MotionTrack } from '../types.js';
import { writeFbx } from './fbx-writer.js';
import { writeGlb } from './glb-writer.js';
import { applyFaceControls, smoothFaces, type FaceSample } from './face-controls.js';
import { applyFingerBends, type HandTrack } from './hand-controls.js';
import { liftTrack, smoothLifted, type WorldDepth } from './lift.js';
import { retarget, type SkeletalClip } from './motion3d.js';
import { metahumanSkeleton, mixamoSkeleton, type JointSet } from './skeletons.js';

/** File names inside the Motion's assets (the export endpoint signs these). */
export const MOTION_3D_FILES = ['metahuman.glb', 'mixamo.glb', 'metahuman.fbx', 'mixamo.fbx'] as const;

export interface Motion3dOptions {
  jointSet: JointSet;
  smoothing: boolean;
}

export interface Motion3dClips {
  metahuman: SkeletalClip;
  mixamo: SkeletalClip;
}

/**
 * Lifts and retargets a track onto both skeletons. `world`: measured 3D points per frame
 * (world-track.ts, BlazePose) that decide each bone's depth direction; without, a heuristic does.
 * `faces`: face-mesh measures per frame that drive the MetaHuman face controls (face-controls.ts);
 * `hands`: finger bends per frame (hand-controls.ts) for the full set's fingers.
 */
export function motionClips(
  track: MotionTrack,
  opts: Motion3dOptions,
  world?: WorldDepth,
  faces?: Array<FaceSample | null> | null,
  hands?: HandTrack | null,
): Motion3dClips {
  if (track.frames.length === 0 || track.frames.some((f) => f.body.length < 17)) {
    throw new EngineError('INVALID_MOTION', 'The pose track has frames without a full body; the 3D animation needs every frame filled');
  }
  const lifted = liftTrack(track, world);
  // Gaussian over ~1/15 s: removes detector jitter in depth while keeping the beat of a dance.
  const sigma = opts.smoothing ? Math.max(0.5, track.fps / 15) : 0;
  const smooth = { ...lifted, frames: smoothLifted(lifted.frames, sigma) };
  const metahuman = retarget(smooth, metahumanSkeleton(opts.jointSet));
  // Face controls (expression and full): Mixamo's skeleton has no face joints.
  if (faces && opts.jointSet !== 'body') applyFaceControls(metahuman, opts.smoothing ? smoothFaces(faces, sigma) : faces);
  const mixamo = retarget(smooth, mixamoSkeleton());
  // Fingers (full): both skeletons have them.
  if (hands && opts.jointSet === 'full') for (const c of [metahuman, mixamo]) applyFingerBends(c, hands);
  return { metahuman, mixamo };
}

/** Writes the four export files into `outDir`; returns their names. */
export async function writeMotion3d(clips: Motion3dClips, outDir: string, name = 'Take 001'): Promise<string[]> {
  const [mhGlb, mxGlb] = await Promise.all([writeGlb(clips.metahuman, name), writeGlb(clips.mixamo, name)]);
  await Promise.all([
    writeFile(path.join(outDir, 'metahuman.glb'), mhGlb),
    writeFile(path.join(outDir, 'mixamo.glb'), mxGlb),
    writeFile(path.join(outDir, 'metahuman.fbx'), writeFbx(clips.metahuman, name)),
    writeFile(path.join(outDir, 'mixamo.fbx'), writeFbx(clips.mixamo, name)),
  ]);
  return [...MOTION_3D_FILES];
}
