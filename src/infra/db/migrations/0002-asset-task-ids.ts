import type { Kysely } from 'kysely';

/**
 * A `task_id` names one piece of work of an account (spec 4.3: "reuse for separate work causes a
 * conflict"). The unique indexes make that hold under concurrent creations too; NULLs are distinct
 * in both SQLite and PostgreSQL, so assets without a task_id are unaffected.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('characters_account_task_uq').on('characters').columns(['account_id', 'task_id']).unique().execute();
  await db.schema.createIndex('motions_account_task_uq').on('motions').columns(['account_id', 'task_id']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('motions_account_task_uq').ifExists().execute();
  await db.schema.dropIndex('characters_account_task_uq').ifExists().execute();
}
