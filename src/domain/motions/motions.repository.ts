import type { Db } from '../../infra/db/database.js';
import type { MotionsTable } from '../../infra/db/schema.js';

/** SQL for Motions. No rules here: see motions.service.ts and motions.state.ts. */

export async function insertMotion(tx: Db, row: MotionsTable): Promise<void> {
  await tx.insertInto('motions').values(row).execute();
}

/** An active (not deleted) Motion of the account. */
export async function findOwned(db: Db, accountId: string, id: string): Promise<MotionsTable | undefined> {
  return db
    .selectFrom('motions')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Any Motion of the account (deleted ones included) that carries this task_id. */
export async function findByTaskId(
  db: Db,
  accountId: string,
  taskId: string,
): Promise<Pick<MotionsTable, 'id' | 'task_fingerprint' | 'deleted_at'> | undefined> {
  return db
    .selectFrom('motions')
    .select(['id', 'task_fingerprint', 'deleted_at'])
    .where('account_id', '=', accountId)
    .where('task_id', '=', taskId)
    .executeTakeFirst();
}

export async function softDelete(db: Db, accountId: string, id: string, at: string): Promise<number> {
  const r = await db
    .updateTable('motions')
    .set({ deleted_at: at, updated_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Reads a row for a state change after taking its row lock: the no-op UPDATE locks the row in
 * PostgreSQL (SQLite's BEGIN IMMEDIATE already holds the write lock), so two racing transitions of
 * one Motion run one after the other and the second sees the first's result.
 */
export async function lockForUpdate(tx: Db, id: string): Promise<MotionsTable | undefined> {
  await tx
    .updateTable('motions')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .execute();
  return tx.selectFrom('motions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateMotion(tx: Db, id: string, patch: Partial<Omit<MotionsTable, 'id' | 'account_id'>>): Promise<MotionsTable> {
  await tx.updateTable('motions').set(patch).where('id', '=', id).execute();
  return tx.selectFrom('motions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** One page, newest first, strictly after (older than) `beforeId` when given. */
export async function listPage(db: Db, accountId: string, limit: number, beforeId: string | null): Promise<MotionsTable[]> {
  let q = db.selectFrom('motions').selectAll().where('account_id', '=', accountId).where('deleted_at', 'is', null);
  if (beforeId !== null) q = q.where('id', '<', beforeId);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** One offset page of the active Motions, newest first (the Legacy scene list pages by offset). */
export async function listActiveOffset(db: Db, accountId: string, limit: number, offset: number): Promise<MotionsTable[]> {
  return db
    .selectFrom('motions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}
