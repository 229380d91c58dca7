/**
 * The event bus port: fan-out of live notifications between processes (render events to SSE
 * connections, job cancellation to workers). Messages are hints: the database stays the source of
 * truth, so a subscriber that misses one re-reads stored state (SSE resumes from stored history).
 * Adapters: `infra/pubsub/in-process-pubsub.ts` (one process); a Redis adapter goes beside it.
 */
export interface PubSub {
  publish(channel: string, message: string): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /**
   * Registers a listener called after the bus reconnected (messages may have been lost while it was
   * away: consumers re-read stored state). Absent on buses that never disconnect.
   */
  onResync?(listener: () => void): () => void;
  /**
   * Whether what is published now reaches this process's subscriptions (false while the bus is
   * disconnected or re-subscribing). Absent on buses that never disconnect.
   */
  connected?(): boolean;
  /** Delivers, synchronously, what was published up to now (buses that can read on demand). */
  catchUp?(): void;
}
