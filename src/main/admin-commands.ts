import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { Db } from '../infra/db/database.js';
import { InProcessPubSub } from '../infra/pubsub/in-process-pubsub.js';
import { EmbeddedQueue } from '../infra/queue/embedded-queue.js';
import { cancelRender } from '../domain/renders/render-cancel.service.js';
import { isAppError } from '../contracts/errors.js';
import { DiskStorage } from '../infra/storage/disk-storage.js';
import { UrlSigner } from '../infra/storage/signer.js';
import { S3Storage } from '../infra/storage/s3-storage.js';
import { RedisPubSub } from '../infra/pubsub/redis-pubsub.js';

/**
 * Admin commands contributed by features (e.g. `render cancel ID` from the jobs feature). Each takes
 * the database, parsed flags (positionals as `_0`, `_1`...) and the config, and returns JSON.
 */
export const adminCommands: Record<string, (db: Db, flags: Record<string, string | undefined>, config: Config) => Promise<unknown>> = {
  /**
   * Moves a queued or processing render to `cancelled`, releasing its reservation and storing the
   * `cancelled` event. This process shares no bus with the server: its streams and workers learn
   * from the database (streams poll recent events; workers see the job row at their heartbeat).
   */
  'render cancel': async (db, flags, config) => {
    const id = flags._0;
    if (!id) throw new Error('usage: render cancel RENDER_ID');
    // With Redis configured, the cancellation reaches the worker running the render at once.
    const pubsub =
      config.pubsub.driver === 'redis' && config.redis.url ? new RedisPubSub(config.redis.url, config.redis.prefix) : new InProcessPubSub();
    const queue = new EmbeddedQueue(db, pubsub, {
      workerId: `admin:${process.pid}:${randomBytes(3).toString('hex')}`,
      leaseMs: config.workers.leaseMs,
      heartbeatMs: config.workers.heartbeatMs,
      pollMs: config.workers.pollMs,
      dialect: config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres',
    });
    try {
      // Only deletes (outputs a racing worker uploaded) go through this storage: it never signs
      // URLs, so a throwaway secret is enough.
      const storage =
        config.storage.driver === 's3' && config.storage.s3
          ? new S3Storage(config.storage.s3)
          : new DiskStorage(config.storage.root, config.publicUrl, new UrlSigner(randomBytes(32).toString('hex')));
      return await cancelRender({ db, pubsub, queue, storage }, id);
    } catch (e) {
      // The admin CLI prints `error` from the message; keep the public code visible to operators.
      if (isAppError(e)) throw new Error(`${e.code}: ${e.message}`);
      throw e;
    } finally {
      await pubsub.close();
    }
  },
};
