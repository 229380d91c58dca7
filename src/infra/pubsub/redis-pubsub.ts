import type { Redis } from 'ioredis';
import { closeRedis, redisConnection } from '../redis/connection.js';
import type { PubSub } from '../../domain/ports/pubsub.js';

/**
 * Pub/sub across processes on Redis. One connection publishes, one subscribes (a subscribed Redis
 * connection can do nothing else); many local handlers share one Redis subscription per channel.
 * Channels are namespaced by the configured prefix, so installations sharing a Redis never hear
 * each other.
 *
 * Redis pub/sub delivers at most once: what is published while a subscriber is disconnected is
 * lost to it. Messages are hints (the database is the record), and after every reconnection the
 * `onResync` listeners run so that consumers re-read stored state (the event stream hub re-reads
 * every open stream's history, which is how a stream catches up on what it missed).
 */
export class RedisPubSub implements PubSub {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly resyncListeners = new Set<() => void>();
  /** True once the subscriptions are active on the current connection (see `connected`). */
  private live = false;
  private everLive = false;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.pub = redisConnection(url, { name: `${prefix}:pub` });
    this.sub = redisConnection(url, { name: `${prefix}:sub` });
    this.sub.on('message', (channel: string, message: string) => {
      const hs = this.handlers.get(channel);
      if (hs) for (const h of [...hs]) h(message);
    });
    // ioredis re-subscribes by itself after a reconnection, sending SUBSCRIBE right after 'ready';
    // a PING sent behind it answers once those subscriptions are active. Only then is the bus live
    // again and the resync listeners run, so what they re-read plus what arrives from then on
    // leaves no gap.
    this.sub.on('close', () => (this.live = false));
    this.sub.on('ready', () => {
      this.sub
        .ping()
        .then(() => {
          if (this.sub.status !== 'ready') return;
          this.live = true;
          if (this.everLive) for (const l of [...this.resyncListeners]) l();
          this.everLive = true;
        })
        .catch(() => {});
    });
  }

  private name(channel: string): string {
    return `${this.prefix}:ps:${channel}`;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.pub.publish(this.name(channel), message);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    const name = this.name(channel);
    let hs = this.handlers.get(name);
    if (!hs) {
      hs = new Set();
      this.handlers.set(name, hs);
      // Resolves once the subscription is active when Redis is up; while it is away the command
      // waits in the offline queue (and ioredis subscribes on reconnect) without holding the caller.
      const subscribing = this.sub.subscribe(name).catch(() => 0);
      if (this.sub.status === 'ready') await Promise.race([subscribing, new Promise((r) => setTimeout(r, 2000).unref())]);
    }
    hs.add(handler);
    return async () => {
      const set = this.handlers.get(name);
      if (!set || !set.delete(handler) || set.size > 0) return;
      this.handlers.delete(name);
      await this.sub.unsubscribe(name).catch(() => {});
    };
  }

  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  connected(): boolean {
    return this.live && this.sub.status === 'ready';
  }

  /** Whether both connections are up (readiness). */
  async ping(): Promise<boolean> {
    try {
      return (await this.pub.ping()) === 'PONG' && this.sub.status === 'ready';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.resyncListeners.clear();
    await Promise.all([closeRedis(this.pub), closeRedis(this.sub)]);
  }
}
