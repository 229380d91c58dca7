import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { countAccounts, createAccount } from '../domain/accounts/accounts.service.js';
import type { Db } from '../infra/db/database.js';

/**
 * First start on an empty database: a demo account with 100 credits, whose key is printed once and
 * kept in `<data dir>/demo-api-key` (mode 0600) so the README's curl line works. A key file left
 * from an earlier database (reset, or another DATABASE_URL) names an account that does not exist
 * here, so it is replaced rather than kept: the file always holds the key that was just printed.
 */
export async function ensureDemoAccount(db: Db, config: Config): Promise<{ apiKey: string; keyFile: string } | null> {
  if ((await countAccounts(db)) > 0) return null;
  const { apiKey } = await createAccount(db, { name: 'demo', credits: 100 });
  const keyFile = join(config.dataDir, 'demo-api-key');
  writeFileSync(keyFile, apiKey + '\n', { mode: 0o600 });
  // `mode` applies only when the file is created; an existing file keeps its old permissions.
  chmodSync(keyFile, 0o600);
  return { apiKey, keyFile };
}
