import type { Db } from '../../infra/db/database.js';
import { nowIso } from '../../infra/db/database.js';
import type { AssetStatus, CharactersTable } from '../../infra/db/schema.js';
import { refund } from '../billing/billing.service.js';
import * as repo from './characters.repository.js';

/**
 * The one place that writes a Character's status (spec 3.2). Workers call it; nothing else updates
 * `status`, `vsplat_status`, `progress` or `completed_at`.
 *
 * - The 2D part (what `character.process` produces: character.json, texture.png, thumbnail.png)
 *   and, for `vsplat`/`all`, the vsplat extraction are tracked separately. The top-level status
 *   becomes `ready` only when every requested part is ready (spec 2.2: "ready only after both").
 * - A failure of any part fails the Character; a still-running sibling part is marked `cancelled`,
 *   so the `vsplat` sub-object shows which output failed. The charge is refunded in the same
 *   transaction, exactly once (billing keys the refund by the Character ID). A cancellation
 *   refunds too: the caller paid for work that was never delivered.
 * - Terminal (`ready`, `failed`, `cancelled`) and deleted Characters are left alone: the change is
 *   a no-op returning null, so a late or repeated worker call cannot resurrect or re-bill anything.
 */
export type CharacterChange =
  | { to: 'processing' }
  | { to: 'progress'; progress: number }
  | { to: 'ready'; assetsKey: string; durationMs?: number }
  | { to: 'failed'; reason: string; part?: 'render' | 'vsplat' }
  | { to: 'cancelled' }
  /** The vsplat extraction's own progress (a later issue's worker): `processing` or `ready`. */
  | { to: 'vsplat'; status: 'processing' | 'ready' };

const TERMINAL: readonly AssetStatus[] = ['ready', 'failed', 'cancelled'];

export function isTerminal(status: AssetStatus): boolean {
  return TERMINAL.includes(status);
}

function clampProgress(p: number): number {
  if (!Number.isFinite(p)) return 0;
  return Math.min(100, Math.max(0, Math.round(p)));
}

/** Whether every requested output is ready, given the row after the change. */
function allPartsReady(row: Pick<CharactersTable, 'type' | 'assets_key' | 'vsplat_status'>): boolean {
  return row.assets_key !== null && (row.type === 'render' || row.vsplat_status === 'ready');
}

function patchFor(row: CharactersTable, change: CharacterChange, now: string): Partial<CharactersTable> | null {
  const started = row.status === 'queued' ? { status: 'processing' as const } : {};
  switch (change.to) {
    case 'processing':
      return { status: 'processing', updated_at: now };
    case 'progress':
      // Progress never goes backwards on the wire, and 100 is reserved for `ready`.
      return { ...started, progress: Math.max(row.progress ?? 0, Math.min(99, clampProgress(change.progress))), updated_at: now };
    case 'vsplat': {
      if (row.type === 'render' || row.vsplat_status === null || isTerminal(row.vsplat_status)) return null;
      const next = { ...row, vsplat_status: change.status };
      if (change.status === 'ready' && allPartsReady(next)) {
        return { status: 'ready', vsplat_status: 'ready', progress: 100, completed_at: now, updated_at: now };
      }
      return { ...started, vsplat_status: change.status, updated_at: now };
    }
    case 'ready': {
      const next = { ...row, assets_key: change.assetsKey };
      if (allPartsReady(next)) return { status: 'ready', assets_key: change.assetsKey, progress: 100, completed_at: now, updated_at: now };
      // The 2D part is done but the requested vsplat extraction is not: still processing.
      return { status: 'processing', assets_key: change.assetsKey, updated_at: now };
    }
    case 'failed': {
      let vsplat = row.vsplat_status;
      if (vsplat !== null && !isTerminal(vsplat)) vsplat = change.part === 'vsplat' ? 'failed' : 'cancelled';
      return { status: 'failed', vsplat_status: vsplat, completed_at: now, updated_at: now, failure_json: JSON.stringify({ reason: change.reason, part: change.part ?? 'render', at: now }) };
    }
    case 'cancelled': {
      const vsplat = row.vsplat_status !== null && !isTerminal(row.vsplat_status) ? 'cancelled' : row.vsplat_status;
      return { status: 'cancelled', vsplat_status: vsplat, completed_at: now, updated_at: now };
    }
  }
}

/**
 * Applies `change` to Character `id` in one transaction (refund included). Returns the updated
 * row, or null when the Character does not exist, is deleted or is already terminal.
 */
export async function transitionCharacter(db: Db, id: string, change: CharacterChange): Promise<CharactersTable | null> {
  return db.transaction().execute(async (tx) => {
    const row = await repo.lockForUpdate(tx, id);
    if (!row || row.deleted_at !== null || isTerminal(row.status)) return null;
    const now = nowIso();
    const patch = patchFor(row, change, now);
    if (patch === null) return null;
    const updated = await repo.updateCharacter(tx, id, patch);
    if (updated.status === 'failed' || updated.status === 'cancelled') await refund(tx, row.account_id, row.id);
    return updated;
  });
}
