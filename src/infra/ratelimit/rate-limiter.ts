/**
 * The rate-limit port. A store keeps one token bucket per key; `take` spends tokens atomically and
 * says how long until the request would have been allowed. The in-process store serves one API
 * process; a Redis store (one Lua script doing the same arithmetic) fills the same port when several
 * API processes share the limits, which is why `take` is asynchronous.
 */
export interface BucketRule {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: the largest burst allowed after a quiet period. */
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this request (0 when refused). */
  remaining: number;
  /** When refused: milliseconds until enough tokens have accrued (>= 1); 0 when allowed. */
  retryAfterMs: number;
}

export interface RateLimitStore {
  take(key: string, rule: BucketRule, cost?: number): Promise<TakeResult>;
}
