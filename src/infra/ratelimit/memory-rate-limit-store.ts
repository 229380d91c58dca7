import type { BucketRule, RateLimitStore, TakeResult } from './rate-limiter.js';

interface Bucket {
  tokens: number;
  /** Milliseconds (monotonic clock) of the last refill. */
  at: number;
  rule: BucketRule;
}

/**
 * Token buckets in a Map, refilled lazily on access (no timers, so nothing keeps the process alive).
 * Buckets that have refilled to full carry no information and are swept every `sweepEvery` takes,
 * so memory is bounded by the keys active in the last `burst / rate` seconds.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();
  private takes = 0;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly sweepEvery = 10_000,
  ) {}

  async take(key: string, rule: BucketRule, cost = 1): Promise<TakeResult> {
    const t = this.now();
    if (++this.takes % this.sweepEvery === 0) this.sweep(t);
    const b = this.buckets.get(key) ?? { tokens: rule.burst, at: t, rule };
    b.rule = rule;
    b.tokens = Math.min(rule.burst, b.tokens + ((t - b.at) / 1000) * rule.ratePerSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return { allowed: true, remaining: Math.floor(b.tokens), retryAfterMs: 0 };
    }
    const retryAfterMs = Math.max(1, Math.ceil(((cost - b.tokens) / rule.ratePerSecond) * 1000));
    return { allowed: false, remaining: 0, retryAfterMs };
  }

  private sweep(t: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * b.rule.ratePerSecond >= b.rule.burst) this.buckets.delete(k);
    }
  }
}
