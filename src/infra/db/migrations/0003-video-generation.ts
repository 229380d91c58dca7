import type { Kysely } from 'kysely';

/**
 * POST /v1/videos: H3 and character-animation videos share the `videos` table with renders; they add
 * their validated request (`params_json`), the seed used and, with enhance_mode=prompt, the expanded
 * prompt. All nullable, so existing rows and renders are unaffected.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('videos').addColumn('params_json', 'text').execute();
  await db.schema.alterTable('videos').addColumn('seed', 'bigint').execute();
  await db.schema.alterTable('videos').addColumn('enhanced_prompt', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('videos').dropColumn('enhanced_prompt').execute();
  await db.schema.alterTable('videos').dropColumn('seed').execute();
  await db.schema.alterTable('videos').dropColumn('params_json').execute();
}
