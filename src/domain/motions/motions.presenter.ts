import type { MotionsTable } from '../../infra/db/schema.js';
import { presentAsset, type AssetObject } from '../characters/characters.presenter.js';

/** A Motion on the wire: the shape shared with Characters (spec 2.2), `glb` instead of `vsplat`. */
export function presentMotion(row: MotionsTable, opts: { list: boolean }): AssetObject {
  return presentAsset(row, opts, { vsplat: null, glb: row.type === 'render' ? null : { status: row.glb_status ?? 'queued' } });
}
