import type { Db } from '../../infra/db/database.js';
import type { DraftsTable, IdempotencyKeysTable, UploadsTable } from '../../infra/db/schema.js';

/** SQL for drafts, their uploads and idempotency keys. No rules here: see drafts.service.ts. */

export async function insertDraft(tx: Db, draft: DraftsTable, uploads: UploadsTable[]): Promise<void> {
  await tx.insertInto('drafts').values(draft).execute();
  if (uploads.length > 0) await tx.insertInto('uploads').values(uploads).execute();
}

export async function findDraft(db: Db, accountId: string, id: string): Promise<DraftsTable | undefined> {
  return db.selectFrom('drafts').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export async function findDraftById(db: Db, id: string): Promise<DraftsTable | undefined> {
  return db.selectFrom('drafts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function uploadsOf(db: Db, draftId: string): Promise<UploadsTable[]> {
  return db.selectFrom('uploads').selectAll().where('draft_id', '=', draftId).orderBy('field').execute();
}

export async function findUploadByKey(db: Db, storageKey: string): Promise<UploadsTable | undefined> {
  return db.selectFrom('uploads').selectAll().where('storage_key', '=', storageKey).executeTakeFirst();
}

export async function setUploadStatus(db: Db, id: string, status: UploadsTable['status'], uploadedAt: string | null): Promise<void> {
  await db.updateTable('uploads').set({ status, uploaded_at: uploadedAt }).where('id', '=', id).execute();
}

/** Consumes an open draft; false when another request consumed it first (the row is the lock). */
export async function consumeDraft(tx: Db, id: string, renderId: string): Promise<boolean> {
  const r = await tx
    .updateTable('drafts')
    .set({ status: 'consumed', render_id: renderId })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Takes the draft's row lock for the rest of the transaction, if the draft is still open and
 * unexpired (a no-op write: PostgreSQL locks the row and re-checks the condition after a concurrent
 * consumer commits). False when the draft is gone, consumed or expired.
 */
export async function lockOpenDraft(tx: Db, id: string, now: string): Promise<boolean> {
  const r = await tx
    .updateTable('drafts')
    .set({ status: 'open' })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function findIdempotencyKey(db: Db, accountId: string, key: string): Promise<IdempotencyKeysTable | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();
}

/** Throws a unique violation when the (account, key) pair exists: that is how concurrent duplicates meet. */
export async function insertIdempotencyKey(tx: Db, row: IdempotencyKeysTable): Promise<void> {
  await tx.insertInto('idempotency_keys').values(row).execute();
}

export async function deleteExpiredIdempotencyKey(db: Db, accountId: string, key: string, now: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('expires_at', '<=', now)
    .execute();
}

/**
 * Open drafts that expired before `before`, of one account or (null) of every account; consumed ones
 * stay: renders use their uploads.
 */
export async function expiredOpenDrafts(db: Db, accountId: string | null, before: string, limit: number): Promise<string[]> {
  let q = db.selectFrom('drafts').select('id').where('status', '=', 'open').where('expires_at', '<', before);
  if (accountId !== null) q = q.where('account_id', '=', accountId);
  const rows = await q.limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function deleteDrafts(tx: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.deleteFrom('uploads').where('draft_id', 'in', ids).execute();
  await tx.deleteFrom('drafts').where('id', 'in', ids).where('status', '=', 'open').execute();
}

/** Idempotency keys past their expiry, of one account or (null) of every account. */
export async function deleteExpiredIdempotencyKeys(db: Db, accountId: string | null, now: string): Promise<void> {
  let q = db.deleteFrom('idempotency_keys').where('expires_at', '<=', now);
  if (accountId !== null) q = q.where('account_id', '=', accountId);
  await q.execute();
}

export async function findVideo(db: Db, id: string) {
  return db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
}
