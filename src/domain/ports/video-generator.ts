/**
 * The video generator port (H3 mode of POST /v1/videos). A worker setting picks the adapter
 * (MARIONETTE_GENERATOR): the embedded CPU generator (default) or a GPU server such as ComfyUI.
 * Adapters receive local files and a scratch directory and return a local video file; storage,
 * billing and state stay with the job handler.
 */
export interface GenerationRequest {
  prompt: string;
  /** Ordered target tags, earlier first. */
  tags: string[];
  durationS: number;
  width: number;
  height: number;
  resolution: string;
  aspectRatio: string;
  seed: number;
  quality: 'low' | 'high';
  enhance: boolean;
  watermark: boolean;
  firstFrameFile: string | null;
  lastFrameFile: string | null;
  workDir: string;
  signal: AbortSignal;
  onProgress: (percent: number) => void;
}

export interface GenerationResult {
  /** The finished clip (H.264 + AAC in MP4) inside workDir. */
  videoFile: string;
  durationMs: number;
  /** With enhance: the expanded prompt the generator played. */
  enhancedPrompt: string | null;
}

export interface VideoGenerator {
  readonly name: string;
  generate(req: GenerationRequest): Promise<GenerationResult>;
}
