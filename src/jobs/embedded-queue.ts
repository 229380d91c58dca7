import type { Db } from '../infra/db/database.js';
import type { PubSub } from '../infra/pubsub/pubsub.js';
import type { JobHandler, JobQueue, JobType, QueueWorkerOptions } from './queue.js';

export interface EmbeddedQueueOptions {
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
  pollMs: number;
}

/**
 * Durable jobs in the service's own database (the `jobs` table written by `enqueueInTx`).
 * Implementation: issue "Job execution end to end".
 */
export class EmbeddedQueue implements JobQueue {
  constructor(
    private readonly db: Db,
    private readonly pubsub: PubSub,
    private readonly opts: EmbeddedQueueOptions,
  ) {}

  async start(handlers: Partial<Record<JobType, JobHandler>>, opts: QueueWorkerOptions): Promise<void> {
    void handlers;
    void opts;
    void this.db;
    void this.pubsub;
    void this.opts;
  }

  async stop(): Promise<void> {}

  async cancel(resourceId: string): Promise<void> {
    void resourceId;
  }

  notify(): void {}
}
