import { newId } from '../../src/contracts/ids.js';
import { reserve } from '../../src/domain/billing/billing.service.js';
import { announceRenderEvent, appendRenderEvent } from '../../src/domain/events/render-events.js';
import { nowIso, type Db } from '../../src/infra/db/database.js';
import type { VideosTable } from '../../src/infra/db/schema.js';
import type { PubSub } from '../../src/domain/ports/pubsub.js';

/**
 * A queued render as render creation leaves it (row, reservation, `queued` event), without going
 * through media checks: for tests of what happens after creation (state machine, stream, queue).
 */
export async function insertQueuedRender(
  deps: { db: Db; pubsub: PubSub },
  accountId: string,
  opts: { reserveCredits?: number; requestId?: string; characterSource?: object; motionSource?: object } = {},
): Promise<VideosTable> {
  const id = newId('render');
  const now = nowIso();
  const credits = opts.reserveCredits ?? 5;
  const row: VideosTable = {
    id,
    account_id: accountId,
    kind: 'render',
    status: 'queued',
    progress: 0,
    stage: null,
    background_mode: 'original',
    bg_color: null,
    character_source: JSON.stringify(opts.characterSource ?? { kind: 'builtin' }),
    motion_source: JSON.stringify(opts.motionSource ?? { kind: 'template', id: 'test' }),
    video_key: null,
    alpha_key: null,
    estimated_ms: credits * 1000,
    duration_ms: null,
    reserved_milli: credits * 1000,
    error_json: null,
    request_id: opts.requestId ?? `req_${id}`,
    service_source: null,
    draft_id: null,
    created_at: now,
    updated_at: now,
    started_at: null,
    completed_at: null,
  };
  await deps.db.transaction().execute(async (tx) => {
    await tx.insertInto('videos').values(row).execute();
    if (credits > 0) await reserve(tx, accountId, id, credits * 1000);
    await appendRenderEvent(tx, row, 'queued');
  });
  await announceRenderEvent(deps.pubsub, id);
  return row;
}

export async function ledgerOf(db: Db, resourceId: string) {
  return db
    .selectFrom('ledger')
    .select(['kind', 'amount_milli', 'reserved_delta_milli'])
    .where('resource_id', '=', resourceId)
    .orderBy('id')
    .execute();
}

export async function balanceMilli(db: Db, accountId: string): Promise<{ available: number; reserved: number }> {
  const b = await db.selectFrom('balances').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return { available: Number(b.available_milli), reserved: Number(b.reserved_milli) };
}
