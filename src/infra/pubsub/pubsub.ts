import { EventEmitter } from 'node:events';

/**
 * Fan-out of live notifications between processes (render events to SSE connections, job
 * cancellation to workers). Messages are hints: the database stays the source of truth, so a
 * subscriber that misses one re-reads stored state (SSE resumes from stored history).
 */
export interface PubSub {
  publish(channel: string, message: string): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class InProcessPubSub implements PubSub {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Thousands of SSE connections may subscribe; each is a listener on its own channel.
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.emitter.emit(channel, message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    this.emitter.on(channel, handler);
    return async () => {
      this.emitter.off(channel, handler);
    };
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
