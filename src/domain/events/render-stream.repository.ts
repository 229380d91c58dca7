import type { Db } from '../../infra/db/database.js';

/** SQL for live stream delivery. No rules here: see render-stream.hub.ts. */

/** Latest sequence per render among events whose ID sorts after `idFloor` (IDs are time-ordered). */
export async function recentEventHeads(db: Db, idFloor: string): Promise<{ render_id: string; seq: number }[]> {
  const rows = await db
    .selectFrom('render_events')
    .select(['render_id', (eb) => eb.fn.max<number>('sequence').as('seq')])
    .where('id', '>', idFloor)
    .groupBy('render_id')
    .execute();
  return rows.map((r) => ({ render_id: r.render_id, seq: Number(r.seq) }));
}
