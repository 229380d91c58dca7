/**
 * One "API process" starting on a database: opens it, waits until the shared start time (so several
 * starters reach the empty-database check together), runs the first-start demo account step and
 * prints what it did as JSON. Used by the admin tests.
 */
import { loadConfig } from '../../src/config/config.js';
import { openDb } from '../../src/infra/db/database.js';
import { ensureDemoAccount } from '../../src/main/bootstrap.js';

const [url, dataDir, goAt] = process.argv.slice(2);
const handle = await openDb({ url });
try {
  await new Promise((r) => setTimeout(r, Math.max(0, Number(goAt) - Date.now())));
  const made = await ensureDemoAccount(handle.db, loadConfig({ MARIONETTE_DATA_DIR: dataDir, MARIONETTE_DATABASE_URL: url }));
  process.stdout.write(JSON.stringify({ created: made !== null, apiKey: made?.apiKey ?? null }) + '\n');
} finally {
  await handle.close();
}
