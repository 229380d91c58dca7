import type { Config } from '../config/config.js';

/** The configuration the HTTP layer reads (limits, logging, rate limits, SSE timing) and its upload scratch dir. */
export interface HttpSettings {
  config: Pick<Config, 'logLevel' | 'limits' | 'rateLimits' | 'events' | 'workers' | 'legacy' | 'publicUrl' | 'apiKeyCache'>;
  tmpDir: string;
}
