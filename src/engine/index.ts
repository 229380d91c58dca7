/**
 * The engine facade: the only surface workers, the CLI and benchmarks use. Binaries and a scratch
 * directory are passed in; nothing here reads the environment.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeDefaultCharacterImage } from './builtins/default-character.js';
import { listTemplates, writeTemplateMotion } from './builtins/templates.js';
import { analyzeCharacterInThread, warmUpAnalysisThread } from './character/analysis-thread.js';
import { CHARACTER_FILE, type CharacterFile } from './character/character-assets.js';
import type { MediaTools } from './media/ffmpeg.js';
import { probeImage, probeVideo } from './media/probe.js';
import { checkVideoFrames, type FrameCheck } from './media/video-integrity.js';
import { extractMotion, warmUpMotionExtraction } from './motion/extract-motion.js';
import { renderVideo } from './render/render-video.js';
import { renderContactSheet } from './render/contact-sheet.js';
import { generateVideo, type GenerateResult } from './generate/generate.js';
import { renderInScene } from './generate/animate.js';
import {
  EngineError,
  type BackgroundSpec,
  type CharacterAssets,
  type ImageInfo,
  type MotionAssets,
  type MotionTrack,
  type ProgressFn,
  type RenderResult,
  type VideoInfo,
} from './types.js';

import { type VsplatInput } from './three-d/export-character.js';
import { runThreeD } from './three-d/three-d-thread.js';
import { WORLD_STRIDE } from './three-d/world-track.js';
import type { JointSet } from './three-d/skeletons.js';
export * from './types.js';
export { JOINT_SETS, jointCount, type JointSet } from './three-d/skeletons.js';
export { MOTION_3D_FILES } from './three-d/export-motion.js';
export type { Rig } from './rig/build-rig.js';
export { rigFromTexture, type CharacterFile } from './character/character-assets.js';
export type { MediaTools } from './media/ffmpeg.js';
export type { GenerateResult } from './generate/generate.js';
export { writeSoundtrack } from './generate/generate.js';

/** Input of the embedded generator (H3 mode), see src/engine/generate/generate.ts. */
export interface GenerateVideoInput {
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
  subjectFromFirstFrame: boolean;
  firstFrameFile: string | null;
  lastFrameFile: string | null;
  workDir: string;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
}

/** Character-animation look (POST /v1/videos animate mode): see src/engine/generate/animate.ts. */
export interface SceneOptions {
  seed: number;
  watermark: boolean;
}

export interface Engine {
  /** Loads the pose and segmentation models ahead of the first job (a few seconds of cold start). */
  warmUp(): Promise<void>;
  probeImage(file: string): Promise<ImageInfo>;
  probeVideo(file: string): Promise<VideoInfo>;
  checkVideoFrames(file: string, durationMs: number, timeoutMs: number): Promise<FrameCheck>;
  analyzeCharacter(input: {
    imageFile: string;
    outDir: string;
    thumbnail: boolean;
    signal?: AbortSignal;
    onProgress?: (percent: number) => void;
  }): Promise<CharacterAssets>;
  loadCharacter(dir: string): Promise<CharacterAssets>;
  extractMotion(input: {
    videoFile: string;
    outDir: string;
    targetFps?: number;
    smoothing: boolean;
    signal?: AbortSignal;
    onProgress?: (percent: number) => void;
  }): Promise<MotionAssets>;
  loadMotion(dir: string): Promise<MotionAssets>;
  /**
   * The vsplat of a processed Character (its 2D assets in characterDir): a skinned 3DGS PLY, plus a
   * thumbnail rendered from the splats when asked. Returns the file names written into outDir.
   */
  extractVsplat(input: VsplatInput): Promise<{ files: string[]; count: number }>;
  /** The 3D animation of a processed Motion on both export skeletons (glb + fbx); returns the file names written into outDir. */
  extractMotion3d(input: {
    motion: MotionAssets;
    outDir: string;
    jointSet: JointSet;
    smoothing: boolean;
    signal?: AbortSignal;
    /** 0..100 over this extraction. */
    onProgress?: (p: number) => void;
  }): Promise<string[]>;
  render(input: {
    character: CharacterAssets;
    motion: MotionAssets;
    background: BackgroundSpec;
    outDir: string;
    signal?: AbortSignal;
    onProgress?: ProgressFn;
    /** Set for character-animation videos: composite into the driving scene (24 fps, sizes of 32, audio). */
    scene?: SceneOptions;
  }): Promise<RenderResult>;
  /** The embedded video generator (H3 mode). */
  generate(input: GenerateVideoInput): Promise<GenerateResult>;
  listTemplates(): { id: string; name: string; durationS: number }[];
  writeTemplateMotion(id: string, outDir: string): Promise<MotionAssets>;
  writeDefaultCharacterImage(outFile: string): Promise<void>;
}

const TEXTURE_FILE = 'texture.png';

const exists = (p: string): Promise<boolean> =>
  access(p).then(
    () => true,
    () => false,
  );

async function readCharacterFile(dir: string): Promise<CharacterFile> {
  const parsed = JSON.parse(await readFile(join(dir, CHARACTER_FILE), 'utf8')) as CharacterFile;
  if (parsed.version !== 1 || !parsed.analysis || !parsed.rig)
    throw new EngineError('INVALID_CHARACTER', `${CHARACTER_FILE} in ${dir} is not a version 1 character`);
  return parsed;
}

/**
 * A contact sheet (PNG) of a character on a motion: sampled frames with the posed and the performer's
 * skeletons drawn over, each captioned with the figure's piece count (a review tool, no encoding).
 */
export async function contactSheet(input: {
  character: CharacterAssets;
  motion: MotionAssets;
  background: BackgroundSpec;
  outFile: string;
  frames?: number;
  columns?: number;
  title?: string;
}): Promise<{ file: string; frames: Array<{ index: number; pieces: number; lowest: number }> }> {
  const { character, motion } = input;
  if (motion.track.frames.length === 0) throw new EngineError('INVALID_MOTION', 'The motion has no frames');
  const file = await readCharacterFile(character.dir);
  const r = await renderContactSheet({ ...input, rig: file.rig, textureFile: join(character.dir, character.textureFile) });
  return { file: r.file, frames: r.frames };
}

export function createEngine(opts: { tools: MediaTools; tmpDir?: string }): Engine {
  const { tools } = opts;
  return {
    async warmUp() {
      warmUpMotionExtraction();
      await warmUpAnalysisThread();
    },
    probeImage: (file) => probeImage(file),
    probeVideo: (file) => probeVideo(tools, file),
    checkVideoFrames: (file, durationMs, timeoutMs) => checkVideoFrames(tools, file, durationMs, { timeoutMs }),

    async analyzeCharacter({ imageFile, outDir, thumbnail, signal, onProgress }) {
      onProgress?.(0);
      // On its own thread: beside a motion's extraction it must not hold the main thread (analysis-thread.ts).
      const assets = await analyzeCharacterInThread(tools, { imageFile, outDir, thumbnail }, { signal, onProgress });
      onProgress?.(100);
      return assets;
    },

    async loadCharacter(dir) {
      const file = await readCharacterFile(dir);
      return {
        dir,
        analysis: file.analysis,
        characterFile: CHARACTER_FILE,
        textureFile: TEXTURE_FILE,
        thumbnailFile: (await exists(join(dir, 'thumbnail.png'))) ? 'thumbnail.png' : null,
      };
    },

    extractMotion: (input) => extractMotion({ tools, ...input }),
    // On a worker thread (three-d-thread.ts): seconds of arithmetic that must not hold the event loop.
    async extractVsplat(input) {
      return runThreeD<{ files: string[]; count: number }>({ kind: 'vsplat', input });
    },
    async extractMotion3d(input) {
      const options = { jointSet: input.jointSet, smoothing: input.smoothing };
      const { motion } = input;
      // Measured depth (BlazePose world landmarks) needs the driving video; templates have none.
      const video = motion.sourceVideoFile ? { tools, file: join(motion.dir, motion.sourceVideoFile), stride: WORLD_STRIDE } : null;
      const task = { kind: 'motion3d' as const, track: motion.track, options, outDir: input.outDir, video };
      return runThreeD<string[]>(task, input.signal, (share) => input.onProgress?.(Math.round(share * 100)));
    },

    async loadMotion(dir) {
      const track = JSON.parse(await readFile(join(dir, 'track.json'), 'utf8')) as MotionTrack;
      if (track.version !== 1 || !Array.isArray(track.frames))
        throw new EngineError('INVALID_MOTION', `track.json in ${dir} is not a version 1 track`);
      const opt = async (name: string): Promise<string | null> => ((await exists(join(dir, name))) ? name : null);
      return {
        dir,
        track,
        trackFile: 'track.json',
        sourceVideoFile: await opt('source.mp4'),
        plateFile: await opt('plate.png'),
        audioFile: await opt('audio.m4a'),
      };
    },

    async render({ character, motion, background, outDir, signal, onProgress, scene }) {
      if (motion.track.frames.length === 0) throw new EngineError('INVALID_MOTION', 'The motion has no frames');
      const file = await readCharacterFile(character.dir);
      if (scene) {
        return renderInScene({
          ffmpeg: tools.ffmpeg,
          rig: file.rig,
          textureFile: join(character.dir, character.textureFile),
          motion,
          seed: scene.seed,
          watermark: scene.watermark,
          outDir,
          signal,
          onProgress,
        });
      }
      return renderVideo({
        ffmpeg: tools.ffmpeg,
        rig: file.rig,
        textureFile: join(character.dir, character.textureFile),
        motion,
        background,
        outDir,
        signal,
        onProgress,
      });
    },

    async generate(input) {
      const file = await readCharacterFile(input.subject.dir);
      return generateVideo({ ...input, ffmpeg: tools.ffmpeg, rig: file.rig });
    },

    listTemplates,
    writeTemplateMotion,
    writeDefaultCharacterImage,
  };
}
