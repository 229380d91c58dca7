import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { storageKeys } from '../../domain/storage-keys.js';
import { transitionCharacter } from '../../domain/characters/characters.state.js';
import { CHARACTER_ASSET_FILES, downloadAssets, missingAsset, uploadAssets, withWorkDir } from '../asset-transfer.js';
import type { JobContext, JobHandler } from '../../domain/ports/job-queue.js';
import { characterById } from './job-resources.repository.js';
import type { Ports } from '../../domain/ports/index.js';
import { threeDProgress } from './three-d-progress.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'pubsub' | 'storage' | 'tmpDir'>;

/**
 * `character.vsplat`: the 3D part of a `vsplat`/`all` Character, a job of its own enqueued by the
 * 2D part's `ready` (character-process.handler.ts). Downloads the stored 2D assets, builds the
 * skinned splat (and, when asked, a thumbnail rendered from it, replacing the 2D one), uploads it
 * beside them and marks the `vsplat` part ready, which makes the Character `ready`. A failure
 * fails only this part: the Character shows `failed` with `vsplat.status` failed and the state
 * function refunds the 3D part's price (characters.state.ts). Re-running overwrites the same keys.
 */
export function characterVsplatHandler(deps: Deps): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await characterById(deps.db, job.resourceId);
      if (!row || row.deleted_at !== null || row.assets_key === null) return;
      if (!(await transitionCharacter(deps.db, row.id, { to: 'vsplat', status: 'processing' }))) return;
      await withWorkDir(deps.tmpDir, job, async (dir) => {
        const characterDir = join(dir, 'assets');
        if (!(await downloadAssets(deps.storage, row.assets_key!, characterDir, CHARACTER_ASSET_FILES)))
          throw missingAsset('INVALID_CHARACTER', row.id);
        await transitionCharacter(deps.db, row.id, { to: 'progress', progress: threeDProgress(0.1) });
        const outDir = join(dir, 'three-d');
        await mkdir(outDir, { recursive: true });
        const { files } = await deps.engine.extractVsplat({
          characterDir,
          outDir,
          thumbnail: row.render_thumbnail === 1,
          jointSet: row.joint_set,
          precision: row.model_precision ?? undefined,
          enhance: row.enhance === 1,
          filterLowQuality: row.filter_low_quality === 1,
        });
        if (job.signal.aborted) return;
        await transitionCharacter(deps.db, row.id, { to: 'progress', progress: threeDProgress(0.9) });
        await uploadAssets(deps.storage, outDir, storageKeys.characterAssets(row.id), files);
        await transitionCharacter(deps.db, row.id, { to: 'vsplat', status: 'ready' });
      });
    },
    async fail(job, error) {
      await transitionCharacter(deps.db, job.resourceId, {
        to: 'failed',
        part: 'vsplat',
        reason: JSON.stringify({ code: 'EXTRACTION_FAILED', message: error.message, details: error.details }),
      });
    },
  };
}
