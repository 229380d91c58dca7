import type { Redis } from 'ioredis';
import type { BucketRule, RateLimitStore, TakeResult } from './rate-limiter.js';

/**
 * Token buckets in Redis, shared by every API process: the same arithmetic as the in-process
 * store, done by one Lua script so a take is atomic across processes. Time is Redis's own clock
 * (`TIME`), so API machines with skewed clocks still share one bucket correctly. A bucket's key
 * expires once it would have refilled, so idle keys cost nothing.
 */
const TAKE = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', key, 'tokens', 'at')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then tokens = burst; at = now end
if now > at then tokens = math.min(burst, tokens + (now - at) / 1000 * rate) end
local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = math.max(1, math.ceil((cost - tokens) / rate * 1000))
end
redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
return {allowed, math.floor(tokens), retry}
`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('marionetteTake', { numberOfKeys: 1, lua: TAKE });
  }

  async take(key: string, rule: BucketRule, cost = 1): Promise<TakeResult> {
    const [allowed, remaining, retry] = (await (
      this.redis as unknown as { marionetteTake: (...a: unknown[]) => Promise<number[]> }
    ).marionetteTake(`${this.prefix}:rl:${key}`, rule.ratePerSecond, rule.burst, cost)) as [number, number, number];
    return allowed === 1 ? { allowed: true, remaining, retryAfterMs: 0 } : { allowed: false, remaining: 0, retryAfterMs: retry };
  }
}
