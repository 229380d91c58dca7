import type { Db } from '../../infra/db/database.js';
import { nowIso } from '../../infra/db/database.js';
import type { MotionsTable } from '../../infra/db/schema.js';
import { assetPatch, isTerminal, type AssetChange, type TransitionOptions } from '../assets/asset-state.js';
import * as repo from './motions.repository.js';

/**
 * The one place that writes a Motion's status (spec 3.2). The rules shared with Characters (the 2D
 * part, what `motion.extract` produces, plus for `glb`/`all` the glb extraction) are in
 * ../assets/asset-state.ts. Motions cost nothing, so there is no billing here. Terminal or deleted Motions are left alone
 * (null), so a late or repeated worker call changes nothing.
 */
export type MotionChange = AssetChange<'glb'>;

function patchFor(row: MotionsTable, change: MotionChange, now: string): Partial<MotionsTable> | null {
  const view = {
    status: row.status,
    progress: row.progress,
    assets_key: row.assets_key,
    extraction: row.glb_status,
    extractionRequested: row.type !== 'render',
  };
  const patch = assetPatch(view, change, 'glb', now);
  if (patch === null) return null;
  const { extraction, ...rest } = patch;
  const out: Partial<MotionsTable> = extraction === undefined ? rest : { ...rest, glb_status: extraction };
  // A Motion also records the measured duration of its track when its 2D part is done.
  if (change.to === 'ready')
    out.duration_ms =
      change.durationMs !== undefined && Number.isFinite(change.durationMs) ? Math.round(change.durationMs) : row.duration_ms;
  return out;
}

/**
 * Applies `change` to Motion `id` in one transaction. Returns the updated row, or null when the
 * Motion does not exist, is deleted or is already terminal.
 */
export async function transitionMotion(
  db: Db,
  id: string,
  change: MotionChange,
  opts: TransitionOptions<MotionsTable> = {},
): Promise<MotionsTable | null> {
  return db.transaction().execute(async (tx) => {
    const row = await repo.lockForUpdate(tx, id);
    if (!row || row.deleted_at !== null || isTerminal(row.status)) return null;
    const patch = patchFor(row, change, nowIso());
    if (patch === null) return null;
    const updated = await repo.updateMotion(tx, id, patch);
    if (opts.inTx) await opts.inTx(tx, updated);
    return updated;
  });
}
