import type { Db } from '../../infra/db/database.js';
import type { AccountsTable, ApiKeysTable } from '../../infra/db/schema.js';

export async function insertAccount(tx: Db, row: AccountsTable): Promise<void> {
  await tx.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Db, id: string): Promise<AccountsTable | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countAccounts(db: Db): Promise<number> {
  const r = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function setDefaults(db: Db, id: string, characterId: string | null, motionId: string | null): Promise<number> {
  const r = await db.updateTable('accounts').set({ default_character_id: characterId, default_motion_id: motionId }).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function insertKey(tx: Db, row: ApiKeysTable): Promise<void> {
  await tx.insertInto('api_keys').values(row).execute();
}

export async function findKeyByHash(db: Db, hash: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('secret_hash', '=', hash).executeTakeFirst();
}

export async function revokeKey(db: Db, id: string, at: string): Promise<number> {
  const r = await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function findKey(db: Db, id: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function touchKey(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
