import type { BackgroundSpec, CharacterAssets, ImageInfo, MotionAssets, ProgressFn, RenderResult, VideoInfo } from '../../engine/types.js';
import type { FrameCheck } from '../../engine/media/video-integrity.js';
import type { GenerateResult, GenerateVideoInput, SceneOptions } from '../../engine/index.js';

/**
 * What the service needs from the animation engine. `createEngine()` in src/engine satisfies it;
 * tests may pass a narrower fake only where the engine is not the thing under test.
 */
export interface EnginePort {
  /** Optional: load models ahead of the first job so it does not pay the cold start. */
  warmUp?(): Promise<void>;
  probeImage(file: string): Promise<ImageInfo>;
  probeVideo(file: string): Promise<VideoInfo>;
  /**
   * Decodes short windows at the start, middle and end of a probed video within `timeoutMs`;
   * `failure` is the first decoder error (null: the frames decode). Optional for test stand-ins.
   */
  checkVideoFrames?(file: string, durationMs: number, timeoutMs: number): Promise<FrameCheck>;
  analyzeCharacter(input: { imageFile: string; outDir: string; thumbnail: boolean; signal?: AbortSignal; onProgress?: (percent: number) => void }): Promise<CharacterAssets>;
  loadCharacter(dir: string): Promise<CharacterAssets>;
  extractMotion(input: { videoFile: string; outDir: string; targetFps?: number; smoothing: boolean; signal?: AbortSignal; onProgress?: (percent: number) => void }): Promise<MotionAssets>;
  loadMotion(dir: string): Promise<MotionAssets>;
  render(input: {
    character: CharacterAssets; motion: MotionAssets; background: BackgroundSpec; outDir: string; signal?: AbortSignal; onProgress?: ProgressFn; scene?: SceneOptions;
  }): Promise<RenderResult>;
  /** The embedded video generator; optional so that test fakes of the render path need not have one. */
  generate?(input: GenerateVideoInput): Promise<GenerateResult>;
  listTemplates(): { id: string; name: string; durationS: number }[];
  writeTemplateMotion(id: string, outDir: string): Promise<MotionAssets>;
  writeDefaultCharacterImage(outFile: string): Promise<void>;
}
