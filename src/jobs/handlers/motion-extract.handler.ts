import { join } from 'node:path';
import { storageKeys } from '../../domain/storage-keys.js';
import type { MotionsTable } from '../../infra/db/schema.js';
import type { MotionAssets } from '../../engine/types.js';
import { checkVideoFile } from '../../domain/media/media-check.js';
import { transitionMotion } from '../../domain/motions/motions.state.js';
import { MOTION_ASSET_FILES, fetchInput, uploadAssets, withWorkDir } from '../asset-transfer.js';
import { ProgressReporter } from '../progress-reporter.js';
import type { JobContext, JobHandler } from '../../domain/ports/job-queue.js';
import { motionById } from './job-resources.repository.js';
import { TWO_D_SHARE } from './three-d-progress.js';
import type { Ports } from '../../domain/ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

/**
 * `motion.extract`: driving video (or a shipped template) → pose track, normalised source video,
 * background plate and audio under motions/<id>/assets/ → 2D part ready with its duration. For
 * `glb`/`all` that `ready` enqueues `motion.glb` in the same transaction (motion-glb.handler.ts):
 * renders can use the Motion from then on; progress continues from TWO_D_SHARE while the 3D
 * animation is made.
 */
export function motionExtractHandler(deps: Deps): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await motionById(deps.db, job.resourceId);
      if (!row || row.deleted_at !== null) return;
      if (!(await transitionMotion(deps.db, row.id, { to: 'processing' }))) return;
      await withWorkDir(deps.tmpDir, job, async (dir) => {
        const outDir = join(dir, 'assets');
        const assets = await produceMotion(deps, row, dir, outDir, job.signal);
        await uploadAssets(deps.storage, assets.dir ?? outDir, storageKeys.motionAssets(row.id), MOTION_ASSET_FILES);
        const threeD = row.type !== 'render';
        await transitionMotion(
          deps.db,
          row.id,
          { to: 'ready', assetsKey: storageKeys.motionAssets(row.id), durationMs: assets.track.durationMs },
          {
            inTx: threeD
              ? (tx) =>
                  deps.queue.enqueueInTx(tx, {
                    type: 'motion.glb',
                    resourceId: row.id,
                    payload: {},
                    maxAttempts: deps.config.workers.maxAttempts,
                  })
              : undefined,
          },
        );
        if (threeD) deps.queue.notify();
      });
    },
    async fail(job, error) {
      await transitionMotion(deps.db, job.resourceId, {
        to: 'failed',
        reason: JSON.stringify({ code: error.code, message: error.message, details: error.details }),
      });
    },
  };
}

async function produceMotion(deps: Deps, row: MotionsTable, dir: string, outDir: string, signal: AbortSignal): Promise<MotionAssets> {
  if (row.source_kind === 'template' && row.template_id) return deps.engine.writeTemplateMotion(row.template_id, outDir);
  const video = join(dir, 'source-video');
  if (row.source_kind === 'upload' && row.source_key) {
    await deps.storage.getFile(row.source_key, video);
  } else if (row.source_url) {
    await fetchInput(deps, row.source_url, video, 'video', signal);
    await checkVideoFile(deps, video);
  } else {
    throw new Error(`motion ${row.id} has no source`);
  }
  const progress = new ProgressReporter<'analyzing'>((_s, p) => transitionMotion(deps.db, row.id, { to: 'progress', progress: p }));
  const assets = await deps.engine.extractMotion({
    videoFile: video,
    outDir,
    targetFps: row.target_fps ?? undefined,
    smoothing: row.enable_smoothing === 1,
    signal,
    onProgress: (p) => progress.report('analyzing', p * (row.type === 'render' ? 0.95 : TWO_D_SHARE / 100)),
  });
  await progress.flush();
  return assets;
}
