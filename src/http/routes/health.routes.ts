import type { FastifyInstance } from 'fastify';
import { AppError } from '../../contracts/errors.js';
import type { Config } from '../../config/config.js';
import type { Metrics } from '../../infra/metrics/metrics.js';

/**
 * Operations endpoints, outside /v1 and without authentication (bind them to a private network or
 * filter them at the proxy in production):
 * - `GET /healthz`: the process is alive (no dependency is checked; restart it when this fails);
 * - `GET /readyz`: every dependency answers (database, and Redis and object storage when
 *   configured); 503 SERVICE_BUSY naming the failing ones otherwise (take it out of the balancer);
 * - `GET /metrics`: Prometheus text (queue depth, job durations, render fps, HTTP latency).
 */
export async function healthRoutes(
  app: FastifyInstance,
  deps: { config: Pick<Config, 'metrics'>; metrics?: Metrics; probes?: Record<string, () => Promise<boolean>> },
): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => {
    const checks: Record<string, 'ok' | 'failing'> = {};
    await Promise.all(
      Object.entries(deps.probes ?? {}).map(async ([name, probe]) => {
        const ok = await Promise.race([probe().catch(() => false), new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref())]);
        checks[name] = ok ? 'ok' : 'failing';
      }),
    );
    const failing = Object.keys(checks).filter((k) => checks[k] !== 'ok');
    if (failing.length > 0) {
      throw new AppError('SERVICE_BUSY', `Not ready: ${failing.join(', ')} unreachable.`, { retryAfterMs: 1000, details: { checks } });
    }
    return { status: 'ready', checks };
  });
  if (deps.config.metrics && deps.metrics) {
    const metrics = deps.metrics;
    app.get('/metrics', async (_request, reply) => {
      reply.type('text/plain; version=0.0.4; charset=utf-8');
      return metrics.render();
    });
  }
}
