import { EmbeddedQueue } from '../../src/infra/queue/embedded-queue.js';
import { enqueueInTx } from '../../src/infra/queue/outbox.js';
import { newId } from '../../src/contracts/ids.js';
import type { TestService } from './harness.js';

export type QueueOptions = Partial<ConstructorParameters<typeof EmbeddedQueue>[2]>;

/**
 * Embedded queues on a test service's database, with fast polling and short retries; each gets a
 * unique worker id, and `stopAll` stops every queue made. `defaults` set a suite's own timings.
 */
export function queueFactory(svc: () => TestService, defaults: QueueOptions = {}) {
  const queues: EmbeddedQueue[] = [];
  return {
    make(name: string, over: QueueOptions = {}): EmbeddedQueue {
      const deps = svc().wired.deps;
      const q = new EmbeddedQueue(deps.db, deps.pubsub, {
        workerId: `${name}-${newId('job')}`,
        leaseMs: 2000,
        heartbeatMs: 100,
        pollMs: 20,
        dialect: deps.dialect,
        retryBaseMs: 50,
        onError: () => {},
        ...defaults,
        ...over,
      });
      queues.push(q);
      return q;
    },
    stopAll: () => Promise.all(queues.map((q) => q.stop())),
    /** A `render.run` job for `resourceId`, committed. */
    enqueue: (resourceId: string, maxAttempts = 3) =>
      svc()
        .wired.deps.db.transaction()
        .execute((tx) => enqueueInTx(tx, { type: 'render.run', resourceId, maxAttempts })),
  };
}
