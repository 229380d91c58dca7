import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Db } from '../db/database.js';
import type { EnqueueInput, JobHandler, JobQueue, JobType, PubSub } from '../../domain/ports/index.js';
import type { QueueWorkerOptions } from '../../domain/ports/job-queue.js';
import { enqueueInTx } from './outbox.js';
import { closeRedis, redisConnection } from '../redis/connection.js';
import { LockKeeper } from './lock-keeper.js';
import * as jobs from './jobs.repository.js';
import { delay, JOB_CANCEL_CHANNEL, JobRunner, type AbortReason } from './job-runner.js';

export interface BullMqQueueOptions {
  redisUrl: string;
  /** Key prefix of this installation in Redis (BullMQ keys are `<prefix>:bull:jobs:*`). */
  prefix: string;
  workerId: string;
  /**
   * BullMQ lock of a running job. A worker that dies stops renewing it; after it lapses, the next
   * stalled check of any worker (every `stalledIntervalMs`) puts the job back, so a SIGKILLed
   * worker's job is running elsewhere within about lockMs + stalledIntervalMs.
   */
  lockMs: number;
  stalledIntervalMs: number;
  /** How often queued rows are relayed from the database to Redis (besides every enqueue). */
  relayMs: number;
  /** The database lease on the job row, extended every heartbeatMs while the handler runs. */
  leaseMs: number;
  heartbeatMs: number;
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
  shutdownGraceMs?: number;
  onError?: (message: string, err: unknown) => void;
}

const QUEUE_NAME = 'jobs';
/** A relayed row is not relayed again by the same process for this long (unless Redis restarted). */
const RELAY_AGAIN_MS = 30_000;

/**
 * The job queue on BullMQ. The `jobs` table stays the record, written in the resource's own
 * transaction (`enqueueInTx`); this adapter is its outbox relay and its delivery:
 *
 * - Relay: queued rows are added to BullMQ with the row ID as BullMQ job ID, so relaying the same
 *   row twice (two API processes, a retry of the relay) is a no-op. Every process relays after its
 *   own enqueues and on a timer; after Redis comes back empty (restarted without persistence) the
 *   rows that are still queued, or active with a lapsed lease, are relayed again.
 * - Delivery: a BullMQ worker takes the job under a lock it renews, then claims the row (counting
 *   the attempt) and runs the handler with the embedded queue's own job semantics (job-runner.ts:
 *   same JobContext, failure classification, exhausted-attempts rule, row lease extended while it
 *   runs); retries wait in BullMQ's delayed set.
 * - Stalls: a dead worker's lock lapses and BullMQ's stalled check hands the job to another worker,
 *   which claims the row as a new attempt.
 * - Cancellation: the row is marked cancelled and the resource ID published on the shared bus; the
 *   worker running it aborts at once (the row heartbeat catches it too if the message is lost).
 * - Shutdown: running handlers are aborted, their rows and BullMQ jobs handed back for another
 *   worker to take at once.
 */
export class BullMqQueue implements JobQueue {
  private readonly connection: Redis;
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private workerConnection: Redis | null = null;
  private lockKeeper: LockKeeper | null = null;
  private handlers: Partial<Record<JobType, JobHandler>> = {};
  private readonly runner: JobRunner;
  private unsubscribe: (() => Promise<void>) | null = null;
  private relayTimer: NodeJS.Timeout | null = null;
  private relaying: Promise<void> | null = null;
  private relayAgain = false;
  private readonly relayed = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly pubsub: PubSub,
    private readonly opts: BullMqQueueOptions,
  ) {
    this.runner = new JobRunner(db, opts);
    this.connection = redisConnection(opts.redisUrl, { name: `${opts.prefix}:queue` });
    this.queue = new Queue(QUEUE_NAME, { connection: this.connection, prefix: this.bullPrefix() });
    this.queue.on('error', (e) => this.runner.report('BullMQ queue error', e));
    // Redis may have restarted empty: forget what was relayed so the next relay sends it again.
    let everReady = false;
    this.connection.on('ready', () => {
      if (everReady) {
        this.relayed.clear();
        this.notify();
      }
      everReady = true;
    });
    // Every process relays (an API process without workers too: its enqueues must reach Redis).
    this.relayTimer = setInterval(() => this.notify(), opts.relayMs);
    this.relayTimer.unref();
  }

  private bullPrefix(): string {
    return `${this.opts.prefix}:bull`;
  }

  async start(handlers: Partial<Record<JobType, JobHandler>>, opts: QueueWorkerOptions): Promise<void> {
    if (this.worker) throw new Error('queue already started');
    this.handlers = handlers;
    this.unsubscribe = await this.pubsub.subscribe(JOB_CANCEL_CHANNEL, (resourceId) => this.runner.abortResource(resourceId, 'cancelled'));
    this.lockKeeper = new LockKeeper({
      redisUrl: this.opts.redisUrl,
      bullPrefix: this.bullPrefix(),
      queueName: QUEUE_NAME,
      lockMs: this.opts.lockMs,
    });
    this.workerConnection = redisConnection(this.opts.redisUrl, { name: `${this.opts.prefix}:worker`, blocking: true });
    this.worker = new Worker(QUEUE_NAME, (job, token) => this.process(job, token), {
      connection: this.workerConnection,
      prefix: this.bullPrefix(),
      concurrency: Math.max(1, opts.concurrency),
      lockDuration: this.opts.lockMs,
      stalledInterval: this.opts.stalledIntervalMs,
      // Stalls are counted as attempts on the row (the handler's `fail` decides), not by BullMQ.
      maxStalledCount: 1000,
      settings: { backoffStrategy: (attemptsMade: number) => this.runner.retryDelay(attemptsMade) },
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
      autorun: true,
    });
    this.worker.on('error', (e) => this.runner.report('BullMQ worker error', e));
    this.notify();
  }

  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.relayTimer) clearInterval(this.relayTimer);
    this.relayTimer = null;
    if (this.worker) {
      this.runner.abortAll('shutdown' satisfies AbortReason);
      const closing = this.worker.close();
      // A handler that ignores its signal must not hold shutdown forever: its BullMQ lock lapses
      // and another worker takes the job over.
      await Promise.race([closing, delay(this.opts.shutdownGraceMs ?? 15_000)]);
      if (this.runner.running.size > 0) await this.worker.close(true).catch(() => {});
      this.worker = null;
    }
    await this.lockKeeper?.close();
    this.lockKeeper = null;
    await this.relaying?.catch(() => {});
    await this.unsubscribe?.();
    this.unsubscribe = null;
    await this.queue.close().catch(() => {});
    await closeRedis(this.connection);
    if (this.workerConnection) await closeRedis(this.workerConnection);
  }

  async cancel(resourceId: string, opts?: { discardCompleted?: boolean }): Promise<void> {
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('resource_id', '=', resourceId)
      .where('status', 'in', ['queued', 'active'])
      .execute();
    await jobs.cancelJobsOf(this.db, resourceId, new Date().toISOString(), opts?.discardCompleted);
    await this.pubsub.publish(JOB_CANCEL_CHANNEL, resourceId);
    // Waiting or delayed copies go at once; a running one (locked) completes as a no-op.
    for (const r of rows) await this.queue.remove(r.id).catch(() => 0);
  }

  /** Writes the job row in the resource's transaction; the relay sends it to Redis after commit. */
  enqueueInTx(tx: Db, input: EnqueueInput): Promise<void> {
    return enqueueInTx(tx, input);
  }

  notify(): void {
    if (this.closed) return;
    if (this.relaying) {
      this.relayAgain = true;
      return;
    }
    this.relaying = (async () => {
      try {
        do {
          this.relayAgain = false;
          await this.relay();
        } while (this.relayAgain && !this.closed);
      } catch (e) {
        this.runner.report('relaying jobs to Redis failed', e);
      } finally {
        this.relaying = null;
      }
    })();
  }

  /** Jobs this process is running now. */
  activeCount(): number {
    return this.runner.running.size;
  }

  /** Waiting, delayed and active jobs in Redis (metrics). */
  async depth(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
  }

  /** Whether the queue's Redis answers (readiness). */
  async ping(): Promise<boolean> {
    try {
      return (await this.connection.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  private async relay(): Promise<void> {
    const now = Date.now();
    for (const [id, at] of this.relayed) if (at < now - RELAY_AGAIN_MS) this.relayed.delete(id);
    const rows = await jobs.jobsToRelay(this.db, {
      types: null,
      staleBefore: new Date(now - this.opts.leaseMs).toISOString(),
      limit: 1000,
    });
    const fresh = rows.filter((r) => !this.relayed.has(r.id));
    if (fresh.length === 0) return;
    await this.queue.addBulk(
      fresh.map((r) => ({
        name: r.type,
        data: { id: r.id },
        opts: {
          jobId: r.id,
          delay: Math.max(0, Date.parse(r.run_at) - now),
          // BullMQ retries temporary failures; the row decides when attempts are exhausted.
          attempts: Number(r.max_attempts) + 1,
          backoff: { type: 'custom' },
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
    for (const r of fresh) this.relayed.set(r.id, now);
  }

  private async process(job: Job, token: string | undefined): Promise<void> {
    const rowId = String((job.data as { id?: string }).id ?? job.id);
    const now = Date.now();
    const row = await jobs.claimById(this.db, rowId, {
      owner: this.opts.workerId,
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
    });
    // Completed, failed or cancelled meanwhile (a duplicate delivery, a cancelled job): nothing to do.
    if (!row) return;
    const handler = this.handlers[row.type as JobType];
    if (!handler) throw new Error(`no handler for ${row.type}`);
    // The BullMQ lock is renewed off the main thread while the handler runs (see LockKeeper).
    const lockId = String(job.id);
    if (token) this.lockKeeper?.hold(lockId, token);
    let outcome;
    try {
      outcome = await this.runner.run(row, handler);
    } finally {
      this.lockKeeper?.release(lockId);
    }
    if (outcome.kind === 'handed-back' && token) {
      // Shutdown: BullMQ's copy goes back to be taken by another worker at once.
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    // BullMQ moves its copy to the delayed set with the backoff strategy's delay.
    if (outcome.kind === 'retry') throw new Error(outcome.message);
  }
}
