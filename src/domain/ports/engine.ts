/**
 * The engine port is the engine's own interface (`Engine` in src/engine/index.ts), re-exported here
 * so that the domain and the job handlers name one place for all their ports. `createEngine()`
 * satisfies it; test stand-ins implement the whole interface.
 */
export type {
  BackgroundSpec,
  CharacterAssets,
  Engine,
  GenerateResult,
  GenerateVideoInput,
  ImageInfo,
  MotionAssets,
  MotionTrack,
  ProgressFn,
  RenderResult,
  SceneOptions,
  VideoInfo,
} from '../../engine/index.js';
