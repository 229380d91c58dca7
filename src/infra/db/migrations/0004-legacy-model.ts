import type { Kysely } from 'kysely';

/**
 * The Legacy interface (/api) accepts a `model` field on character preprocessing and records it
 * (DECISIONS "Legacy interface"); V1 has no such field. Nullable, so every other row is unaffected.
 * Renders record it in `params_json` instead.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('characters').addColumn('legacy_model', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('characters').dropColumn('legacy_model').execute();
}
