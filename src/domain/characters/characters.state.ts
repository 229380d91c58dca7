import type { Db } from '../../infra/db/database.js';
import { nowIso } from '../../infra/db/database.js';
import type { CharactersTable } from '../../infra/db/schema.js';
import { assetPatch, isTerminal, type AssetChange, type TransitionOptions } from '../assets/asset-state.js';
import { refund } from '../billing/billing.service.js';
import { characterVsplatPartMilli } from '../billing/prices.js';
import * as repo from './characters.repository.js';

/**
 * The one place that writes a Character's status (spec 3.2). Workers call it; nothing else updates
 * `status`, `vsplat_status`, `progress` or `completed_at`. The rules shared with Motions (2D part
 * plus, for `vsplat`/`all`, the vsplat extraction) are in ../assets/asset-state.ts.
 *
 * - A failure fails the Character (the `vsplat` sub-object shows which output failed). The charge is
 *   refunded in the same transaction, exactly once (billing keys the refund by the Character ID):
 *   all of it when the 2D part failed, only the 3D part's price (`characterVsplatPartMilli`) when
 *   the vsplat failed after the 2D part was delivered (an `all` Character keeps its 2D part for
 *   renders). A cancellation refunds everything: the caller paid for work never delivered.
 * - Terminal (`ready`, `failed`, `cancelled`) and deleted Characters are left alone: the change is
 *   a no-op returning null, so a late or repeated worker call cannot resurrect or re-bill anything.
 */
export type CharacterChange = AssetChange<'vsplat'>;

function patchFor(row: CharactersTable, change: CharacterChange, now: string): Partial<CharactersTable> | null {
  const view = {
    status: row.status,
    progress: row.progress,
    assets_key: row.assets_key,
    extraction: row.vsplat_status,
    extractionRequested: row.type !== 'render',
  };
  const patch = assetPatch(view, change, 'vsplat', now);
  if (patch === null) return null;
  const { extraction, ...rest } = patch;
  return extraction === undefined ? rest : { ...rest, vsplat_status: extraction };
}

/**
 * Applies `change` to Character `id` in one transaction (refund included). Returns the updated
 * row, or null when the Character does not exist, is deleted or is already terminal.
 */
export async function transitionCharacter(
  db: Db,
  id: string,
  change: CharacterChange,
  opts: TransitionOptions<CharactersTable> = {},
): Promise<CharactersTable | null> {
  return db.transaction().execute(async (tx) => {
    const row = await repo.lockForUpdate(tx, id);
    if (!row || row.deleted_at !== null || isTerminal(row.status)) return null;
    const now = nowIso();
    const patch = patchFor(row, change, now);
    if (patch === null) return null;
    const updated = await repo.updateCharacter(tx, id, patch);
    if (opts.inTx) await opts.inTx(tx, updated);
    if (updated.status === 'cancelled') await refund(tx, row.account_id, row.id);
    if (updated.status === 'failed') {
      const vsplatOnly = change.to === 'failed' && change.part === 'vsplat' && row.assets_key !== null;
      await refund(tx, row.account_id, row.id, vsplatOnly ? characterVsplatPartMilli(row.type, row.enhance === 1) : undefined);
    }
    return updated;
  });
}
