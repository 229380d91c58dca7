import { mkdir } from 'node:fs/promises';
import { backgroundOfRow } from '../../domain/renders/background.js';
import { storageKeys } from '../../domain/storage-keys.js';
import { join } from 'node:path';
import type { VideosTable } from '../../infra/db/schema.js';
import type { CharacterAssets, EngineStage, MotionAssets } from '../../engine/types.js';
import type { StoredCharacterSource, StoredMotionSource } from '../../domain/renders/render-input.js';
import { checkImageFile, checkVideoFile } from '../../domain/media/media-check.js';
import { isTerminalRender, reserveMeasuredDuration, transitionRender } from '../../domain/renders/renders.state.js';
import {
  CHARACTER_ASSET_FILES,
  MOTION_ASSET_FILES,
  downloadAssets,
  fetchInput,
  missingAsset,
  resolveIn,
  uploadAssets,
  withWorkDir,
} from '../asset-transfer.js';
import { ProgressReporter } from '../progress-reporter.js';
import type { JobContext, JobHandler } from '../../domain/ports/job-queue.js';
import { characterById, motionById, renderById } from './job-resources.repository.js';
import { discardOutputsUnlessReady } from '../../domain/renders/render-cancel.service.js';
import type { Ports } from '../../domain/ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'metrics' | 'pubsub' | 'storage' | 'tmpDir'>;

/**
 * `render.run`: resolve the character and the motion (stored assets, or one-time inputs analysed
 * here), render, upload the outputs, then `ready` (which settles the reservation against the
 * measured duration). Every state change goes through transitionRender, which ignores a render
 * that is already terminal, so a cancelled render stays cancelled whatever this job does next.
 */
export function renderRunHandler(deps: Deps): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await renderById(deps.db, job.resourceId);
      if (!row || isTerminalRender(row.status)) return;
      // Null from a queued render means it was cancelled meanwhile; a processing one is a retry.
      if (!(await transitionRender(deps, row.id, { to: 'processing' })) && row.status === 'queued') return;
      // A job taken over from a worker that died (its attempt was counted): say so on the stream.
      if (row.status === 'processing' && job.attempt > 1) await transitionRender(deps, row.id, { to: 'resumed' });
      await withWorkDir(deps.tmpDir, job, (dir) => renderIn(deps, row, dir, job.signal));
    },
    async fail(job, error) {
      await transitionRender(deps, job.resourceId, {
        to: 'failed',
        error: {
          code: error.code,
          message: error.message,
          retryable: error.retryable,
          details: error.details,
          action: error.action,
          retryAfterMs: error.retryAfterMs,
        },
      });
      // Outputs an earlier attempt uploaded before failing in its last step.
      await discardOutputsUnlessReady(deps, job.resourceId);
    },
  };
}

/** Share of the bar for preparation (analysing one-time inputs); the render itself gets the rest. */
const PREP_SHARE = 40;

async function renderIn(deps: Deps, row: VideosTable, dir: string, signal: AbortSignal): Promise<void> {
  const charSrc = JSON.parse(row.character_source) as StoredCharacterSource;
  const motSrc = JSON.parse(row.motion_source) as StoredMotionSource;
  const progress = new ProgressReporter<EngineStage>((stage, p) => transitionRender(deps, row.id, { to: 'progress', stage, progress: p }));
  const prepSteps = (needsAnalysis(charSrc) ? 1 : 0) + (needsExtraction(motSrc) ? 1 : 0);
  const prepShare = prepSteps > 0 ? PREP_SHARE : 0;
  // The two preparations run side by side, each with its share of the bar.
  const prepDone: number[] = [];
  const prepProgress = () => {
    const i = prepDone.push(0) - 1;
    return (p: number) => {
      prepDone[i] = p;
      progress.report('analyzing', (prepDone.reduce((a, b) => a + b, 0) * prepShare) / Math.max(1, prepSteps) / 100);
    };
  };

  // First the inputs are fetched and checked (cheap: download, probe); when both are bad, the motion's
  // error is the one reported, whatever finished first. Then the character's analysis runs while the
  // motion is extracted: the pose workers leave the main thread mostly idle, and a one-time character
  // and a one-time motion used to wait for each other. One failing stops the other (and waits for it)
  // before the error goes on.
  const prepStop = new AbortController();
  const prepSignal = AbortSignal.any([signal, prepStop.signal]);
  const [motionInput, characterInput] = await Promise.allSettled([
    motionFromSource(deps, row, motSrc, join(dir, 'motion'), prepSignal, prepProgress),
    characterFromSource(deps, charSrc, join(dir, 'character'), prepSignal, prepProgress),
  ]);
  if (motionInput.status === 'rejected') throw motionInput.reason;
  if (characterInput.status === 'rejected') throw characterInput.reason;
  const motionJob = motionInput.value();
  const characterJob = characterInput.value();
  let motion: MotionAssets;
  let character: CharacterAssets;
  try {
    [motion, character] = await Promise.all([motionJob, characterJob]);
  } catch (e) {
    prepStop.abort();
    await Promise.allSettled([motionJob, characterJob]);
    throw e;
  }

  const outDir = join(dir, 'out');
  await mkdir(outDir, { recursive: true });
  const animation = row.kind === 'animation';
  const params = animation && row.params_json ? (JSON.parse(row.params_json) as { watermark?: boolean }) : {};
  const renderStarted = performance.now();
  const result = await deps.engine.render({
    character,
    motion,
    background: backgroundOfRow(row),
    ...(animation ? { scene: { seed: Number(row.seed ?? 0), watermark: params.watermark === true } } : {}),
    outDir,
    signal,
    onProgress: (stage, p) => progress.report(stage, prepShare + (p * (100 - prepShare)) / 100),
  });
  const renderSeconds = (performance.now() - renderStarted) / 1000;
  if (result.frameCount > 0 && renderSeconds > 0) deps.metrics.observe('marionette_render_fps', {}, result.frameCount / renderSeconds);
  progress.report('finishing', 99);
  await progress.flush();

  const keys = storageKeys.renderOutputs(row.id);
  const alphaKey = result.alphaFile ? keys.alphaKey : null;
  try {
    // Cancelled (or superseded) while the engine finished: nothing to upload.
    signal.throwIfAborted();
    await deps.storage.putFile(keys.videoKey, resolveIn(outDir, result.videoFile));
    if (alphaKey && result.alphaFile) await deps.storage.putFile(alphaKey, resolveIn(outDir, result.alphaFile));
    // Refused when a cancellation won the race during the upload: then the files must go.
    // A character-animation video costs ceil(driving seconds), settled at its reservation.
    const charge = animation ? 'reserved' : 'duration';
    if (
      !(await transitionRender(deps, row.id, { to: 'ready', videoKey: keys.videoKey, alphaKey, durationMs: result.durationMs, charge }))
    ) {
      await discardOutputsUnlessReady(deps, row.id);
    }
  } catch (e) {
    await discardOutputsUnlessReady(deps, row.id).catch(() => {});
    throw e;
  }
}

function needsAnalysis(s: StoredCharacterSource): boolean {
  return s.kind === 'stored' || s.kind === 'url';
}
function needsExtraction(s: StoredMotionSource): boolean {
  return s.kind === 'stored' || s.kind === 'url';
}

type PrepProgress = () => (percent: number) => void;

/** The shipped character: analysed once per installation and reused from storage. */
export async function builtinCharacter(
  deps: Pick<Ports, 'storage' | 'engine'>,
  dir: string,
  signal: AbortSignal,
): Promise<CharacterAssets> {
  const assetsDir = join(dir, 'assets');
  if (await downloadAssets(deps.storage, storageKeys.builtinCharacterAssets, assetsDir, CHARACTER_ASSET_FILES))
    return deps.engine.loadCharacter(assetsDir);
  const image = join(dir, 'builtin-image.png');
  await mkdir(dir, { recursive: true });
  await deps.engine.writeDefaultCharacterImage(image);
  const assets = await deps.engine.analyzeCharacter({ imageFile: image, outDir: assetsDir, thumbnail: false, signal });
  await uploadAssets(deps.storage, assets.dir ?? assetsDir, storageKeys.builtinCharacterAssets, CHARACTER_ASSET_FILES);
  return assets;
}

/** Fetches and checks the character's input; the returned function does the expensive part. */
async function characterFromSource(
  deps: Deps,
  src: StoredCharacterSource,
  dir: string,
  signal: AbortSignal,
  prep: PrepProgress,
): Promise<() => Promise<CharacterAssets>> {
  const assetsDir = join(dir, 'assets');
  if (src.kind === 'character') {
    const c = await characterById(deps.db, src.id);
    const prefix = c?.assets_key ?? storageKeys.characterAssets(src.id);
    if (!(await downloadAssets(deps.storage, prefix, assetsDir, CHARACTER_ASSET_FILES))) throw missingAsset('INVALID_CHARACTER', src.id);
    return () => deps.engine.loadCharacter(assetsDir);
  }
  if (src.kind === 'builtin') return () => builtinCharacter(deps, dir, signal);
  const image = join(dir, 'input-image');
  await mkdir(dir, { recursive: true });
  // Stored inputs may come from a draft upload, checked only against its declaration: probe by
  // content here too, so a wrong file fails as UNSUPPORTED_MEDIA rather than deep in the engine.
  if (src.kind === 'stored') await deps.storage.getFile(src.key, image);
  else await fetchInput(deps, src.url, image, 'image', signal);
  await checkImageFile(deps, image);
  const onProgress = prep();
  return () => deps.engine.analyzeCharacter({ imageFile: image, outDir: assetsDir, thumbnail: false, signal, onProgress });
}

/** Fetches and checks the motion's input (and reserves a URL motion's length); the returned function does the expensive part. */
async function motionFromSource(
  deps: Deps,
  row: VideosTable,
  src: StoredMotionSource,
  dir: string,
  signal: AbortSignal,
  prep: PrepProgress,
): Promise<() => Promise<MotionAssets>> {
  const assetsDir = join(dir, 'assets');
  if (src.kind === 'motion') {
    const m = await motionById(deps.db, src.id);
    const prefix = m?.assets_key ?? storageKeys.motionAssets(src.id);
    if (!(await downloadAssets(deps.storage, prefix, assetsDir, MOTION_ASSET_FILES))) throw missingAsset('INVALID_MOTION', src.id);
    return () => deps.engine.loadMotion(assetsDir);
  }
  if (src.kind === 'template') return () => deps.engine.writeTemplateMotion(src.id, assetsDir);
  const video = join(dir, 'input-video');
  await mkdir(dir, { recursive: true });
  if (src.kind === 'stored') await deps.storage.getFile(src.key, video);
  else await fetchInput(deps, src.url, video, 'video', signal);
  // A stored input passed the whole check, frames decoded, before the render was accepted (render
  // sources and draft uploads): its decode is not repeated here, where it sat on the critical path
  // (~0.2-0.4 s of a 4 s render; the extraction's own decode still fails a damaged file). A URL input
  // is new to the service and gets the whole check.
  const info = await checkVideoFile(deps, video, { frames: src.kind === 'url' });
  // A URL motion's length was unknown at creation: reserve now, before the expensive part (a render
  // is paid from a reservation; a short balance fails it with INSUFFICIENT_CREDITS). For other
  // sources the reservation exists and this is a no-op.
  if (src.kind === 'url') await reserveMeasuredDuration(deps, row.id, info.durationMs);
  const onProgress = prep();
  return () => deps.engine.extractMotion({ videoFile: video, outDir: assetsDir, smoothing: true, signal, onProgress });
}
