import { AppError } from '../../contracts/errors.js';
import type { Db } from '../../infra/db/database.js';
import type { IdempotentRequestsTable } from '../../infra/db/schema.js';
import { describeDifference, type Fingerprint, type FingerprintPart } from './fingerprint.js';

/**
 * `Idempotency-Key` on every create (DECISIONS "Renders"; docs/retrying.md). The rules live in the
 * database so they hold across API processes and on SQLite and PostgreSQL alike:
 * - the first request with a key inserts a `pending` row (the (account, key) primary key lets only
 *   one insert win), creates its resource, then records the resource and the status code (`done`);
 * - a later request with the same fingerprint answers that resource, read fresh, with the original
 *   status code: nothing is created or charged;
 * - another fingerprint (or another endpoint) is 409 IDEMPOTENCY_KEY_REUSED naming what differs;
 * - a request that finds the key `pending` waits for it (bounded by `waitMs`), then answers 409 with
 *   `details.reason: "in_progress"` and Retry-After;
 * - a creation that fails (validation, insufficient credits, anything) deletes its pending row: a
 *   refused request does not use up its key, so the corrected request may carry it;
 * - a pending row whose process died is taken over once `locked_until` has passed.
 * Keys are per account and kept 24 hours.
 */

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export interface IdempotencyTiming {
  /** How long a request waits for a concurrent one holding its key. */
  waitMs: number;
  /** How long a pending key stays locked (a process that died holding it). */
  lockMs: number;
  /** How often a waiting request looks at the key again. */
  pollMs?: number;
}

export interface Created<T> {
  resourceId: string;
  statusCode: number;
  body: T;
}

export interface IdempotentRequest<T> {
  accountId: string;
  key: string;
  /** The endpoint, e.g. `POST /v1/characters`: a key names one request to one endpoint. */
  operation: string;
  fingerprint: Fingerprint;
  /** Creates the resource (and charges for it). Called at most once per key while the key lives. */
  create(): Promise<Created<T>>;
  /** Reads the resource created earlier, fresh (current status, fresh signed URLs). */
  replay(resourceId: string): Promise<T>;
}

export interface IdempotentOutcome<T> {
  statusCode: number;
  body: T;
  /** True when the answer is a replay of an earlier request's resource. */
  replayed: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runIdempotent<T>(db: Db, req: IdempotentRequest<T>, timing: IdempotencyTiming): Promise<IdempotentOutcome<T>> {
  const started = Date.now();
  const pollMs = timing.pollMs ?? 100;
  for (;;) {
    const now = Date.now();
    await db
      .deleteFrom('idempotent_requests')
      .where('account_id', '=', req.accountId)
      .where('key', '=', req.key)
      .where('expires_at', '<', iso(now))
      .execute();
    const lockedUntil = iso(now + timing.lockMs);
    const inserted = await db
      .insertInto('idempotent_requests')
      .values({
        account_id: req.accountId,
        key: req.key,
        operation: req.operation,
        fingerprint: req.fingerprint.digest,
        parts_json: JSON.stringify(req.fingerprint.parts),
        state: 'pending',
        resource_id: null,
        status_code: null,
        locked_until: lockedUntil,
        created_at: iso(now),
        expires_at: iso(now + IDEMPOTENCY_KEY_TTL_MS),
      })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return createHolding(db, req, lockedUntil);

    const row = await db
      .selectFrom('idempotent_requests')
      .selectAll()
      .where('account_id', '=', req.accountId)
      .where('key', '=', req.key)
      .executeTakeFirst();
    if (!row) continue; // released (a refused request) or expired between the two statements
    refuseIfDifferent(row, req);
    if (row.state === 'done' && row.resource_id !== null) {
      return { statusCode: Number(row.status_code ?? 200), body: await req.replay(row.resource_id), replayed: true };
    }
    if (row.locked_until < iso(now)) {
      // The process that held the key died before finishing: take the key over (one taker wins).
      const taken = await db
        .updateTable('idempotent_requests')
        .set({ locked_until: lockedUntil })
        .where('account_id', '=', req.accountId)
        .where('key', '=', req.key)
        .where('state', '=', 'pending')
        .where('locked_until', '=', row.locked_until)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) > 0) return createHolding(db, req, lockedUntil);
      continue;
    }
    const waited = now - started;
    if (waited >= timing.waitMs) {
      const retryAfterMs = 1000;
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'A request with this Idempotency-Key is still being handled; retry it shortly with the same key.',
        {
          details: { header: 'Idempotency-Key', reason: 'in_progress' },
          retryable: true,
          action: 'retry_later',
          retryAfterMs,
          headers: { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) },
        },
      );
    }
    await sleep(Math.min(pollMs, timing.waitMs - waited));
  }
}

function refuseIfDifferent(row: IdempotentRequestsTable, req: IdempotentRequest<unknown>): void {
  if (row.operation !== req.operation) {
    throw new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      `This Idempotency-Key was already used for ${row.operation}; use a new key for a new request.`,
      {
        details: { header: 'Idempotency-Key', reason: 'other_endpoint', original_endpoint: row.operation },
      },
    );
  }
  if (row.fingerprint === req.fingerprint.digest) return;
  const diff = describeDifference(JSON.parse(row.parts_json) as FingerprintPart[], req.fingerprint.parts);
  const names = [...diff.changed, ...diff.added, ...diff.removed];
  throw new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    diff.order_changed
      ? 'This Idempotency-Key was already used with the same fields in another order; use a new key for a new request.'
      : `This Idempotency-Key was already used with a different request (${names.join(', ')} differ); use a new key for a new request.`,
    {
      details: {
        header: 'Idempotency-Key',
        reason: 'different_request',
        fields: names,
        changed: diff.changed,
        added: diff.added,
        removed: diff.removed,
        order_changed: diff.order_changed,
      },
    },
  );
}

/** Runs the creation while holding the key; records its outcome, or frees the key when it failed. */
async function createHolding<T>(db: Db, req: IdempotentRequest<T>, lockedUntil: string): Promise<IdempotentOutcome<T>> {
  const mine = (q: any) =>
    q
      .where('account_id', '=', req.accountId)
      .where('key', '=', req.key)
      .where('state', '=', 'pending')
      .where('locked_until', '=', lockedUntil);
  let created: Created<T>;
  try {
    created = await req.create();
  } catch (e) {
    await mine(db.deleteFrom('idempotent_requests')).execute();
    throw e;
  }
  await mine(
    db.updateTable('idempotent_requests').set({ state: 'done', resource_id: created.resourceId, status_code: created.statusCode }),
  ).execute();
  return { statusCode: created.statusCode, body: created.body, replayed: false };
}

/** Removes keys whose 24 hours are over (called by the hourly maintenance). */
export async function deleteExpiredIdempotencyKeys(db: Db, now: string): Promise<number> {
  const r = await db.deleteFrom('idempotent_requests').where('expires_at', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
