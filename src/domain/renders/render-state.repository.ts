import type { Db } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';

/** SQL for render state changes. No rules here: see renders.state.ts. */

/**
 * Locks a render or generated video (any kind: the state machine is shared) that is still active and returns it. The no-op UPDATE takes PostgreSQL's row lock
 * (SQLite's BEGIN IMMEDIATE already holds the write lock), so two racing transitions of one render
 * run one after the other and the second sees the first's result.
 */
export async function lockActiveRender(tx: Db, id: string, now: string): Promise<VideosTable | undefined> {
  const r = await tx
    .updateTable('videos')
    .set({ updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return undefined;
  return tx.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateRender(tx: Db, id: string, patch: Partial<VideosTable>): Promise<VideosTable> {
  await tx.updateTable('videos').set(patch).where('id', '=', id).execute();
  return tx.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function findRenderById(db: Db, id: string): Promise<VideosTable | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', id).where('kind', '=', 'render').executeTakeFirst();
}
