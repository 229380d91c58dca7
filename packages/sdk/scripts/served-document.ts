/** Reads GET /v1/openapi.json from a service built in-process (no port, no workers, temp data dir). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/config.js';
import { buildHttpApp, wire } from '../../../src/main/wire.js';

export async function servedDocument(): Promise<unknown> {
  const dataDir = await mkdtemp(join(tmpdir(), 'marionette-openapi-'));
  try {
    const config = loadConfig({
      MARIONETTE_DATA_DIR: dataDir,
      MARIONETTE_LOG_LEVEL: 'silent',
      MARIONETTE_WORKERS: 'false',
      MARIONETTE_ENGINE_WARMUP: 'false',
    });
    const wired = await wire(config);
    const app = await buildHttpApp(wired.deps, { logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
      return res.json();
    } finally {
      await app.close();
      await wired.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
