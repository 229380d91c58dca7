import { newId } from '../../contracts/ids.js';
import { nowIso, type Db } from '../../infra/db/database.js';
import type { PubSub } from '../ports/pubsub.js';
import type { RenderEventsTable, VideosTable } from '../../infra/db/schema.js';

/**
 * Stored render events (spec section 6). Each state change of a render appends one row in the
 * same transaction as the change, with the next `sequence` for that render; the (render_id,
 * sequence) unique constraint turns a lost race into an error instead of a duplicate. After the
 * transaction commits, the writer calls `announceRenderEvent`: a pub/sub hint telling every
 * process that streams this render to read the new rows. Streams never trust the hint's content,
 * only the stored history, so a missed hint costs latency, not correctness.
 */
export type RenderEventType = RenderEventsTable['type'];

/** The event data as stored: everything but the signed URLs, which are made fresh at send time. */
export interface StoredRenderEventData {
  id: string;
  status: VideosTable['status'];
  stage: VideosTable['stage'];
  progress: number | null;
  completed_at: string | null;
  error: Record<string, unknown> | null;
  has_video: boolean;
  has_alpha: boolean;
}

export interface RenderEventRow {
  event_id: string;
  sequence: number;
  type: RenderEventType;
  occurred_at: string;
  data: StoredRenderEventData;
}

export function renderChannel(renderId: string): string {
  return `render-events:${renderId}`;
}

export async function appendRenderEvent(tx: Db, video: VideosTable, type: RenderEventType): Promise<RenderEventRow> {
  const last = await tx
    .selectFrom('render_events')
    .select((eb) => eb.fn.max<number>('sequence').as('seq'))
    .where('render_id', '=', video.id)
    .executeTakeFirst();
  const sequence = Number(last?.seq ?? 0) + 1;
  const data: StoredRenderEventData = {
    id: video.id,
    status: video.status,
    stage: video.stage,
    progress: video.progress,
    completed_at: video.completed_at,
    error: video.error_json ? (JSON.parse(video.error_json) as Record<string, unknown>) : null,
    has_video: video.video_key !== null,
    has_alpha: video.alpha_key !== null,
  };
  const row = { id: newId('event'), render_id: video.id, sequence, type, data_json: JSON.stringify(data), occurred_at: nowIso() };
  await tx.insertInto('render_events').values(row).execute();
  return { event_id: row.id, sequence, type, occurred_at: row.occurred_at, data };
}

export async function announceRenderEvent(pubsub: PubSub, renderId: string): Promise<void> {
  await pubsub.publish(renderChannel(renderId), renderId);
}

export async function eventsAfter(db: Db, renderId: string, afterSequence: number): Promise<RenderEventRow[]> {
  const rows = await db
    .selectFrom('render_events')
    .selectAll()
    .where('render_id', '=', renderId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .execute();
  return rows.map(toRow);
}

export async function findEvent(db: Db, renderId: string, eventId: string): Promise<RenderEventRow | undefined> {
  const r = await db.selectFrom('render_events').selectAll().where('render_id', '=', renderId).where('id', '=', eventId).executeTakeFirst();
  return r ? toRow(r) : undefined;
}

export async function latestEvent(db: Db, renderId: string): Promise<RenderEventRow | undefined> {
  const r = await db
    .selectFrom('render_events')
    .selectAll()
    .where('render_id', '=', renderId)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? toRow(r) : undefined;
}

function toRow(r: RenderEventsTable): RenderEventRow {
  return {
    event_id: r.id,
    sequence: Number(r.sequence),
    type: r.type,
    occurred_at: r.occurred_at,
    data: JSON.parse(r.data_json) as StoredRenderEventData,
  };
}
