import { loadConfig, ConfigError } from '../config/config.js';
import Fastify from 'fastify';
import { healthRoutes } from '../http/routes/health.routes.js';
import { startWorkers } from './workers.js';
import { wire } from './wire.js';

/** `npm run worker`: workers only, no HTTP. Several may run against the same database. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const wired = await wire(config);
  await startWorkers(wired.deps);
  // With MARIONETTE_WORKER_HTTP_PORT: /healthz, /readyz and /metrics (job durations, render fps).
  let ops: ReturnType<typeof Fastify> | null = null;
  if (config.workers.httpPort !== null) {
    ops = Fastify({ logger: false });
    await healthRoutes(ops, { config, metrics: wired.deps.metrics, probes: wired.deps.probes });
    await ops.listen({ port: config.workers.httpPort, host: config.host });
  }
  process.stdout.write(
    `marionette worker started (database: ${wired.deps.dialect}, queue: ${config.queue.driver}, storage: ${config.storage.driver}, concurrency: ${config.workers.concurrency})\n`,
  );
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await ops?.close();
    await wired.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((e) => {
  process.stderr.write(
    e instanceof ConfigError ? `${e.message}\n` : `marionette worker failed: ${e instanceof Error ? e.stack : String(e)}\n`,
  );
  process.exit(e instanceof ConfigError ? 2 : 1);
});
