import type { Db, DialectName } from '../db/database.js';
import type { PubSub } from '../../domain/ports/pubsub.js';
import type { JobsTable } from '../db/schema.js';
import * as jobs from './jobs.repository.js';
import { delay, JOB_CANCEL_CHANNEL, JobRunner, type AbortReason, type LeaseHolder } from './job-runner.js';
import { enqueueInTx } from './outbox.js';
import type { EnqueueInput, JobHandler, JobQueue, JobType, QueueWorkerOptions } from '../../domain/ports/job-queue.js';
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

export { JOB_CANCEL_CHANNEL, type AbortReason } from './job-runner.js';

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
  private readonly runner: JobRunner;
  /** Runs in flight by row ID (what stop() waits for). */
  private readonly inFlight = new Map<string, Promise<void>>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private keeper: LeaseKeeper | null = null;

  constructor(
    private readonly db: Db,
    private readonly pubsub: PubSub,
    private readonly opts: EmbeddedQueueOptions,
  ) {
    this.runner = new JobRunner(db, opts);
  }

  async start(handlers: Partial<Record<JobType, JobHandler>>, opts: QueueWorkerOptions): Promise<void> {
    if (this.loop) throw new Error('queue already started');
    this.handlers = handlers;
    this.stopping = false;
    this.unsubscribe = await this.pubsub.subscribe(JOB_CANCEL_CHANNEL, (resourceId) => this.runner.abortResource(resourceId, 'cancelled'));
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
        (message) => this.runner.report(message, null),
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
    this.runner.abortAll('shutdown' satisfies AbortReason);
    // A handler that ignores its signal must not hold shutdown forever; its lease then lapses and
    // another worker takes the job over.
    await Promise.race([Promise.allSettled([...this.inFlight.values()]), delay(this.opts.shutdownGraceMs ?? 15_000)]);
    // Hand back what is still running (the process exits next) so another worker claims it at
    // once instead of after the lease lapses; the stray run's later writes are no-ops or idempotent.
    const now = new Date().toISOString();
    for (const id of this.inFlight.keys()) {
      await jobs
        .releaseJob(this.db, id, this.opts.workerId, { status: 'queued', attemptsDelta: -1, runAt: now, lastError: 'worker stopped', now })
        .catch((e) => this.runner.report(`releasing job ${id} at shutdown failed`, e));
    }
    await this.unsubscribe?.();
    this.unsubscribe = null;
    await this.keeper?.close();
    this.keeper = null;
  }

  async cancel(resourceId: string, opts?: { discardCompleted?: boolean }): Promise<void> {
    await jobs.cancelJobsOf(this.db, resourceId, new Date().toISOString(), opts?.discardCompleted);
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
    return this.inFlight.size;
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
      if (this.inFlight.size >= concurrency) {
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
        this.runner.report('claiming a job failed', e);
      }
      if (!job) {
        await this.sleep(this.opts.pollMs);
        continue;
      }
      this.launch(job);
    }
  }

  private launch(job: JobsTable): void {
    const handler = this.handlers[job.type as JobType]!;
    const keeper = this.keeper;
    // Leases renewed from the keeper's thread when there is one, else from this event loop.
    const hold: LeaseHolder | undefined = keeper ? (id, lost) => keeper.hold(id, this.opts.workerId, lost) : undefined;
    const done = this.runner
      .run(job, handler, hold)
      .then(() => undefined)
      // Bookkeeping failed (database gone): the lease lapses and the job is reclaimed later.
      .catch((e) => this.runner.report(`job ${job.id} (${job.type} ${job.resource_id}) could not be recorded`, e))
      .finally(() => {
        this.inFlight.delete(job.id);
        this.wake();
      });
    this.inFlight.set(job.id, done);
  }
}
