import type { Kysely } from 'kysely';

/**
 * `GET /v1/videos` lists newest first by (created_at, id) (src/domain/videos/videos.repository.ts).
 * The indexes of 0001 are by (account_id, id), so every page sorted all of the account's videos in
 * a temporary b-tree: fine for ten, not for a hundred thousand. These serve each page by a seek and
 * a short walk, with and without the status filter.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('videos_account_created_idx').on('videos').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('videos_account_status_created_idx')
    .on('videos')
    .columns(['account_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('videos_account_status_created_idx').execute();
  await db.schema.dropIndex('videos_account_created_idx').execute();
}
