import type { Db } from '../db/database.js';
import type { JobsTable } from '../db/schema.js';
import type { JobContext, JobHandler, JobType } from '../../domain/ports/job-queue.js';
import { classifyFailure, exhaustedError } from './job-errors.js';
import * as jobs from './jobs.repository.js';

/**
 * The job semantics both queues share (embedded-queue.ts claims rows itself, bullmq-queue.ts gets
 * them delivered by BullMQ; everything after the claim is here, once):
 *
 * - an attempt past the last one (a stalled job reclaimed) fails without running again;
 * - the row lease is extended while the handler runs; a refused extension (cancelled, taken over)
 *   aborts the handler;
 * - success completes the row; a permanent failure (the input's fault) fails the resource with its
 *   public code; a temporary one is retried with exponential backoff until the attempts run out,
 *   then fails with INTERNAL_ERROR or SERVICE_BUSY;
 * - an aborted run writes nothing when it was cancelled (the canceller wrote the row) or lost its
 *   lease (another worker owns the job now), and hands the attempt back when the worker is stopping;
 * - only the row's owner decides the job's fate: a run that lost its lease stays silent.
 *
 * Exactly-once effects come from the handlers (terminal transitions are no-ops, billing is keyed by
 * resource), not from the queue.
 */
export interface JobRunnerOptions {
  workerId: string;
  /** How long a claim holds without a heartbeat. */
  leaseMs: number;
  heartbeatMs: number;
  /** First retry delay after a temporary failure; doubles per attempt up to `maxRetryDelayMs`. */
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
  /** Where infrastructure trouble (database unreachable mid-job) is reported. */
  onError?: (message: string, err: unknown) => void;
}

/** Why a running job's signal was aborted; the handler only sees an AbortError. */
export type AbortReason = 'cancelled' | 'lease-lost' | 'shutdown';

/** The channel on which cancellations reach the process running the job. */
export const JOB_CANCEL_CHANNEL = 'jobs:cancel';

/** What became of one run, as written on the row. */
export type JobOutcome =
  | { kind: 'completed' }
  | { kind: 'failed' }
  /** Queued again for a later attempt (`runAt`) after a temporary failure. */
  | { kind: 'retry'; message: string; delayMs: number }
  /** The worker is stopping: queued again at once, the attempt not counted. */
  | { kind: 'handed-back' }
  /** Cancelled, or taken over by another worker: the row is someone else's to write. */
  | { kind: 'dropped' };

/** Keeps a job's lease alive while it runs; calls `lost(cancelled)` when the row is no longer ours. Returns the stop function. */
export type LeaseHolder = (jobId: string, lost: (cancelled: boolean) => void) => () => void;

export interface RunningJob {
  resourceId: string;
  controller: AbortController;
}

export class JobRunner {
  /** The jobs this process is running now, by row ID. */
  readonly running = new Map<string, RunningJob>();

  constructor(
    private readonly db: Db,
    private readonly opts: JobRunnerOptions,
  ) {}

  /** The handler's view of a claimed row. */
  context(row: JobsTable, signal: AbortSignal): JobContext {
    return {
      id: row.id,
      type: row.type as JobType,
      resourceId: row.resource_id,
      payload: JSON.parse(row.payload_json) as Record<string, unknown>,
      attempt: Number(row.attempts),
      maxAttempts: Number(row.max_attempts),
      signal,
    };
  }

  /** Aborts this process's runs of a resource's jobs (a cancellation message). */
  abortResource(resourceId: string, reason: AbortReason): void {
    for (const r of this.running.values()) if (r.resourceId === resourceId) r.controller.abort(reason);
  }

  /** Aborts every run (shutdown). */
  abortAll(reason: AbortReason): void {
    for (const r of this.running.values()) r.controller.abort(reason);
  }

  /**
   * Runs a claimed row's handler and records the outcome on the row. `hold` keeps the lease alive
   * (a worker thread's keeper); by default a heartbeat on this event loop does.
   */
  async run(row: JobsTable, handler: JobHandler, hold?: LeaseHolder): Promise<JobOutcome> {
    const controller = new AbortController();
    const ctx = this.context(row, controller.signal);
    this.running.set(row.id, { resourceId: row.resource_id, controller });
    try {
      return await this.execute(ctx, handler, controller, hold ?? ((id, lost) => this.heartbeat(id, controller, lost)));
    } finally {
      this.running.delete(row.id);
    }
  }

  private async execute(ctx: JobContext, handler: JobHandler, controller: AbortController, hold: LeaseHolder): Promise<JobOutcome> {
    const owner = this.opts.workerId;
    if (ctx.attempt > ctx.maxAttempts) {
      // A stalled job reclaimed after its last attempt: give up without running it again.
      await handler.fail(ctx, exhaustedError(ctx.maxAttempts, false));
      await jobs.releaseJob(this.db, ctx.id, owner, { status: 'failed', lastError: 'stalled on its last attempt', now: nowIso() });
      return { kind: 'failed' };
    }
    const stop = hold(ctx.id, (cancelled) => {
      if (!controller.signal.aborted) controller.abort((cancelled ? 'cancelled' : 'lease-lost') satisfies AbortReason);
    });
    try {
      await handler.run(ctx);
    } catch (e) {
      // The lease is still held while the handler's `fail` runs.
      return await this.onFailure(ctx, handler, e);
    } finally {
      stop();
    }
    await jobs.releaseJob(this.db, ctx.id, owner, { status: 'completed', now: nowIso() });
    return { kind: 'completed' };
  }

  private async onFailure(ctx: JobContext, handler: JobHandler, e: unknown): Promise<JobOutcome> {
    const owner = this.opts.workerId;
    const now = nowIso();
    if (ctx.signal.aborted) {
      // Cancelled: the canceller already wrote the job row and the resource's state.
      // Lease lost: another worker owns the job now. Shutdown: hand the attempt back.
      if ((ctx.signal.reason as AbortReason) !== 'shutdown') return { kind: 'dropped' };
      await jobs.releaseJob(this.db, ctx.id, owner, { status: 'queued', attemptsDelta: -1, runAt: now, lastError: 'worker stopped', now });
      return { kind: 'handed-back' };
    }
    // A run that lost its lease (it froze past the lease and another worker claimed the job) must
    // not fail the resource the new owner is working on.
    if (!(await jobs.extendLease(this.db, ctx.id, owner, new Date(Date.now() + this.opts.leaseMs).toISOString(), now)))
      return { kind: 'dropped' };
    const c = classifyFailure(e);
    if (c.kind === 'permanent') {
      await handler.fail(ctx, c.error);
      await jobs.releaseJob(this.db, ctx.id, owner, { status: 'failed', lastError: `${c.error.code}: ${c.error.message}`, now });
      return { kind: 'failed' };
    }
    if (ctx.attempt < ctx.maxAttempts) {
      const delayMs = this.retryDelay(ctx.attempt);
      await jobs.releaseJob(this.db, ctx.id, owner, {
        status: 'queued',
        runAt: new Date(Date.now() + delayMs).toISOString(),
        lastError: c.message,
        now,
      });
      return { kind: 'retry', message: c.message, delayMs };
    }
    await handler.fail(ctx, exhaustedError(ctx.attempt, c.busy));
    await jobs.releaseJob(this.db, ctx.id, owner, { status: 'failed', lastError: c.message, now });
    return { kind: 'failed' };
  }

  /** Exponential backoff with +-20 % jitter so retries of a burst do not land together. */
  retryDelay(attempt: number): number {
    const base = this.opts.retryBaseMs ?? 1000;
    const max = this.opts.maxRetryDelayMs ?? 60_000;
    const d = Math.min(max, base * 2 ** (Math.max(1, attempt) - 1));
    return Math.round(d * (0.8 + Math.random() * 0.4));
  }

  /**
   * Extends the lease every `heartbeatMs` from this event loop. A refused extension means the row
   * is no longer ours: cancelled (by an admin in another process) or reclaimed after we stalled.
   */
  private heartbeat(jobId: string, controller: AbortController, lost: (cancelled: boolean) => void): () => void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy || controller.signal.aborted) return;
      busy = true;
      const now = Date.now();
      jobs
        .extendLease(this.db, jobId, this.opts.workerId, new Date(now + this.opts.leaseMs).toISOString(), new Date(now).toISOString())
        .then(async (ok) => {
          if (ok) return;
          const row = await jobs.findJob(this.db, jobId);
          lost(row?.status === 'cancelled');
        })
        .catch((e) => this.report(`heartbeat of job ${jobId} failed`, e))
        .finally(() => (busy = false));
    }, this.opts.heartbeatMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  report(message: string, err: unknown): void {
    if (this.opts.onError) this.opts.onError(message, err);
    else
      process.stderr.write(`${JSON.stringify({ level: 'error', msg: message, err: err instanceof Error ? err.message : String(err) })}\n`);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

function nowIso(): string {
  return new Date().toISOString();
}
