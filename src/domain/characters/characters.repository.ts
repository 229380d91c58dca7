import type { Db } from '../../infra/db/database.js';
import type { CharactersTable } from '../../infra/db/schema.js';

/** SQL for Characters. No rules here: see characters.service.ts and characters.state.ts. */

export async function insertCharacter(tx: Db, row: CharactersTable): Promise<void> {
  await tx.insertInto('characters').values(row).execute();
}

/** An active (not deleted) Character of the account. */
export async function findOwned(db: Db, accountId: string, id: string): Promise<CharactersTable | undefined> {
  return db
    .selectFrom('characters')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Newest first: IDs are ULIDs, so ID order is creation order. */
export async function listActive(db: Db, accountId: string, limit: number): Promise<CharactersTable[]> {
  return db
    .selectFrom('characters')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** One offset page of the active Characters, newest first (the Legacy list pages by offset). */
export async function listActiveOffset(db: Db, accountId: string, limit: number, offset: number): Promise<CharactersTable[]> {
  return db
    .selectFrom('characters')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Any Character of the account (deleted ones included) that carries this task_id. */
export async function findByTaskId(
  db: Db,
  accountId: string,
  taskId: string,
): Promise<Pick<CharactersTable, 'id' | 'task_fingerprint' | 'deleted_at'> | undefined> {
  return db
    .selectFrom('characters')
    .select(['id', 'task_fingerprint', 'deleted_at'])
    .where('account_id', '=', accountId)
    .where('task_id', '=', taskId)
    .executeTakeFirst();
}

export async function softDelete(db: Db, accountId: string, id: string, at: string): Promise<number> {
  const r = await db
    .updateTable('characters')
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
 * one Character run one after the other and the second sees the first's result.
 */
export async function lockForUpdate(tx: Db, id: string): Promise<CharactersTable | undefined> {
  await tx
    .updateTable('characters')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .execute();
  return tx.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateCharacter(
  tx: Db,
  id: string,
  patch: Partial<Omit<CharactersTable, 'id' | 'account_id'>>,
): Promise<CharactersTable> {
  await tx.updateTable('characters').set(patch).where('id', '=', id).execute();
  return tx.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
