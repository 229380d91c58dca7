import { mkdir } from 'node:fs/promises';
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

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'pubsub' | 'storage' | 'tmpDir'>;

/**
 * `character.process`: source image → engine analysis (mask, pose, rig, texture) → assets stored
 * under characters/<id>/assets/ → Character ready. A failure fails the Character, which refunds
 * its charge (characters.state.ts). Re-running after a crash redoes the work and overwrites the
 * same keys. For `vsplat`/`all` the 2D part is stored first, then the splat is built from it.
 */

export function characterProcessHandler(deps: Deps): JobHandler {
  return {
    async run(job: JobContext) {
      const row = await characterById(deps.db, job.resourceId);
      if (!row || row.deleted_at !== null) return;
      if (!(await transitionCharacter(deps.db, row.id, { to: 'processing' }))) return;
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
          onProgress: (p) => progress.report('analyzing', p * 0.95),
        });
        await progress.flush();
        await uploadAssets(deps.storage, assets.dir ?? outDir, storageKeys.characterAssets(row.id), CHARACTER_ASSET_FILES);
        await transitionCharacter(deps.db, row.id, { to: 'ready', assetsKey: storageKeys.characterAssets(row.id) });
        if (row.type !== 'render') await extractVsplat(deps, row, assets.dir ?? outDir, join(dir, 'three-d'));
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

/**
 * The 3D part, after the 2D part is stored: the skinned splat (and, when asked, a thumbnail rendered
 * from it, replacing the 2D one). A failure fails only the `vsplat` part; the state function
 * refunds the Character's charge in the same transaction.
 */
async function extractVsplat(deps: Deps, row: CharactersTable, characterDir: string, outDir: string): Promise<void> {
  await transitionCharacter(deps.db, row.id, { to: 'vsplat', status: 'processing' });
  let files: string[];
  try {
    await mkdir(outDir, { recursive: true });
    ({ files } = await deps.engine.extractVsplat({
      characterDir,
      outDir,
      thumbnail: row.render_thumbnail === 1,
      jointSet: row.joint_set,
      precision: row.model_precision ?? undefined,
      enhance: row.enhance === 1,
      filterLowQuality: row.filter_low_quality === 1,
    }));
  } catch (err) {
    const reason = JSON.stringify({ code: 'EXTRACTION_FAILED', message: err instanceof Error ? err.message : String(err) });
    await transitionCharacter(deps.db, row.id, { to: 'failed', part: 'vsplat', reason });
    return;
  }
  await uploadAssets(deps.storage, outDir, storageKeys.characterAssets(row.id), files);
  await transitionCharacter(deps.db, row.id, { to: 'vsplat', status: 'ready' });
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
