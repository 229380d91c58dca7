import type { RevocationFeedView } from '../domain/accounts/key-cache.js';
import type { RateLimitStore } from '../infra/ratelimit/rate-limiter.js';
import type { Metrics } from '../infra/metrics/metrics.js';
import type { Config } from '../config/config.js';
import type { ConsoleSettings } from './routes/console.routes.js';

/** The configuration the HTTP layer reads (limits, logging, rate limits, SSE timing) and its upload scratch dir. */
export interface HttpSettings {
  config: Pick<
    Config,
    'logLevel' | 'http' | 'limits' | 'rateLimits' | 'events' | 'workers' | 'legacy' | 'publicUrl' | 'apiKeyCache' | 'metrics'
  >;
  tmpDir: string;
  /** Shared rate-limit buckets (Redis) when configured; else each API process keeps its own. */
  rateLimitStore?: RateLimitStore;
  /** This process's Prometheus registry (`/metrics`). */
  metrics?: Metrics;
  /** Readiness checks by dependency name (`/readyz`). */
  probes?: Record<string, () => Promise<boolean>>;
  /** The web console at /console (absent: not served). */
  console?: ConsoleSettings;
  /** Pushed API-key revocations (Redis pub/sub, SQLite's signal file): while not live, cached keys are confirmed on each use. */
  keyRevocations?: RevocationFeedView;
}
