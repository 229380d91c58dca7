import type { AppError } from '../../contracts/errors.js';
import type { Db } from '../../infra/db/database.js';

/**
 * The job queue port. Jobs are always first written to the `jobs` table inside the transaction that
 * creates their resource (see `enqueueInTx`): a resource can never exist without its job, nor a job
 * without its resource. The embedded queue claims straight from that table with leases; a BullMQ
 * adapter treats the same rows as an outbox and relays them to Redis, so handlers do not change:
 * a handler only sees a `JobContext` and reports through its resource's transition function.
 */
/**
 * `character.vsplat` and `motion.glb` are the 3D parts of `vsplat`/`all` Characters and `glb`/`all`
 * Motions: enqueued when the 2D part is stored, so the asset is usable for renders meanwhile.
 */
export type JobType = 'character.process' | 'character.vsplat' | 'motion.extract' | 'motion.glb' | 'render.run' | 'video.generate';

export interface JobContext {
  id: string;
  type: JobType;
  resourceId: string;
  payload: Record<string, unknown>;
  /** 1-based attempt number (a stalled attempt that was reclaimed counts). */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the job is cancelled, its lease is lost, or the worker shuts down. */
  signal: AbortSignal;
}

/**
 * One job type's behaviour. `run` does the work and moves the resource to its terminal state on
 * success. `fail` moves the resource to `failed` with a public error; the queue calls it exactly
 * when the job is given up: a permanent error, attempts exhausted, or a stalled job found with no
 * attempts left (its `run` is not called again then). Both must be idempotent: after a crash the
 * same call may happen twice, and transitions on a terminal resource are no-ops.
 */
export interface JobHandler {
  run(job: JobContext): Promise<void>;
  fail(job: JobContext, error: AppError): Promise<void>;
}

/** Thrown by handlers for failures worth retrying (with backoff) while attempts remain. */
export class TemporaryJobError extends Error {
  constructor(
    message: string,
    readonly code: 'ALL_WORKERS_BUSY' | 'WORKER_STOPPED' | 'INTERNAL_ERROR' = 'INTERNAL_ERROR',
  ) {
    super(message);
    this.name = 'TemporaryJobError';
  }
}

export interface QueueWorkerOptions {
  concurrency: number;
}

export interface JobQueue {
  /** Starts pulling jobs for the given handlers. */
  start(handlers: Partial<Record<JobType, JobHandler>>, opts: QueueWorkerOptions): Promise<void>;
  /** Stops pulling, aborts running handlers' signals and waits for them to settle. */
  stop(): Promise<void>;
  /**
   * Marks the resource's jobs cancelled and asks whoever runs one to abort it. `discardCompleted`: the
   * resource was cancelled, so a job that completed meanwhile (its result refused by the resource's
   * state machine) is marked cancelled too: a cancellation committing between the worker's refused
   * result and its job release left a cancelled render with a `completed` job.
   */
  cancel(resourceId: string, opts?: { discardCompleted?: boolean }): Promise<void>;
  /** Wakes idle pollers after an enqueue (a hint; polling still finds the job). */
  notify(): void;
  /**
   * The transactional enqueue (outbox): writes the job row with `tx`, the transaction that creates
   * its resource, so both commit or neither does. (type, resource_id) is unique: enqueueing the
   * same work twice is a no-op. Call `notify()` after the commit.
   */
  enqueueInTx(tx: Db, input: EnqueueInput): Promise<void>;
}

export interface EnqueueInput {
  type: JobType;
  resourceId: string;
  payload?: Record<string, unknown>;
  maxAttempts: number;
  runAt?: Date;
}
