import type { Db } from '../../infra/db/database.js';
import { nowIso } from '../../infra/db/database.js';
import type { AssetStatus, MotionsTable } from '../../infra/db/schema.js';
import * as repo from './motions.repository.js';

/**
 * The one place that writes a Motion's status (spec 3.2), mirroring characters.state.ts: the 2D
 * part (what `motion.extract` produces: track.json and friends) and, for `glb`/`all`, the glb
 * extraction are tracked separately; the top-level status is `ready` only when every requested part
 * is. Motions cost nothing, so there is no billing here. Terminal or deleted Motions are left alone
 * (null), so a late or repeated worker call changes nothing.
 */
export type MotionChange =
  | { to: 'processing' }
  | { to: 'progress'; progress: number }
  | { to: 'ready'; assetsKey: string; durationMs?: number }
  | { to: 'failed'; reason: string; part?: 'render' | 'glb' }
  | { to: 'cancelled' }
  /** The glb extraction's own progress (a later issue's worker): `processing` or `ready`. */
  | { to: 'glb'; status: 'processing' | 'ready' };

const TERMINAL: readonly AssetStatus[] = ['ready', 'failed', 'cancelled'];

export function isTerminal(status: AssetStatus): boolean {
  return TERMINAL.includes(status);
}

function clampProgress(p: number): number {
  if (!Number.isFinite(p)) return 0;
  return Math.min(100, Math.max(0, Math.round(p)));
}

function allPartsReady(row: Pick<MotionsTable, 'type' | 'assets_key' | 'glb_status'>): boolean {
  return row.assets_key !== null && (row.type === 'render' || row.glb_status === 'ready');
}

function patchFor(row: MotionsTable, change: MotionChange, now: string): Partial<MotionsTable> | null {
  const started = row.status === 'queued' ? { status: 'processing' as const } : {};
  switch (change.to) {
    case 'processing':
      return { status: 'processing', updated_at: now };
    case 'progress':
      // Progress never goes backwards on the wire, and 100 is reserved for `ready`.
      return { ...started, progress: Math.max(row.progress ?? 0, Math.min(99, clampProgress(change.progress))), updated_at: now };
    case 'glb': {
      if (row.type === 'render' || row.glb_status === null || isTerminal(row.glb_status)) return null;
      const next = { ...row, glb_status: change.status };
      if (change.status === 'ready' && allPartsReady(next)) {
        return { status: 'ready', glb_status: 'ready', progress: 100, completed_at: now, updated_at: now };
      }
      return { ...started, glb_status: change.status, updated_at: now };
    }
    case 'ready': {
      const durationMs = change.durationMs !== undefined && Number.isFinite(change.durationMs) ? Math.round(change.durationMs) : row.duration_ms;
      const next = { ...row, assets_key: change.assetsKey };
      if (allPartsReady(next)) {
        return { status: 'ready', assets_key: change.assetsKey, duration_ms: durationMs, progress: 100, completed_at: now, updated_at: now };
      }
      // The track is extracted but the requested glb output is not: still processing.
      return { status: 'processing', assets_key: change.assetsKey, duration_ms: durationMs, updated_at: now };
    }
    case 'failed': {
      let glb = row.glb_status;
      if (glb !== null && !isTerminal(glb)) glb = change.part === 'glb' ? 'failed' : 'cancelled';
      return { status: 'failed', glb_status: glb, completed_at: now, updated_at: now, failure_json: JSON.stringify({ reason: change.reason, part: change.part ?? 'render', at: now }) };
    }
    case 'cancelled': {
      const glb = row.glb_status !== null && !isTerminal(row.glb_status) ? 'cancelled' : row.glb_status;
      return { status: 'cancelled', glb_status: glb, completed_at: now, updated_at: now };
    }
  }
}

/**
 * Applies `change` to Motion `id` in one transaction. Returns the updated row, or null when the
 * Motion does not exist, is deleted or is already terminal.
 */
export async function transitionMotion(db: Db, id: string, change: MotionChange): Promise<MotionsTable | null> {
  return db.transaction().execute(async (tx) => {
    const row = await repo.lockForUpdate(tx, id);
    if (!row || row.deleted_at !== null || isTerminal(row.status)) return null;
    const patch = patchFor(row, change, nowIso());
    if (patch === null) return null;
    return repo.updateMotion(tx, id, patch);
  });
}
