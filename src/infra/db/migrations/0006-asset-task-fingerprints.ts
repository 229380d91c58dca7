import type { Kysely } from 'kysely';

/**
 * `task_id` replays (DECISIONS "3D outputs": the same task_id with the same request returns the
 * existing asset): the digest of the request that first used the task_id
 * (src/domain/assets/task-fingerprint.ts). Null for assets without a task_id and for those created
 * before this column, whose task_id then only conflicts, as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('characters').addColumn('task_fingerprint', 'text').execute();
  await db.schema.alterTable('motions').addColumn('task_fingerprint', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('motions').dropColumn('task_fingerprint').execute();
  await db.schema.alterTable('characters').dropColumn('task_fingerprint').execute();
}
