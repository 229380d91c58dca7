import type { Db } from '../../infra/db/database.js';
import type { AccountsTable, CharactersTable, MotionsTable, VideosTable } from '../../infra/db/schema.js';

/** SQL used by render creation. No rules here: see renders.service.ts. */

export async function insertVideo(tx: Db, row: VideosTable): Promise<void> {
  await tx.insertInto('videos').values(row).execute();
}

export async function findRender(db: Db, accountId: string, id: string): Promise<VideosTable | undefined> {
  return db
    .selectFrom('videos')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('kind', '=', 'render')
    .executeTakeFirst();
}

export async function accountDefaults(
  db: Db,
  accountId: string,
): Promise<Pick<AccountsTable, 'default_character_id' | 'default_motion_id'> | undefined> {
  return db.selectFrom('accounts').select(['default_character_id', 'default_motion_id']).where('id', '=', accountId).executeTakeFirst();
}

/** A live (not deleted) Character of the account. */
export async function findCharacterForRender(
  db: Db,
  accountId: string,
  id: string,
): Promise<Pick<CharactersTable, 'id' | 'status' | 'type' | 'assets_key' | 'failure_json'> | undefined> {
  return db
    .selectFrom('characters')
    .select(['id', 'status', 'type', 'assets_key', 'failure_json'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A live (not deleted) Motion of the account. */
export async function findMotionForRender(
  db: Db,
  accountId: string,
  id: string,
): Promise<Pick<MotionsTable, 'id' | 'status' | 'type' | 'assets_key' | 'failure_json' | 'duration_ms' | 'template_id'> | undefined> {
  return db
    .selectFrom('motions')
    .select(['id', 'status', 'type', 'assets_key', 'failure_json', 'duration_ms', 'template_id'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
