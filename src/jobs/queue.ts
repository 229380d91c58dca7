import type { Db } from '../infra/db/database.js';

/**
 * The job queue port. Jobs are always first written to the `jobs` table inside the transaction that
 * creates their resource (see `enqueueInTx`): a resource can never exist without its job, nor a job
 * without its resource. The embedded queue claims straight from that table with leases; a BullMQ
 * adapter treats the same rows as an outbox and relays them to Redis, so handlers do not change.
 */
export type JobType = 'character.process' | 'motion.extract' | 'render.run';

export interface JobContext {
  id: string;
  type: JobType;
  resourceId: string;
  payload: Record<string, unknown>;
  /** 1-based attempt number. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the job is cancelled, its lease is lost, or the worker shuts down. */
  signal: AbortSignal;
}

export type JobHandler = (job: JobContext) => Promise<void>;

/** Thrown by handlers for failures worth retrying (with backoff) while attempts remain. */
export class TemporaryJobError extends Error {
  constructor(message: string, readonly code: 'ALL_WORKERS_BUSY' | 'WORKER_STOPPED' | 'INTERNAL_ERROR' = 'INTERNAL_ERROR') {
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
  /** Asks whoever runs the job of this resource to abort it (cancellation). */
  cancel(resourceId: string): Promise<void>;
  /** Wakes idle pollers after an enqueue (a hint; polling still finds the job). */
  notify(): void;
}

export interface EnqueueInput {
  type: JobType;
  resourceId: string;
  payload?: Record<string, unknown>;
  maxAttempts: number;
  runAt?: Date;
}
