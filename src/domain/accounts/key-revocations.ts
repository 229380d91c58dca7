import type { PubSub } from '../ports/pubsub.js';
import { invalidateAllApiKeys, invalidateApiKey } from './key-cache.js';

/**
 * API-key revocations pushed to every process over the shared bus (Redis pub/sub in a distributed
 * deployment, the signal file beside the database on SQLite). The database stays the record (`api_keys.revoked_at`); the message only tells each
 * process to drop the key from its caches at once.
 *
 * - `announceKeyRevoked`: sent by whoever revoked the key (the admin command, after its write).
 * - `followKeyRevocations`: every API process follows the channel. A message drops that key from
 *   every cache of the process; after a reconnection of the bus (messages may have been lost
 *   meanwhile) every cache is emptied. `live()` is false while the bus is away: the caches then
 *   confirm each cached key against the database (key-cache.ts), so a revocation that could not be
 *   delivered is still honoured at once.
 */
export const KEY_REVOKED_CHANNEL = 'api-keys:revoked';

export interface KeyRevocationFeed {
  /** Whether revocations published now reach this process. */
  live(): boolean;
  /** Applies, now, what was announced so far (buses that can read on demand: the signal file). */
  catchUp?(): void;
  close(): Promise<void>;
}

export async function announceKeyRevoked(pubsub: PubSub, keyId: string): Promise<void> {
  await pubsub.publish(KEY_REVOKED_CHANNEL, keyId);
}

export async function followKeyRevocations(pubsub: PubSub): Promise<KeyRevocationFeed> {
  const unsubscribe = await pubsub.subscribe(KEY_REVOKED_CHANNEL, (keyId) => invalidateApiKey(keyId));
  const stopResync = pubsub.onResync?.(() => invalidateAllApiKeys());
  return {
    live: () => pubsub.connected?.() ?? true,
    ...(pubsub.catchUp ? { catchUp: () => pubsub.catchUp!() } : {}),
    async close() {
      stopResync?.();
      await unsubscribe();
    },
  };
}
