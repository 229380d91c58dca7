import { Redis, type RedisOptions } from 'ioredis';

/**
 * Redis connections for the Redis adapters (pub/sub, rate limits, BullMQ). Every connection
 * reconnects by itself with a capped backoff, so a restarted Redis is picked up without a process
 * restart; commands issued while it is away fail fast (rate limits, publishes) instead of queuing
 * unboundedly, except on BullMQ's blocking connections, which BullMQ wants to wait.
 */
export function redisConnection(url: string, opts: { name: string; blocking?: boolean } & RedisOptions): Redis {
  const { name, blocking, ...rest } = opts;
  const redis = new Redis(url, {
    connectionName: name,
    lazyConnect: false,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(50 * times, 1000),
    // BullMQ requires null on its worker connections; elsewhere a command fails after 2 retries.
    maxRetriesPerRequest: blocking ? null : 2,
    enableOfflineQueue: true,
    ...rest,
  });
  // Errors (connection refused while Redis restarts) are reported by the callers' failing
  // commands; an unhandled 'error' event would crash the process.
  redis.on('error', () => {});
  return redis;
}

/** Closes a connection whatever state it is in (quit when connected, disconnect otherwise). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

/** Deletes every key under `prefix` (tests and benches clean up after themselves with it). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) n += await redis.unlink(...keys);
  } while (cursor !== '0');
  return n;
}
