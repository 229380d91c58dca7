/**
 * The engine's data contract. Everything the workers, the CLI and the benchmarks exchange with the
 * animation engine is declared here; the engine itself knows nothing of HTTP, SQL or queues.
 *
 * Units: pixel coordinates are in the source media's own pixel space (x right, y down); times are
 * milliseconds; scores are 0..1.
 */

/** COCO-17 body keypoint order, as produced by MoveNet. Index positions are part of the contract. */
export const BODY_JOINTS = [
  'nose',
  'leftEye',
  'rightEye',
  'leftEar',
  'rightEar',
  'leftShoulder',
  'rightShoulder',
  'leftElbow',
  'rightElbow',
  'leftWrist',
  'rightWrist',
  'leftHip',
  'rightHip',
  'leftKnee',
  'rightKnee',
  'leftAnkle',
  'rightAnkle',
] as const;
export type BodyJoint = (typeof BODY_JOINTS)[number];

export interface Keypoint {
  x: number;
  y: number;
  /** Detection confidence 0..1; 0 means missing (filled frames carry the filled value and score 0). */
  score: number;
}

export interface PoseFrame {
  /** Presentation time of the frame in ms from the start of the clip. */
  timeMs: number;
  /** 17 keypoints in BODY_JOINTS order. */
  body: Keypoint[];
  /** Overall detection score of the person in this frame (0 when the frame was gap-filled). */
  score: number;
  /** False when no person was detected and the pose was filled from neighbours. */
  detected: boolean;
}

/** What a Motion yields: a per-frame pose track of one performer. Serialized as `track.json`. */
export interface MotionTrack {
  version: 1;
  fps: number;
  frameCount: number;
  durationMs: number;
  /** Size of the driving video the keypoints refer to. */
  width: number;
  height: number;
  smoothing: boolean;
  frames: PoseFrame[];
  /**
   * The performer's sole below the ankle keypoint while a foot is down, measured on the clip
   * (motion/sole-depth.ts): `share` of the performer's stature (torso + legs / 0.77), from `feet`
   * measures. Absent when it was not measured confidently, and in tracks written before it: the
   * barefoot allowance (ANKLE_HEIGHT) is used then.
   */
  sole?: { share: number; feet: number };
}

/** Files of a processed Motion, all inside one directory (`dir`). Paths are relative to `dir`. */
export interface MotionAssets {
  dir: string;
  track: MotionTrack;
  /** `track.json` */
  trackFile: string;
  /** The driving video normalised to `track.fps` (used by the `original` background). Null for templates. */
  sourceVideoFile: string | null;
  /** Clean background plate with the performer removed (PNG). Null for templates. */
  plateFile: string | null;
  /** The driving audio (AAC in .m4a) when the source had an audio track. */
  audioFile: string | null;
}

export type MaskMethod = 'alpha' | 'segmentation' | 'classical' | 'drawing';

/** What a Character yields. Serialized as `character.json` next to `texture.png`. */
export interface CharacterAnalysis {
  version: 1;
  /** Size of the (EXIF-oriented) source image. */
  width: number;
  height: number;
  maskMethod: MaskMethod;
  /** Body keypoints in the source image's pixel space, BODY_JOINTS order. */
  body: Keypoint[];
  /**
   * How the joints were found: a pose model (photos), the silhouette's skeleton (drawings; see
   * `jointSources` for the joints it did not give), or silhouette proportions (fallback).
   */
  poseMethod: 'model' | 'heuristic' | 'skeleton';
  /** Upright figure, or a four-legged one (front legs in the arm slots, hind legs in the leg slots). Absent = biped. */
  figure?: 'biped' | 'quadruped';
  /** Per COCO-17 joint, which method placed it (drawings only). */
  jointSources?: Array<'model' | 'heuristic' | 'skeleton'>;
  /**
   * Limbs placed by the silhouette's proportions where the picture shows no limb (character/limb-presence.ts):
   * the rig keeps them rigid with the torso, so a guessed limb does not tear a slice out of the body.
   * Absent = none.
   */
  rigidLimbs?: Array<'leftArm' | 'rightArm' | 'leftLeg' | 'rightLeg'>;
  /** Rectangle of the source image that `texture.png` holds (keypoints stay in source space). */
  crop: { x: number; y: number; width: number; height: number };
  /**
   * Face landmarks (468 points, MediaPipe face-mesh order, source pixels) when a face is seen on the
   * figure's head; null when none is (drawings, faces turned away). Absent in older assets.
   */
  face?: Landmarks | null;
  /** Hand landmarks (21 points each, MediaPipe hand order) for each hand seen at one of the body's wrists. */
  hands?: Array<Landmarks & { side: 'left' | 'right' }>;
}

export interface Landmarks {
  score: number;
  points: Array<{ x: number; y: number }>;
}

export interface CharacterAssets {
  dir: string;
  analysis: CharacterAnalysis;
  /** `character.json` (analysis + rig) */
  characterFile: string;
  /** RGBA texture of the character (premultiplied not assumed), cropped to its bounding box + margin. */
  textureFile: string;
  /** Optional thumbnail (PNG) when requested. */
  thumbnailFile: string | null;
}

export type BackgroundSpec = { mode: 'original' } | { mode: 'solid'; color: [number, number, number] } | { mode: 'transparent' };

export type EngineStage = 'analyzing' | 'rendering' | 'finishing';

/** Progress callback: stage and 0..100 within the whole operation (monotonic non-decreasing). */
export type ProgressFn = (stage: EngineStage, percent: number) => void;

export interface RenderResult {
  videoFile: string;
  /** Greyscale mask video (white = character) for `transparent`, else null. */
  alphaFile: string | null;
  durationMs: number;
  frameCount: number;
  fps: number;
  width: number;
  height: number;
  hasAudio: boolean;
  /** Optional timing of the render stage (added by the render engineer for benchmarks): setup =
   * texture/background preparation, frames = the frame loop including waiting on ffmpeg. */
  timings?: { setupMs: number; framesMs: number; finishMs: number };
}

/** Reasons the engine refuses an input. Codes are the public error codes they map to. */
export type EngineErrorCode = 'INVALID_CHARACTER' | 'INVALID_MOTION' | 'UNSUPPORTED_MEDIA';

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: EngineErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.details = details;
  }
}

/** Result of probing a media file by content (never by name). */
export interface ImageInfo {
  format: 'png' | 'jpeg' | 'webp';
  width: number;
  height: number;
  hasAlpha: boolean;
}

export interface VideoInfo {
  container: 'mp4' | 'mov' | 'webm';
  durationMs: number;
  width: number;
  height: number;
  fps: number;
  hasAudio: boolean;
  videoCodec: string;
}
