import { parseArgs } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../config/config.js';
import { createAccount, createKey, grantCredits, revokeKey, setProjectDefaults } from '../domain/accounts/accounts.service.js';
import { migrate, openDb, type Db } from '../infra/db/database.js';
import { adminCommands } from './admin-commands.js';
import { RedisPubSub } from '../infra/pubsub/redis-pubsub.js';
import { FileSignalBus } from '../infra/pubsub/file-signal-bus.js';
import { signalFileOf } from '../config/database-url.js';

/**
 * `npm run admin -- <command>`: operator commands, each printing one JSON document.
 * Exit codes: 0 done, 1 refused or failed (message on stderr as JSON), 2 usage or config error.
 */
type Handler = (db: Db, flags: Record<string, string | undefined>, config: Config) => Promise<unknown>;

/**
 * `key revoke`: the revocation is announced to every API process, whose key caches drop the key at
 * once (src/domain/accounts/key-revocations.ts): over Redis pub/sub when configured, else on SQLite
 * through the signal file beside the database (infra/pubsub/file-signal-bus.ts). On PostgreSQL
 * without Redis nothing is announced: API processes then confirm cached keys on each use.
 */
async function revoke(db: Db, keyId: string, config: Config): Promise<unknown> {
  const signals = signalFileOf(config.databaseUrl);
  const bus =
    config.pubsub.driver === 'redis' && config.redis.url
      ? new RedisPubSub(config.redis.url, config.redis.prefix)
      : signals !== null
        ? FileSignalBus.open(signals)
        : null;
  if (!bus) return { key_id: keyId, ...(await revokeKey(db, keyId)) };
  try {
    return { key_id: keyId, ...(await revokeKey(db, keyId, bus)) };
  } finally {
    await bus.close();
  }
}

function need(flags: Record<string, string | undefined>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

class UsageError extends Error {}

const COMMANDS: Record<string, Handler> = {
  'account create': async (db, f) => {
    const credits = Number(f.credits ?? '0');
    if (!Number.isFinite(credits) || credits < 0) throw new UsageError('--credits must be a non-negative number');
    const r = await createAccount(db, { name: need(f, 'name'), credits });
    return { account_id: r.accountId, key_id: r.keyId, api_key: r.apiKey, credits };
  },
  'key create': async (db, f) => {
    const r = await createKey(db, need(f, 'account'));
    return { key_id: r.keyId, api_key: r.apiKey };
  },
  'key revoke': (db, f, config) => revoke(db, need(f, '_0'), config),
  'credits grant': async (db, f) => {
    const amount = Number(need(f, 'amount'));
    if (!Number.isFinite(amount) || amount <= 0) throw new UsageError('--amount must be a positive number');
    await grantCredits(db, need(f, 'account'), amount);
    return { account_id: f.account, granted: amount };
  },
  'project set-defaults': async (db, f) => {
    if (f.character === undefined && f.motion === undefined)
      throw new UsageError('give --character and/or --motion (an ID, or "none" to clear)');
    // An omitted flag keeps the current default; "none" clears it.
    const pick = (v: string | undefined) => (v === undefined ? undefined : v === 'none' ? null : v);
    const defaults = await setProjectDefaults(db, need(f, 'account'), { characterId: pick(f.character), motionId: pick(f.motion) });
    return { account_id: f.account, ...defaults };
  },
  ...adminCommands,
};

const USAGE = `usage: npm run admin -- <command> [options]
  account create --name N --credits C
  key create --account ACCOUNT_ID
  key revoke KEY_ID
  credits grant --account ACCOUNT_ID --amount C
  project set-defaults --account ACCOUNT_ID [--character CHAR_ID|none] [--motion MOT_ID|none]
${Object.keys(adminCommands)
  .map((c) => `  ${c} ...`)
  .join('\n')}`;

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      name: { type: 'string' },
      credits: { type: 'string' },
      account: { type: 'string' },
      amount: { type: 'string' },
      character: { type: 'string' },
      motion: { type: 'string' },
    },
  });
  const name = positionals.slice(0, 2).join(' ');
  const handler = COMMANDS[name];
  if (!handler) {
    process.stderr.write(USAGE + '\n');
    return 2;
  }
  const flags: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(values)) flags[k] = typeof v === 'string' ? v : undefined;
  positionals.slice(2).forEach((p, i) => (flags[`_${i}`] = p));
  const config = loadConfig(process.env);
  const schema = config.databaseSchema ?? undefined;
  const handle = await openDb({ url: config.databaseUrl, schema });
  try {
    await migrate(handle.db, { schema: handle.dialect === 'postgres' ? schema : undefined });
    const out = await handler(handle.db, flags, config);
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }) + '\n');
    return 1;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(e instanceof ConfigError ? `${e.message}\n` : `${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(2);
  },
);
