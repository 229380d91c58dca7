import { EventEmitter } from 'node:events';

import type { PubSub } from '../../domain/ports/pubsub.js';

/** The event bus within one process (API and workers together, tests, benches). */
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
