import type { FastifyInstance } from 'fastify';
import { AppError } from '../../contracts/errors.js';
import { MemoryRateLimitStore } from '../../infra/ratelimit/memory-rate-limit-store.js';
import type { BucketRule, RateLimitStore } from '../../infra/ratelimit/rate-limiter.js';
import type { HttpSettings } from '../settings.js';
import { principal } from './auth.js';

/**
 * Per-API-key rate limits (DECISIONS.md "Rate limits"): creations (every method but GET/HEAD) and
 * reads have separate token buckets, so polling cannot starve creation and vice versa. Registered
 * inside the authenticated /v1 scope after authentication, so the key is known and unauthenticated
 * traffic is refused before it costs a token. Over the limit: 429 RATE_LIMITED with `Retry-After`
 * (whole seconds, at least 1) and the exact wait in `remediation.retry_after_ms`.
 */
export function registerRateLimit(
  scope: FastifyInstance,
  settings: Pick<HttpSettings, 'config'>,
  store: RateLimitStore = new MemoryRateLimitStore(),
): void {
  const limits = settings.config.rateLimits;
  if (!limits.enabled) return;
  const create: BucketRule = { ratePerSecond: limits.createPerSecond, burst: limits.createBurst };
  const read: BucketRule = { ratePerSecond: limits.readPerSecond, burst: limits.readPerSecond };
  scope.addHook('onRequest', async (request) => {
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    // Anonymous reads (the Legacy status URL) are limited per client address instead of per key.
    const who = request.principal ? principal(request).keyId : `ip:${request.ip}`;
    let verdict;
    try {
      verdict = await store.take(`${who}:${isRead ? 'read' : 'create'}`, isRead ? read : create);
    } catch (err) {
      // The shared store (Redis) is unreachable: serve rather than refuse everyone; say so loudly.
      request.log.warn({ err }, 'rate-limit store unavailable; request not limited');
      return;
    }
    if (verdict.allowed) return;
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    throw new AppError(
      'RATE_LIMITED',
      `Too many ${isRead ? 'reads' : 'creations'} for this API key; retry in ${verdict.retryAfterMs} ms.`,
      {
        retryAfterMs: verdict.retryAfterMs,
        headers: { 'Retry-After': String(seconds) },
        details: {
          limit: isRead ? 'reads' : 'creations',
          rate_per_second: (isRead ? read : create).ratePerSecond,
          burst: (isRead ? read : create).burst,
        },
      },
    );
  });
}
