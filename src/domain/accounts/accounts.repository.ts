import type { Db } from '../../infra/db/database.js';
import type { AccountsTable, ApiKeysTable } from '../../infra/db/schema.js';
import { compiledOnce } from '../../infra/db/compiled.js';

export async function insertAccount(tx: Db, row: AccountsTable): Promise<void> {
  await tx.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Db, id: string): Promise<AccountsTable | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countAccounts(db: Db): Promise<number> {
  const r = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function setDefaults(db: Db, id: string, characterId: string | null, motionId: string | null): Promise<number> {
  const r = await db
    .updateTable('accounts')
    .set({ default_character_id: characterId, default_motion_id: motionId })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function insertKey(tx: Db, row: ApiKeysTable): Promise<void> {
  await tx.insertInto('api_keys').values(row).execute();
}

const keyByHash = compiledOnce((db: Db, hash: string) =>
  db.selectFrom('api_keys').select(['id', 'account_id', 'revoked_at']).where('secret_hash', '=', hash),
);

/** The authentication lookup (hot path: compiled once). */
export async function findKeyByHash(db: Db, hash: string): Promise<Pick<ApiKeysTable, 'id' | 'account_id' | 'revoked_at'> | undefined> {
  return (await keyByHash(db, hash))[0];
}

const revocationState = compiledOnce((db: Db, id: string) => db.selectFrom('api_keys').select('revoked_at').where('id', '=', id));

/** The per-use confirmation of a cached key: undefined when the key no longer exists. */
export async function keyRevocationState(db: Db, id: string): Promise<{ revoked_at: string | null } | undefined> {
  return (await revocationState(db, id))[0];
}

export async function revokeKey(db: Db, id: string, at: string): Promise<number> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function findKey(db: Db, id: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function touchKey(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
