import type { Db, DialectName } from '../db/database.js';
import type { PubSub } from '../../domain/ports/pubsub.js';
import type { JobsTable } from '../db/schema.js';
import { classifyFailure, exhaustedError } from './job-errors.js';
import * as jobs from './jobs.repository.js';
import { enqueueInTx } from './outbox.js';
import type { EnqueueInput, JobContext, JobHandler, JobQueue, JobType, QueueWorkerOptions } from '../../domain/ports/job-queue.js';
import { LeaseKeeper } from './lease-keeper.js';

export interface EmbeddedQueueOptions {
  workerId: string;
  /** How long a claim holds without a heartbeat; a job whose lease lapses is reclaimed (stalled). */
  leaseMs: number;
  heartbeatMs: number;
  pollMs: number;
  dialect: DialectName;
  /** First retry delay after a temporary failure; doubles per attempt up to `maxRetryDelayMs`. */
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
  /** How long stop() waits for aborted handlers before handing their jobs back anyway. */
  shutdownGraceMs?: number;
  /**
   * Renew leases from a worker thread with its own connection to this database (lease-keeper.ts),
   * so a main thread busy with a long CPU step keeps its jobs. Without it (in-memory SQLite, unit
   * tests) the heartbeat runs on the main event loop.
   */
  leaseKeeper?: { url: string; schema: string | null; maxSilenceMs?: number };
  /** Where infrastructure trouble (database unreachable mid-job) is reported. */
  onError?: (message: string, err: unknown) => void;
}

/** Why a running job's signal was aborted; the handler only sees an AbortError. */
export type AbortReason = 'cancelled' | 'lease-lost' | 'shutdown';

export const JOB_CANCEL_CHANNEL = 'jobs:cancel';

interface Running {
  resourceId: string;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Durable jobs in the service's own database (the `jobs` table written by `enqueueInTx`), in the
 * style of pg-boss: a job is claimed with a lease, the lease is extended by heartbeats while the
 * handler runs, and a job whose lease lapsed (its process died or froze) is claimed again by any
 * worker, counting an attempt. Exactly-once effects do not come from the queue (a job can run twice
 * after a crash) but from the handlers: transitions are no-ops on terminal resources and billing is
 * keyed by resource.
 */
export class EmbeddedQueue implements JobQueue {
  private handlers: Partial<Record<JobType, JobHandler>> = {};
  private readonly running = new Map<string, Running>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private keeper: LeaseKeeper | null = null;

  constructor(
    private readonly db: Db,
    private readonly pubsub: PubSub,
    private readonly opts: EmbeddedQueueOptions,
  ) {}

  async start(handlers: Partial<Record<JobType, JobHandler>>, opts: QueueWorkerOptions): Promise<void> {
    if (this.loop) throw new Error('queue already started');
    this.handlers = handlers;
    this.stopping = false;
    this.unsubscribe = await this.pubsub.subscribe(JOB_CANCEL_CHANNEL, (resourceId) => this.abortResource(resourceId, 'cancelled'));
    const k = this.opts.leaseKeeper;
    if (k && !k.url.endsWith(':memory:')) {
      this.keeper = new LeaseKeeper(
        {
          url: k.url,
          schema: k.schema,
          leaseMs: this.opts.leaseMs,
          heartbeatMs: this.opts.heartbeatMs,
          maxSilenceMs: k.maxSilenceMs ?? 10 * 60_000,
        },
        (message) => this.report(message, null),
      );
      await this.keeper.start();
    }
    this.loop = this.pollLoop(Math.max(1, opts.concurrency));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
    for (const r of this.running.values()) r.controller.abort('shutdown' satisfies AbortReason);
    // A handler that ignores its signal must not hold shutdown forever; its lease then lapses and
    // another worker takes the job over.
    await Promise.race([Promise.allSettled([...this.running.values()].map((r) => r.done)), delay(this.opts.shutdownGraceMs ?? 15_000)]);
    // Hand back what is still running (the process exits next) so another worker claims it at
    // once instead of after the lease lapses; the stray run's later writes are no-ops or idempotent.
    const now = new Date().toISOString();
    for (const id of this.running.keys()) {
      await jobs
        .releaseJob(this.db, id, this.opts.workerId, { status: 'queued', attemptsDelta: -1, runAt: now, lastError: 'worker stopped', now })
        .catch((e) => this.report(`releasing job ${id} at shutdown failed`, e));
    }
    await this.unsubscribe?.();
    this.unsubscribe = null;
    await this.keeper?.close();
    this.keeper = null;
  }

  async cancel(resourceId: string): Promise<void> {
    await jobs.cancelJobsOf(this.db, resourceId, new Date().toISOString());
    // Same-process workers abort at once; workers elsewhere notice on their next heartbeat.
    await this.pubsub.publish(JOB_CANCEL_CHANNEL, resourceId);
  }

  enqueueInTx(tx: Db, input: EnqueueInput): Promise<void> {
    return enqueueInTx(tx, input);
  }

  notify(): void {
    this.wake();
  }

  /** Jobs this process is running now (for tests and health output). */
  activeCount(): number {
    return this.running.size;
  }

  private abortResource(resourceId: string, reason: AbortReason): void {
    for (const r of this.running.values()) if (r.resourceId === resourceId) r.controller.abort(reason);
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async pollLoop(concurrency: number): Promise<void> {
    const types = Object.keys(this.handlers);
    if (types.length === 0) return;
    while (!this.stopping) {
      if (this.running.size >= concurrency) {
        await this.sleep(this.opts.pollMs);
        continue;
      }
      let job: JobsTable | undefined;
      try {
        const now = Date.now();
        job = await jobs.claimNext(this.db, this.opts.dialect, {
          types,
          owner: this.opts.workerId,
          now: new Date(now).toISOString(),
          leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
        });
      } catch (e) {
        this.report('claiming a job failed', e);
      }
      if (!job) {
        await this.sleep(this.opts.pollMs);
        continue;
      }
      this.launch(job);
    }
  }

  private launch(job: JobsTable): void {
    const controller = new AbortController();
    const ctx: JobContext = {
      id: job.id,
      type: job.type as JobType,
      resourceId: job.resource_id,
      payload: JSON.parse(job.payload_json) as Record<string, unknown>,
      attempt: Number(job.attempts),
      maxAttempts: Number(job.max_attempts),
      signal: controller.signal,
    };
    const done = this.execute(ctx, controller).finally(() => {
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, { resourceId: job.resource_id, controller, done });
  }

  private async execute(ctx: JobContext, controller: AbortController): Promise<void> {
    const handler = this.handlers[ctx.type]!;
    const owner = this.opts.workerId;
    const now = () => new Date().toISOString();
    try {
      if (ctx.attempt > ctx.maxAttempts) {
        // A stalled job reclaimed after its last attempt: give up without running it again.
        await handler.fail(ctx, exhaustedError(ctx.maxAttempts, false));
        await jobs.releaseJob(this.db, ctx.id, owner, { status: 'failed', lastError: 'stalled on its last attempt', now: now() });
        return;
      }
      const stopHeartbeat = this.heartbeat(ctx.id, controller);
      try {
        await handler.run(ctx);
      } catch (e) {
        await this.onFailure(ctx, handler, e);
        return;
      } finally {
        stopHeartbeat();
      }
      await jobs.releaseJob(this.db, ctx.id, owner, { status: 'completed', now: now() });
    } catch (e) {
      // Bookkeeping failed (database gone): the lease lapses and the job is reclaimed later.
      this.report(`job ${ctx.id} (${ctx.type} ${ctx.resourceId}) could not be recorded`, e);
    }
  }

  private async onFailure(ctx: JobContext, handler: JobHandler, e: unknown): Promise<void> {
    const owner = this.opts.workerId;
    const now = new Date().toISOString();
    if (ctx.signal.aborted) {
      const reason = ctx.signal.reason as AbortReason;
      // Cancelled: the canceller already wrote the job row and the resource's state.
      // Lease lost: another worker owns the job now. Shutdown: hand the attempt back.
      if (reason === 'shutdown')
        await jobs.releaseJob(this.db, ctx.id, owner, {
          status: 'queued',
          attemptsDelta: -1,
          runAt: now,
          lastError: 'worker stopped',
          now,
        });
      return;
    }
    // A run that lost its lease (it froze past the lease and another worker claimed the job) must
    // not fail the resource the new owner is working on: only the owner decides the job's fate.
    if (!(await jobs.extendLease(this.db, ctx.id, owner, new Date(Date.now() + this.opts.leaseMs).toISOString(), now))) return;
    const c = classifyFailure(e);
    if (c.kind === 'permanent') {
      await handler.fail(ctx, c.error);
      await jobs.releaseJob(this.db, ctx.id, owner, { status: 'failed', lastError: `${c.error.code}: ${c.error.message}`, now });
      return;
    }
    if (ctx.attempt < ctx.maxAttempts) {
      const runAt = new Date(Date.now() + this.retryDelay(ctx.attempt)).toISOString();
      await jobs.releaseJob(this.db, ctx.id, owner, { status: 'queued', runAt, lastError: c.message, now });
      return;
    }
    await handler.fail(ctx, exhaustedError(ctx.attempt, c.busy));
    await jobs.releaseJob(this.db, ctx.id, owner, { status: 'failed', lastError: c.message, now });
  }

  /** Exponential backoff with +-20 % jitter so retries of a burst do not land together. */
  private retryDelay(attempt: number): number {
    const base = this.opts.retryBaseMs ?? 1000;
    const max = this.opts.maxRetryDelayMs ?? 60_000;
    const d = Math.min(max, base * 2 ** (attempt - 1));
    return Math.round(d * (0.8 + Math.random() * 0.4));
  }

  /**
   * Extends the lease every `heartbeatMs`. A refused extension means the row is no longer ours:
   * cancelled (by an admin in another process) or reclaimed after we stalled; either way the
   * handler is aborted, so cancellation reaches workers in other processes within one heartbeat.
   */
  private heartbeat(jobId: string, controller: AbortController): () => void {
    if (this.keeper) {
      return this.keeper.hold(jobId, this.opts.workerId, (cancelled) => {
        if (!controller.signal.aborted) controller.abort((cancelled ? 'cancelled' : 'lease-lost') satisfies AbortReason);
      });
    }
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
          controller.abort((row?.status === 'cancelled' ? 'cancelled' : 'lease-lost') satisfies AbortReason);
        })
        .catch((e) => this.report(`heartbeat of job ${jobId} failed`, e))
        .finally(() => (busy = false));
    }, this.opts.heartbeatMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private report(message: string, err: unknown): void {
    if (this.opts.onError) this.opts.onError(message, err);
    else
      process.stderr.write(`${JSON.stringify({ level: 'error', msg: message, err: err instanceof Error ? err.message : String(err) })}\n`);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
