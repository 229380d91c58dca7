import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { ID_PREFIX } from '../contracts/ids.js';
import { countAccounts, createAccount } from '../domain/accounts/accounts.service.js';
import { isUniqueViolation, type Db } from '../infra/db/database.js';

/**
 * The demo account's ID is fixed, so that API processes starting together on one empty database
 * (a scaled-out deployment's first start) create it once: the others' inserts hit its primary key.
 */
export const DEMO_ACCOUNT_ID = `${ID_PREFIX.account}00000000000000000000000001`;

/**
 * First start on an empty database: a demo account with 100 credits, whose key is printed once and
 * kept in `<data dir>/demo-api-key` (mode 0600) so the README's curl line works. A key file left
 * from an earlier database (reset, or another DATABASE_URL) names an account that does not exist
 * here, so it is replaced rather than kept: the file always holds the key that was just printed.
 */
export async function ensureDemoAccount(db: Db, config: Config): Promise<{ apiKey: string; keyFile: string } | null> {
  if ((await countAccounts(db)) > 0) return null;
  let apiKey: string;
  try {
    ({ apiKey } = await createAccount(db, { name: 'demo', credits: 100, id: DEMO_ACCOUNT_ID }));
  } catch (err) {
    // Another process created it between the count and the insert; it prints and keeps the key.
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  const keyFile = join(config.dataDir, 'demo-api-key');
  writeFileSync(keyFile, apiKey + '\n', { mode: 0o600 });
  // `mode` applies only when the file is created; an existing file keeps its old permissions.
  chmodSync(keyFile, 0o600);
  return { apiKey, keyFile };
}
