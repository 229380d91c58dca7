import type { Db } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { compiledOnce } from '../../infra/db/compiled.js';

/** SQL for the Videos read resource (renders, H3 and character-animation videos share `videos`). */

/** The read paths below run on every poll: their SQL is compiled once per database. */
const videoById = compiledOnce((db: Db, accountId: string, id: string) =>
  db.selectFrom('videos').selectAll().where('id', '=', id).where('account_id', '=', accountId),
);

export async function findVideo(db: Db, accountId: string, id: string): Promise<VideosTable | undefined> {
  return (await videoById(db, accountId, id))[0];
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
  const { accountId, status, after, limit } = q;
  if (status === null && after === null) return listFirst(db, accountId, limit);
  if (status !== null && after === null) return listFirstWithStatus(db, accountId, status, limit);
  if (status === null) return listAfter(db, accountId, after!.createdAt, after!.id, limit);
  return listAfterWithStatus(db, accountId, status, after!.createdAt, after!.id, limit);
}

// One compiled query per shape of the list (status filter or not, first page or not).
const newestFirst = <Q extends { orderBy: (c: 'created_at' | 'id', d: 'desc') => Q; limit: (n: number) => Q }>(q: Q, limit: number) =>
  q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
const listFirst = compiledOnce((db: Db, accountId: string, limit: number) =>
  newestFirst(db.selectFrom('videos').selectAll().where('account_id', '=', accountId), limit),
);
const listFirstWithStatus = compiledOnce((db: Db, accountId: string, status: string, limit: number) =>
  newestFirst(
    db
      .selectFrom('videos')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', status as VideosTable['status']),
    limit,
  ),
);
const listAfter = compiledOnce((db: Db, accountId: string, createdAt: string, id: string, limit: number) =>
  newestFirst(
    db
      .selectFrom('videos')
      .selectAll()
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])])),
    limit,
  ),
);
const listAfterWithStatus = compiledOnce((db: Db, accountId: string, status: string, createdAt: string, id: string, limit: number) =>
  newestFirst(
    db
      .selectFrom('videos')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', status as VideosTable['status'])
      .where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])])),
    limit,
  ),
);
