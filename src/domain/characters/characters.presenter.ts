import type { AssetStatus, CharactersTable } from '../../infra/db/schema.js';
import { renderPartUsable } from '../assets/asset-state.js';

/**
 * The wire shape shared by Characters and Motions (spec 2.2). `error` is always null (failure shows
 * in `status` and the sub-object); `progress` is null in lists; `capabilities` carry `video_render`
 * as soon as renders may use the asset (its 2D part is ready: `renderPartUsable`).
 */
export interface AssetObject {
  id: string;
  status: AssetStatus;
  name: string;
  progress: number | null;
  capabilities: string[];
  created_at: string | null;
  completed_at: string | null;
  error: null;
  type: string;
  vsplat: { status: AssetStatus } | null;
  glb: { status: AssetStatus } | null;
}

type AssetRow = Pick<
  CharactersTable,
  'id' | 'status' | 'name' | 'progress' | 'created_at' | 'completed_at' | 'assets_key' | 'failure_json'
> & { type: string };

export function capabilitiesOf(row: AssetRow): string[] {
  return row.status === 'ready' || renderPartUsable(row) ? ['video_render'] : [];
}

/**
 * An asset on the wire, given its extraction sub-objects. Each is null when not requested (a
 * `render` asset, or the family that has no such extraction); otherwise it carries the
 * extraction's own status, never URLs or parameters.
 */
export function presentAsset(row: AssetRow, opts: { list: boolean }, extractions: Pick<AssetObject, 'vsplat' | 'glb'>): AssetObject {
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    progress: opts.list ? null : row.progress,
    capabilities: capabilitiesOf(row),
    created_at: row.created_at,
    completed_at: row.completed_at,
    error: null,
    type: row.type,
    ...extractions,
  };
}

export function presentCharacter(row: CharactersTable, opts: { list: boolean }): AssetObject {
  return presentAsset(row, opts, { vsplat: row.type === 'render' ? null : { status: row.vsplat_status ?? 'queued' }, glb: null });
}
