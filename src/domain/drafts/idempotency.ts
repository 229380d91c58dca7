import { createHash } from 'node:crypto';
import { AppError, invalidRequest } from '../../contracts/errors.js';
import type { Db } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { canonical } from '../idempotency/fingerprint.js';
import { deleteExpiredIdempotencyKey, findIdempotencyKey, findVideo } from './drafts.repository.js';

/**
 * Idempotency for the draft form of render creation. A key belongs to an account for 24 hours and
 * remembers the hash of the request it first carried and the render that request created. The key
 * row is inserted in the render's own transaction, so "key recorded" and "render created" are one
 * fact; concurrent duplicates collide on the (account_id, key) primary key and replay the winner.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const MAX_KEY_LENGTH = 255;

export function parseIdempotencyKey(raw: string | string[] | undefined): string {
  if (raw === undefined) {
    throw invalidRequest('The Idempotency-Key header is required for the draft form of POST /v1/renders.', { header: 'Idempotency-Key' });
  }
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (Array.isArray(raw) && raw.length > 1) throw invalidRequest('Send one Idempotency-Key header.', { header: 'Idempotency-Key' });
  if (key === undefined || key.length < 1 || key.length > MAX_KEY_LENGTH) {
    throw invalidRequest(`The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`, {
      header: 'Idempotency-Key',
      length: key?.length ?? 0,
    });
  }
  return key;
}

/** Key order and whitespace do not make two requests different; values do. */
export function requestHash(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

/**
 * What an earlier request with this key decided: the render it created (same body) or a refusal
 * (another body). Null when the key is new or its 24 hours are over (the stale row is dropped).
 */
export async function replayIdempotent(db: Db, accountId: string, key: string, hash: string, now: string): Promise<VideosTable | null> {
  await deleteExpiredIdempotencyKey(db, accountId, key, now);
  const row = await findIdempotencyKey(db, accountId, key);
  if (!row) return null;
  if (row.request_hash !== hash) {
    throw new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
      {
        details: { header: 'Idempotency-Key' },
      },
    );
  }
  const video = await findVideo(db, row.render_id);
  if (!video) throw new Error(`idempotency key points at missing render ${row.render_id}`);
  return video;
}
