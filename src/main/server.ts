import { loadConfig, ConfigError } from '../config/config.js';
import { startWorkers } from './workers.js';
import { ensureDemoAccount } from './bootstrap.js';
import { buildHttpApp, consoleSettings, wire } from './wire.js';
import { startUploadSweep } from '../infra/tmp-sweep.js';

/** `npm start`: the API and (unless MARIONETTE_WORKERS=false) in-process workers. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const wired = await wire(config);
  const demo = await ensureDemoAccount(wired.deps.db, config);
  const app = await buildHttpApp(wired.deps);
  // Upload dirs a crashed process left (older than any request can live), now and hourly.
  const stopSweep = startUploadSweep(wired.deps.tmpDir, config.http.requestTimeoutMs + 5 * 60_000, (e) =>
    process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'upload temp sweep failed', err: String(e) })}\n`),
  );
  if (config.workers.enabled) await startWorkers(wired.deps);
  // The console's SDK module is built now, so the first page load does not wait for it.
  await consoleSettings().sdk.warm();
  await app.listen({ port: config.port, host: config.host });

  const base = config.publicUrl;
  const lines = [
    '',
    `Marionette is listening on ${base} (database: ${wired.deps.dialect}, workers: ${config.workers.enabled ? 'in-process' : 'off'})`,
  ];
  if (demo) {
    lines.push(`Created a demo account with 100 credits. Its API key (shown once, also saved to ${demo.keyFile}):`, `  ${demo.apiKey}`);
  }
  lines.push(
    'Try:',
    `  curl -H "Authorization: Bearer $(cat ${config.dataDir}/demo-api-key)" ${base}/v1/credits`,
    `  curl -H "Authorization: Bearer $(cat ${config.dataDir}/demo-api-key)" -X POST ${base}/v1/renders`,
    `  API description: ${base}/v1/openapi.json`,
    `  Web console: ${base}/console/ (sign in with the API key)`,
    '',
  );
  process.stdout.write(lines.join('\n') + '\n');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    stopSweep();
    await app.close();
    await wired.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((e) => {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`marionette failed to start: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
