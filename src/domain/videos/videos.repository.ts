import type { Db } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';

/** SQL for the Videos read resource (renders, H3 and character-animation videos share `videos`). */

export async function findVideo(db: Db, accountId: string, id: string): Promise<VideosTable | undefined> {
  return db.selectFrom('videos').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export interface VideoPosition {
  createdAt: string;
  id: string;
}

/**
 * Newest first by (created_at, id). IDs of different families (render_, vid_, anim_) do not sort
 * by time among themselves, so the creation time leads and the ID only breaks ties.
 */
export async function listVideos(
  db: Db,
  q: { accountId: string; status: VideosTable['status'] | null; after: VideoPosition | null; limit: number },
): Promise<VideosTable[]> {
  let query = db.selectFrom('videos').selectAll().where('account_id', '=', q.accountId);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.after) {
    const { createdAt, id } = q.after;
    query = query.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}
