import { join } from 'node:path';
import { storageKeys } from '../../domain/storage-keys.js';
import { mkdir } from 'node:fs/promises';
import type { VideosTable } from '../../infra/db/schema.js';
import type { VideoGenerator } from '../../domain/ports/video-generator.js';
import type { H3Params, StoredFrame } from '../../domain/videos/video-create.service.js';
import { checkImageFile } from '../../domain/media/media-check.js';
import { isTerminalRender, transitionRender } from '../../domain/renders/renders.state.js';
import { discardOutputsUnlessReady } from '../../domain/renders/render-cancel.service.js';
import { fetchInput, withWorkDir } from '../asset-transfer.js';
import { ProgressReporter } from '../progress-reporter.js';
import type { JobContext, JobHandler } from '../../domain/ports/job-queue.js';
import { renderById } from './job-resources.repository.js';
import type { Ports } from '../../domain/ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'generator' | 'pubsub' | 'storage' | 'tmpDir'>;

/**
 * `video.generate` (H3 mode of POST /v1/videos): fetch the frames, run the configured generator,
 * upload the clip, then `ready`, which settles the reservation at exactly the price. Failures
 * release it. State changes go through transitionRender, like renders, so a cancelled or failed
 * video stays so whatever this job does next.
 */
export function videoGenerateHandler(deps: Deps & { generator: VideoGenerator }): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await renderById(deps.db, job.resourceId);
      if (!row || isTerminalRender(row.status)) return;
      if (!(await transitionRender(deps, row.id, { to: 'processing' })) && row.status === 'queued') return;
      if (row.status === 'processing' && job.attempt > 1) await transitionRender(deps, row.id, { to: 'resumed' });
      await withWorkDir(deps.tmpDir, job, (dir) => generateIn(deps, row, dir, job.signal));
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
      await discardOutputsUnlessReady(deps, job.resourceId);
    },
  };
}

async function frameFile(deps: Deps, src: StoredFrame, file: string, signal: AbortSignal): Promise<string | null> {
  if (!src) return null;
  if (src.kind === 'stored') await deps.storage.getFile(src.key, file);
  else await fetchInput(deps, src.url, file, 'image', signal);
  await checkImageFile(deps, file);
  return file;
}

async function generateIn(deps: Deps & { generator: VideoGenerator }, row: VideosTable, dir: string, signal: AbortSignal): Promise<void> {
  const p = JSON.parse(row.params_json ?? '{}') as H3Params;
  const progress = new ProgressReporter<'analyzing' | 'rendering' | 'finishing'>((stage, pct) =>
    transitionRender(deps, row.id, { to: 'progress', stage, progress: pct }),
  );
  await mkdir(join(dir, 'inputs'), { recursive: true });
  const first = await frameFile(deps, p.first_frame, join(dir, 'inputs', 'first_frame'), signal);
  const last = await frameFile(deps, p.last_frame, join(dir, 'inputs', 'last_frame'), signal);
  const result = await deps.generator.generate({
    prompt: p.prompt,
    tags: p.target_tags,
    durationS: p.duration_s,
    width: p.width,
    height: p.height,
    resolution: p.resolution,
    aspectRatio: p.aspect_ratio,
    seed: Number(row.seed ?? 0),
    quality: p.quality,
    enhance: p.enhance_mode === 'prompt',
    watermark: p.watermark,
    firstFrameFile: first,
    lastFrameFile: last,
    workDir: join(dir, 'work'),
    signal,
    onProgress: (pct) => progress.report(pct < 15 ? 'analyzing' : pct < 96 ? 'rendering' : 'finishing', Math.min(98, pct)),
  });
  progress.report('finishing', 99);
  await progress.flush();
  const { videoKey } = storageKeys.renderOutputs(row.id);
  try {
    signal.throwIfAborted();
    await deps.storage.putFile(videoKey, result.videoFile);
    const ok = await transitionRender(deps, row.id, {
      to: 'ready',
      videoKey,
      alphaKey: null,
      durationMs: result.durationMs,
      charge: 'reserved',
      enhancedPrompt: result.enhancedPrompt,
    });
    if (!ok) await discardOutputsUnlessReady(deps, row.id);
  } catch (e) {
    await discardOutputsUnlessReady(deps, row.id).catch(() => {});
    throw e;
  }
}
