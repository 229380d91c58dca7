import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Engine } from '../../src/domain/ports/engine.js';
import { resolveTools, runProcess } from '../../src/engine/media/ffmpeg.js';
import { probeImage, probeVideo } from '../../src/engine/media/probe.js';
import { checkVideoFrames } from '../../src/engine/media/video-integrity.js';
import type { CharacterAssets, MotionAssets, MotionTrack } from '../../src/engine/types.js';
import { mediaFile } from './harness.js';

/**
 * An engine whose analysis steps are scripted, for tests of the job machinery where the animation
 * itself is not under test (the whole Engine port; generation and warm-up are not scripted). Probing is the real
 * engine's, and `render` makes a real H.264 file of the motion's length with ffmpeg, honouring the
 * abort signal like the real one. `script` lets a test inject failures or stalls per call.
 */
export interface Script {
  analyze?: (call: number) => Promise<void> | void;
  render?: (call: number, signal: AbortSignal) => Promise<void> | void;
}

export function scriptedEngine(script: Script = {}): Engine & { calls: Record<string, number> } {
  const tools = resolveTools(process.env);
  const calls: Record<string, number> = { analyze: 0, extract: 0, render: 0 };
  const character = (dir: string): CharacterAssets => ({
    dir,
    analysis: {
      version: 1,
      width: 2,
      height: 2,
      maskMethod: 'alpha',
      body: [],
      poseMethod: 'heuristic',
      crop: { x: 0, y: 0, width: 2, height: 2 },
    },
    characterFile: 'character.json',
    textureFile: 'texture.png',
    thumbnailFile: null,
  });
  const motion = (dir: string, track: MotionTrack): MotionAssets => ({
    dir,
    track,
    trackFile: 'track.json',
    sourceVideoFile: null,
    plateFile: null,
    audioFile: null,
  });
  const writeTrack = async (dir: string, durationMs: number) => {
    await mkdir(dir, { recursive: true });
    const track: MotionTrack = {
      version: 1,
      fps: 10,
      frameCount: Math.round(durationMs / 100),
      durationMs,
      width: 64,
      height: 64,
      smoothing: true,
      frames: [],
    };
    await writeFile(join(dir, 'track.json'), JSON.stringify(track));
    return motion(dir, track);
  };
  return {
    calls,
    async warmUp() {},
    async generate() {
      throw new Error('the scripted engine does not generate videos');
    },
    probeImage: (f) => probeImage(f),
    probeVideo: (f) => probeVideo(tools, f),
    checkVideoFrames: (f, durationMs, timeoutMs) => checkVideoFrames(tools, f, durationMs, { timeoutMs }),
    async analyzeCharacter({ imageFile, outDir }) {
      await script.analyze?.(++calls.analyze);
      await mkdir(outDir, { recursive: true });
      await writeFile(join(outDir, 'character.json'), '{}');
      await copyFile(imageFile, join(outDir, 'texture.png'));
      return character(outDir);
    },
    async loadCharacter(dir) {
      return character(dir);
    },
    async extractVsplat() {
      throw new Error('the scripted engine does not extract splats');
    },
    async extractMotion3d() {
      throw new Error('the scripted engine does not extract 3D animation');
    },
    async extractMotion({ videoFile, outDir, onProgress }) {
      calls.extract++;
      const info = await probeVideo(tools, videoFile);
      onProgress?.(50);
      return writeTrack(outDir, info.durationMs);
    },
    async loadMotion(dir) {
      const { readFile } = await import('node:fs/promises');
      return motion(dir, JSON.parse(await readFile(join(dir, 'track.json'), 'utf8')) as MotionTrack);
    },
    async render({ motion: m, outDir, signal, onProgress }) {
      const call = ++calls.render;
      onProgress?.('rendering', 10);
      await script.render?.(call, signal ?? new AbortController().signal);
      const seconds = m.track.durationMs / 1000;
      const videoFile = join(outDir, 'video.mp4');
      await runProcess(
        tools.ffmpeg,
        [
          '-v',
          'error',
          '-y',
          '-f',
          'lavfi',
          '-i',
          `testsrc=size=64x64:rate=10:duration=${seconds}`,
          '-c:v',
          'libx264',
          '-pix_fmt',
          'yuv420p',
          videoFile,
        ],
        { signal },
      );
      onProgress?.('finishing', 95);
      return {
        videoFile,
        alphaFile: null,
        durationMs: m.track.durationMs,
        frameCount: m.track.frameCount,
        fps: 10,
        width: 64,
        height: 64,
        hasAudio: false,
      };
    },
    listTemplates: () => [{ id: 'wave', name: 'Wave', durationS: 1.2 }],
    async writeTemplateMotion(_id, outDir) {
      return writeTrack(outDir, 1200);
    },
    async writeDefaultCharacterImage(outFile) {
      await copyFile(mediaFile('images/animate-x--4.png'), outFile);
    },
  };
}
