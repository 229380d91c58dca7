import type { Db } from '../../infra/db/database.js';
import type { AssetStatus } from '../../infra/db/schema.js';

/**
 * The state rules Characters and Motions share (spec 3.2). Each asset has a 2D part (what its
 * worker produces under `assets_key`) and, when its `type` asks for one, a 3D extraction with its
 * own status (`vsplat_status` for Characters, `glb_status` for Motions), called `extraction` here.
 *
 * - The top-level status is `ready` only when every requested part is ready (spec 2.2).
 * - A failure of either part fails the asset; a still-running sibling extraction is marked
 *   `cancelled`, so the sub-object shows which output failed.
 * - Progress never goes backwards on the wire, and 100 is reserved for `ready`.
 *
 * This function only computes the patch; characters.state.ts and motions.state.ts own their
 * transaction, their column names and their side effects (a Character's refund).
 */
export type ExtractionName = 'vsplat' | 'glb';

export type AssetChange<X extends ExtractionName> =
  | { to: 'processing' }
  | { to: 'progress'; progress: number }
  | { to: 'ready'; assetsKey: string; durationMs?: number }
  | { to: 'failed'; reason: string; part?: 'render' | X }
  | { to: 'cancelled' }
  /** The extraction's own progress (a later issue's worker): `processing` or `ready`. */
  | { to: X; status: 'processing' | 'ready' };

export interface TransitionOptions<Row> {
  /**
   * Runs in the transition's transaction after the change was written (not when the change was a
   * no-op): the 2D part's `ready` enqueues the 3D part's job here, so both commit or neither does.
   */
  inTx?: (tx: Db, updated: Row) => Promise<void>;
}

export interface AssetStateView {
  status: AssetStatus;
  progress: number | null;
  assets_key: string | null;
  /** Null when the asset's `type` requested no extraction. */
  extraction: AssetStatus | null;
  extractionRequested: boolean;
}

export interface AssetPatch {
  status?: AssetStatus;
  progress?: number;
  assets_key?: string;
  extraction?: AssetStatus | null;
  completed_at?: string;
  failure_json?: string;
  updated_at: string;
}

const TERMINAL: readonly AssetStatus[] = ['ready', 'failed', 'cancelled'];

export function isTerminal(status: AssetStatus): boolean {
  return TERMINAL.includes(status);
}

function clampProgress(p: number): number {
  if (!Number.isFinite(p)) return 0;
  return Math.min(100, Math.max(0, Math.round(p)));
}

/** Which part a failed asset's failure came from (`render` when unknown). */
export function failedPart(failureJson: string | null): string {
  if (failureJson === null) return 'render';
  try {
    const part = (JSON.parse(failureJson) as { part?: unknown }).part;
    return typeof part === 'string' ? part : 'render';
  } catch {
    return 'render';
  }
}

/**
 * Whether renders may use the asset: its 2D part is stored (`assets_key`) and it is not cancelled.
 * A `vsplat`/`glb`/`all` asset is usable while its 3D part still runs (the 3D part is a job of its
 * own, after the 2D one), and an `all` asset whose 3D part failed keeps its 2D part (only the 3D
 * part is refunded). docs/api-decisions.md "3D outputs".
 */
export function renderPartUsable(row: {
  status: AssetStatus;
  type: string;
  assets_key: string | null;
  failure_json: string | null;
}): boolean {
  if (row.assets_key === null) return false;
  if (row.status === 'ready' || row.status === 'processing' || row.status === 'queued') return true;
  return row.status === 'failed' && row.type === 'all' && failedPart(row.failure_json) !== 'render';
}

/** Whether every requested output is ready, given the state after the change. */
function allPartsReady(row: Pick<AssetStateView, 'assets_key' | 'extraction' | 'extractionRequested'>): boolean {
  return row.assets_key !== null && (!row.extractionRequested || row.extraction === 'ready');
}

/** The patch `change` makes to a non-terminal asset, or null when it changes nothing. */
export function assetPatch<X extends ExtractionName>(
  row: AssetStateView,
  change: AssetChange<X>,
  extractionName: X,
  now: string,
): AssetPatch | null {
  const started = row.status === 'queued' ? { status: 'processing' as const } : {};
  if (change.to === extractionName) {
    const { status } = change as { status: 'processing' | 'ready' };
    if (!row.extractionRequested || row.extraction === null || isTerminal(row.extraction)) return null;
    if (status === 'ready' && allPartsReady({ ...row, extraction: status })) {
      return { status: 'ready', extraction: 'ready', progress: 100, completed_at: now, updated_at: now };
    }
    return { ...started, extraction: status, updated_at: now };
  }
  const c = change as Exclude<AssetChange<X>, { to: X }>;
  switch (c.to) {
    case 'processing':
      return { status: 'processing', updated_at: now };
    case 'progress':
      return { ...started, progress: Math.max(row.progress ?? 0, Math.min(99, clampProgress(c.progress))), updated_at: now };
    case 'ready':
      if (allPartsReady({ ...row, assets_key: c.assetsKey }))
        return { status: 'ready', assets_key: c.assetsKey, progress: 100, completed_at: now, updated_at: now };
      // The 2D part is done but the requested extraction is not: still processing.
      return { status: 'processing', assets_key: c.assetsKey, updated_at: now };
    case 'failed': {
      let extraction = row.extraction;
      if (extraction !== null && !isTerminal(extraction)) extraction = c.part === extractionName ? 'failed' : 'cancelled';
      const failure = JSON.stringify({ reason: c.reason, part: c.part ?? 'render', at: now });
      return { status: 'failed', extraction, completed_at: now, updated_at: now, failure_json: failure };
    }
    case 'cancelled': {
      const extraction = row.extraction !== null && !isTerminal(row.extraction) ? 'cancelled' : row.extraction;
      return { status: 'cancelled', extraction, completed_at: now, updated_at: now };
    }
  }
}
