import { newId } from '../../src/contracts/ids.js';
import type { Db } from '../../src/infra/db/database.js';
import type { AssetStatus } from '../../src/infra/db/schema.js';

const TERMINAL: readonly AssetStatus[] = ['ready', 'failed', 'cancelled'];

/** What a row in `status` looks like: progress 100 and a completion time once ready, as the state functions write. */
function stateFields(status: AssetStatus) {
  return { status, progress: status === 'ready' ? 100 : null, completed_at: TERMINAL.includes(status) ? new Date().toISOString() : null };
}

/**
 * Character and Motion rows in a chosen state, written straight to the database: for tests about
 * what the service does with an asset in that state, without running the engine to get there.
 */
export async function insertCharacterRow(db: Db, accountId: string, status: AssetStatus): Promise<string> {
  const id = newId('character');
  const now = new Date().toISOString();
  await db
    .insertInto('characters')
    .values({
      ...stateFields(status),
      id,
      account_id: accountId,
      name: '',
      type: 'render',
      enhance: 0,
      joint_set: 'body',
      model_precision: null,
      filter_low_quality: 0,
      render_thumbnail: 0,
      task_id: null,
      vsplat_status: null,
      source_kind: 'upload',
      source_key: null,
      source_url: null,
      assets_key: null,
      failure_json: null,
      charge_milli: 1000,
      request_id: null,
      service_source: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    })
    .execute();
  return id;
}

export async function insertMotionRow(db: Db, accountId: string, status: AssetStatus, durationMs: number | null = 2500): Promise<string> {
  const id = newId('motion');
  const now = new Date().toISOString();
  await db
    .insertInto('motions')
    .values({
      ...stateFields(status),
      id,
      account_id: accountId,
      name: '',
      type: 'render',
      enable_smoothing: 1,
      target_fps: null,
      joint_set: 'body',
      task_id: null,
      glb_status: null,
      source_kind: 'upload',
      source_key: null,
      source_url: null,
      template_id: null,
      assets_key: null,
      duration_ms: durationMs,
      failure_json: null,
      request_id: null,
      service_source: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    })
    .execute();
  return id;
}
