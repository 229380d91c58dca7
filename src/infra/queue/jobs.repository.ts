import { sql } from 'kysely';
import type { Db, DialectName } from '../db/database.js';
import type { JobsTable } from '../db/schema.js';

/** SQL for the `jobs` table. No rules here: see embedded-queue.ts. */

/**
 * Claims the next runnable job of the given types: a queued job whose `run_at` has come, or an
 * active one whose lease expired (its worker died or stalled). The claim takes the lease and counts
 * an attempt in the same statement, so two workers can never both win a job:
 * - PostgreSQL: `FOR UPDATE SKIP LOCKED` makes concurrent claimers pass over each other's row;
 * - SQLite: the transaction is `BEGIN IMMEDIATE` (see database.ts), so claims are serialised.
 */
export async function claimNext(
  db: Db,
  dialect: DialectName,
  input: { types: string[]; owner: string; now: string; leaseUntil: string },
): Promise<JobsTable | undefined> {
  const runnable = (eb: any) =>
    eb.or([
      eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', input.now)]),
      eb.and([eb('status', '=', 'active'), eb('lease_expires_at', '<', input.now)]),
    ]);
  const take = {
    status: 'active' as const,
    attempts: sql<number>`attempts + 1`,
    lease_owner: input.owner,
    lease_expires_at: input.leaseUntil,
    updated_at: input.now,
  };
  const next = (q: Db) => q.selectFrom('jobs').select('id').where('type', 'in', input.types).where(runnable).orderBy('run_at').limit(1);
  if (dialect === 'postgres') {
    return db.updateTable('jobs').set(take).where('id', '=', next(db).forUpdate().skipLocked()).returningAll().executeTakeFirst();
  }
  return db.transaction().execute(async (tx) => {
    const row = await next(tx).executeTakeFirst();
    if (!row) return undefined;
    return tx.updateTable('jobs').set(take).where('id', '=', row.id).returningAll().executeTakeFirst();
  });
}

/** Extends the lease while we still own the job; false when it was cancelled or taken over. */
export async function extendLease(db: Db, id: string, owner: string, leaseUntil: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ lease_expires_at: leaseUntil, updated_at: now })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Ends our hold on a job with a final or retry status; a no-op when we no longer own it. */
export async function releaseJob(
  db: Db,
  id: string,
  owner: string,
  change: { status: JobsTable['status']; runAt?: string; lastError?: string | null; attemptsDelta?: number; now: string },
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      status: change.status,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: change.now,
      ...(change.runAt ? { run_at: change.runAt } : {}),
      ...(change.lastError !== undefined ? { last_error: change.lastError } : {}),
      ...(change.attemptsDelta ? { attempts: sql<number>`attempts + ${change.attemptsDelta}` } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function cancelJobsOf(db: Db, resourceId: string, now: string, discardCompleted = false): Promise<number> {
  const r = await db
    .updateTable('jobs')
    .set({ status: 'cancelled', lease_owner: null, lease_expires_at: null, updated_at: now })
    .where('resource_id', '=', resourceId)
    .where('status', 'in', discardCompleted ? ['queued', 'active', 'completed'] : ['queued', 'active'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function findJob(db: Db, id: string): Promise<JobsTable | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** IDs of jobs that some worker may still be running (active with a live lease). */
export async function liveJobIds(db: Db, ids: string[], now: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('id', 'in', ids)
    .where('status', '=', 'active')
    .where('lease_expires_at', '>=', now)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Removes the stored events of renders and generated videos that reached a terminal state before `cutoff`, except each
 * render's latest (terminal) event, so a snapshot still carries a real event ID.
 */
export async function deleteEventsOfRendersCompletedBefore(db: Db, cutoff: string): Promise<number> {
  const r = await db
    .deleteFrom('render_events')
    .where('render_id', 'in', (eb) =>
      eb.selectFrom('videos').select('id').where('status', 'in', ['ready', 'failed', 'cancelled']).where('completed_at', '<', cutoff),
    )
    .where('sequence', '<', (eb) =>
      eb
        .selectFrom('render_events as latest')
        .select((e) => e.fn.max<number>('latest.sequence').as('m'))
        .whereRef('latest.render_id', '=', 'render_events.render_id'),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Claims one job by ID for a queue that delivers jobs itself (BullMQ holds the lock that makes the
 * delivery exclusive): takes the lease and counts an attempt unless the job already ended.
 */
export async function claimById(
  db: Db,
  id: string,
  input: { owner: string; now: string; leaseUntil: string },
): Promise<JobsTable | undefined> {
  return db
    .updateTable('jobs')
    .set({
      status: 'active',
      attempts: sql<number>`attempts + 1`,
      lease_owner: input.owner,
      lease_expires_at: input.leaseUntil,
      updated_at: input.now,
    })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'active'])
    .returningAll()
    .executeTakeFirst();
}

/** Jobs a relay must (re)deliver: queued ones, and active ones whose lease lapsed long ago. */
export async function jobsToRelay(
  db: Db,
  input: { types: string[] | null; staleBefore: string; limit: number },
): Promise<Pick<JobsTable, 'id' | 'type' | 'run_at' | 'max_attempts'>[]> {
  let q = db
    .selectFrom('jobs')
    .select(['id', 'type', 'run_at', 'max_attempts'])
    .where((eb) =>
      eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'active'), eb('lease_expires_at', '<', input.staleBefore)])]),
    );
  if (input.types) q = q.where('type', 'in', input.types);
  return q.orderBy('run_at').limit(input.limit).execute();
}

/** Queued jobs by type (queue depth for metrics). */
export async function queuedCounts(db: Db): Promise<{ type: string; status: string; n: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['type', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['queued', 'active'])
    .groupBy(['type', 'status'])
    .execute();
  return rows.map((r) => ({ type: r.type, status: r.status, n: Number(r.n) }));
}
