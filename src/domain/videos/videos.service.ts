import { ASSET_STATUSES } from '../../contracts/enums.js';
import { AppError, invalidRequest } from '../../contracts/errors.js';
import { videoFamily } from '../../contracts/ids.js';
import type { AssetStatus } from '../../infra/db/schema.js';
import { presentVideo, type RenderObject } from './videos.presenter.js';
import * as repo from './videos.repository.js';
import type { Ports } from '../ports/index.js';

/** The unified Videos read resource (spec 4.2): one object shape for render_, vid_ and anim_ IDs. */

export const VIDEO_STATUSES: readonly AssetStatus[] = ASSET_STATUSES;
export { LIST_LIMIT } from '../../contracts/schemas/videos.js';
import { LIST_LIMIT } from '../../contracts/schemas/videos.js';

type Deps = Pick<Ports, 'db' | 'storage' | 'config'>;

export async function getVideo(deps: Deps, accountId: string, id: string): Promise<RenderObject> {
  const row = videoFamily(id) ? await repo.findVideo(deps.db, accountId, id) : undefined;
  if (!row) throw new AppError('RENDER_NOT_FOUND', `No video ${id} exists for this account.`, { details: { video_id: id } });
  return presentVideo(deps, row, { links: false });
}

export interface VideoPage {
  items: RenderObject[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Cursors are opaque to clients: base64url of the last item's position. Anything that does not
 * decode to a well-formed position is refused (400) rather than silently restarting the list.
 */
function encodeCursor(p: repo.VideoPosition): string {
  return Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');
}

function decodeCursor(cursor: string): repo.VideoPosition {
  const bad = () => invalidRequest('The cursor is not valid; pass next_cursor from a previous page unchanged.', { field: 'cursor' });
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2) throw bad();
  const [createdAt, id] = v as unknown[];
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)) || typeof id !== 'string' || !videoFamily(id)) throw bad();
  return { createdAt, id };
}

export async function listVideos(
  deps: Deps,
  accountId: string,
  q: { status?: string; cursor?: string; limit?: number },
): Promise<VideoPage> {
  const status = q.status === undefined ? null : (q.status as AssetStatus);
  if (status !== null && !VIDEO_STATUSES.includes(status)) {
    throw invalidRequest(`status must be one of ${VIDEO_STATUSES.join(', ')}.`, {
      field: 'status',
      value: q.status,
      allowed: [...VIDEO_STATUSES],
    });
  }
  const limit = q.limit ?? LIST_LIMIT.default;
  if (!Number.isInteger(limit) || limit < LIST_LIMIT.min || limit > LIST_LIMIT.max) {
    throw invalidRequest(`limit must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}.`, { field: 'limit', value: q.limit });
  }
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor);
  // One extra row tells whether another page exists without a COUNT.
  const rows = await repo.listVideos(deps.db, { accountId, status, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = page[page.length - 1];
  return {
    items: await Promise.all(page.map((r) => presentVideo(deps, r, { links: false }))),
    next_cursor: hasMore && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    has_more: hasMore,
  };
}
