import { join } from 'node:path';
import { storageKeys } from '../../domain/storage-keys.js';
import type { CharactersTable } from '../../infra/db/schema.js';
import { checkImageFile } from '../../domain/media/media-check.js';
import { transitionCharacter } from '../../domain/characters/characters.state.js';
import { CHARACTER_ASSET_FILES, fetchInput, uploadAssets, withWorkDir } from '../asset-transfer.js';
import { ProgressReporter } from '../progress-reporter.js';
import type { JobContext, JobHandler } from '../../domain/ports/job-queue.js';
import { characterById } from './job-resources.repository.js';
import type { Ports } from '../../domain/ports/index.js';
import { TWO_D_SHARE } from './three-d-progress.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

/**
 * `character.process`: source image → engine analysis (mask, pose, rig, texture) → assets stored
 * under characters/<id>/assets/ → 2D part ready. A failure fails the Character, which refunds its
 * charge (characters.state.ts). Re-running after a crash redoes the work and overwrites the same
 * keys. For `vsplat`/`all` the 2D part's `ready` enqueues `character.vsplat` in the same
 * transaction (character-vsplat.handler.ts): renders can use the Character from then on, and its
 * progress continues from TWO_D_SHARE to 99 while the splat is built.
 */
export function characterProcessHandler(deps: Deps): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await characterById(deps.db, job.resourceId);
      if (!row || row.deleted_at !== null) return;
      if (!(await transitionCharacter(deps.db, row.id, { to: 'processing' }))) return;
      const share = row.type === 'render' ? 0.95 : TWO_D_SHARE / 100;
      await withWorkDir(deps.tmpDir, job, async (dir) => {
        const image = join(dir, 'source-image');
        await obtainSourceImage(deps, row, image, job.signal);
        const progress = new ProgressReporter<'analyzing'>((_s, p) =>
          transitionCharacter(deps.db, row.id, { to: 'progress', progress: p }),
        );
        const outDir = join(dir, 'assets');
        const assets = await deps.engine.analyzeCharacter({
          imageFile: image,
          outDir,
          thumbnail: row.render_thumbnail === 1,
          signal: job.signal,
          onProgress: (p) => progress.report('analyzing', p * share),
        });
        await progress.flush();
        await uploadAssets(deps.storage, assets.dir ?? outDir, storageKeys.characterAssets(row.id), CHARACTER_ASSET_FILES);
        const threeD = row.type !== 'render';
        await transitionCharacter(
          deps.db,
          row.id,
          { to: 'ready', assetsKey: storageKeys.characterAssets(row.id) },
          {
            inTx: threeD
              ? (tx) =>
                  deps.queue.enqueueInTx(tx, {
                    type: 'character.vsplat',
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
      await transitionCharacter(deps.db, job.resourceId, {
        to: 'failed',
        reason: JSON.stringify({ code: error.code, message: error.message, details: error.details }),
      });
    },
  };
}

async function obtainSourceImage(deps: Deps, row: CharactersTable, dest: string, signal: AbortSignal): Promise<void> {
  if (row.source_kind === 'upload' && row.source_key) {
    await deps.storage.getFile(row.source_key, dest);
  } else if (row.source_kind === 'url' && row.source_url) {
    // Checked at the door, but only now fetched: the content may be anything (spec: must stay reachable).
    await fetchInput(deps, row.source_url, dest, 'image', signal);
    await checkImageFile(deps, dest);
  } else {
    await deps.engine.writeDefaultCharacterImage(dest);
  }
}
