import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { storageKeys } from '../../domain/storage-keys.js';
import { transitionMotion } from '../../domain/motions/motions.state.js';
import { MOTION_ASSET_FILES, downloadAssets, missingAsset, uploadAssets, withWorkDir } from '../asset-transfer.js';
import { ProgressReporter } from '../progress-reporter.js';
import type { JobContext, JobHandler } from '../../domain/ports/job-queue.js';
import { motionById } from './job-resources.repository.js';
import type { Ports } from '../../domain/ports/index.js';
import { threeDProgress } from './three-d-progress.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'pubsub' | 'storage' | 'tmpDir'>;

/**
 * `motion.glb`: the 3D part of a `glb`/`all` Motion, a job of its own enqueued by the 2D part's
 * `ready` (motion-extract.handler.ts). Downloads the stored track and source video, makes the 3D
 * animation on both export skeletons (glb + fbx), uploads them beside the 2D assets and marks the
 * `glb` part ready, which makes the Motion `ready`. A failure fails only this part (the Motion
 * shows `failed`, `glb.status` which part; Motions cost nothing, so nothing is refunded).
 */
export function motionGlbHandler(deps: Deps): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await motionById(deps.db, job.resourceId);
      if (!row || row.deleted_at !== null || row.assets_key === null) return;
      if (!(await transitionMotion(deps.db, row.id, { to: 'glb', status: 'processing' }))) return;
      await withWorkDir(deps.tmpDir, job, async (dir) => {
        const assetsDir = join(dir, 'assets');
        if (!(await downloadAssets(deps.storage, row.assets_key!, assetsDir, MOTION_ASSET_FILES)))
          throw missingAsset('INVALID_MOTION', row.id);
        const assets = await deps.engine.loadMotion(assetsDir);
        const progress = new ProgressReporter<'analyzing'>((_s, p) => transitionMotion(deps.db, row.id, { to: 'progress', progress: p }));
        const outDir = join(dir, 'three-d');
        await mkdir(outDir, { recursive: true });
        const files = await deps.engine.extractMotion3d({
          motion: assets,
          outDir,
          jointSet: row.joint_set,
          smoothing: row.enable_smoothing === 1,
          signal: job.signal,
          onProgress: (p) => progress.report('analyzing', threeDProgress(p / 100)),
        });
        await progress.flush();
        if (job.signal.aborted) return;
        await uploadAssets(deps.storage, outDir, storageKeys.motionAssets(row.id), files);
        await transitionMotion(deps.db, row.id, { to: 'glb', status: 'ready' });
      });
    },
    async fail(job, error) {
      await transitionMotion(deps.db, job.resourceId, {
        to: 'failed',
        part: 'glb',
        reason: JSON.stringify({ code: 'EXTRACTION_FAILED', message: error.message, details: error.details }),
      });
    },
  };
}
