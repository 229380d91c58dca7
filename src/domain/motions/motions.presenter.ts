import type { MotionsTable } from '../../infra/db/schema.js';
import { capabilitiesOf, type AssetObject } from '../characters/characters.presenter.js';

/** A Motion on the wire: the shape shared with Characters (spec 2.2), `glb` instead of `vsplat`. */
export function presentMotion(row: MotionsTable, opts: { list: boolean }): AssetObject {
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    progress: opts.list ? null : row.progress,
    capabilities: capabilitiesOf(row.status),
    created_at: row.created_at,
    completed_at: row.completed_at,
    error: null,
    type: row.type,
    vsplat: null,
    // Null for `render` Motions; otherwise the extraction's own status, never URLs or parameters.
    glb: row.type === 'render' ? null : { status: row.glb_status ?? 'queued' },
  };
}
