import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, openDb, type DbHandle } from '../../src/infra/db/database.js';
import { loadConfig } from '../../src/config/config.js';
import { DEMO_ACCOUNT_ID, ensureDemoAccount } from '../../src/main/bootstrap.js';
import { childEnv, dbTargets, startProcess, type ChildService, type DbKind } from '../helpers/harness.js';
import { insertCharacterRow, insertMotionRow } from '../helpers/asset-rows.js';

/**
 * The operator's surface, as an operator uses it: the real server process (`npm start`) on an
 * empty data dir, and `npm run admin -- <command>` as a child process against the same database.
 * Everything is checked through stdout JSON, exit codes and real HTTP.
 */

/** The admin CLI's environment: only what the test sets, so the developer's MARIONETTE_* cannot leak in. */
function adminEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return childEnv({ MARIONETTE_LOG_LEVEL: 'silent', MARIONETTE_RATE_LIMITS: 'false', ...extra });
}

interface AdminResult {
  code: number;
  out: any;
  stderr: string;
}

function admin(env: Record<string, string>, ...args: string[]): Promise<AdminResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main/admin.ts', ...args],
      { env: adminEnv(env), timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        let out: any = null;
        try {
          out = stdout.trim() ? JSON.parse(stdout) : null;
        } catch {
          out = { unparsable: stdout };
        }
        resolve({ code, out, stderr });
      },
    );
  });
}

/** `npm start` on the test's database, workers off (the admin CLI is what is under test). */
function startServer(env: Record<string, string>): Promise<ChildService> {
  return startProcess('server', { env: { ...env, MARIONETTE_LOG_LEVEL: 'silent', MARIONETTE_WORKERS: 'false' } });
}

/** A fresh empty database of the kind: a SQLite file in the data dir, or a new PostgreSQL database. */
async function freshDatabase(kind: DbKind, dataDir: string): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (kind === 'sqlite') return { env: { MARIONETTE_DATA_DIR: dataDir }, drop: async () => {} };
  const base = process.env.MARIONETTE_TEST_PG_URL!;
  const name = `adm_${randomBytes(6).toString('hex')}`;
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(sql).finally(() => c.end());
  };
  await run(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    env: { MARIONETTE_DATA_DIR: dataDir, MARIONETTE_DATABASE_URL: url.toString() },
    drop: () => run(`drop database if exists ${name} with (force)`),
  };
}

const execFileAsync = promisify(execFile);

const KEY_RE = /mk_live_[A-Za-z0-9_-]{32}/;

for (const t of await dbTargets()) {
  describe(`admin CLI and first start (${t.kind})`, { skip: t.skip }, () => {
    let dataDir: string;
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    let server: ChildService;
    let db: DbHandle;
    const get = (path: string, key: string) => fetch(server.baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
    const credits = async (key: string) => (await (await get('/v1/credits', key)).json()) as any;
    const countAccounts = async () => (await db.db.selectFrom('accounts').select('id').execute()).length;

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'marionette-admin-'));
      ({ env, drop } = await freshDatabase(t.kind, dataDir));
      server = await startServer(env);
      db = await openDb({ url: env.MARIONETTE_DATABASE_URL ?? `sqlite:${join(dataDir, 'marionette.sqlite')}` });
    });
    after(async () => {
      await server?.stop();
      await db?.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    test('first start: a demo account with 100 credits; its key printed once and kept in demo-api-key (0600)', async () => {
      const file = join(dataDir, 'demo-api-key');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const saved = (await readFile(file, 'utf8')).trim();
      assert.match(saved, new RegExp(`^${KEY_RE.source}$`));
      const printed = server.stdout().match(KEY_RE)?.[0];
      assert.equal(printed, saved, 'the printed key is the saved key');
      assert.equal(server.stdout().split(saved).length, 2, 'printed exactly once');
      const body = await credits(saved);
      assert.deepEqual([body.balance, body.reserved], [100, 0]);
      assert.equal(await countAccounts(), 1);
      const keys = await db.db.selectFrom('api_keys').selectAll().execute();
      assert.equal(keys.length, 1);
      assert.notEqual(keys[0].secret_hash, saved, 'only a hash is stored');
      assert.ok(!JSON.stringify(keys).includes(saved.slice(8)), 'no part of the secret beyond the display prefix is stored');
    });

    test('account create, key create, key revoke, credits grant: JSON out, and the keys work over HTTP', async () => {
      const created = await admin(env, 'account', 'create', '--name', 'Acme', '--credits', '12.5');
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.out.account_id, /^acct_[0-9A-Z]{26}$/);
      assert.match(created.out.key_id, /^key_[0-9A-Z]{26}$/);
      assert.match(created.out.api_key, new RegExp(`^${KEY_RE.source}$`));
      assert.equal(created.out.credits, 12.5);
      assert.deepEqual([(await credits(created.out.api_key)).balance, (await credits(created.out.api_key)).reserved], [12.5, 0]);

      const second = await admin(env, 'key', 'create', '--account', created.out.account_id);
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(Object.keys(second.out).sort(), ['api_key', 'key_id']);
      assert.notEqual(second.out.api_key, created.out.api_key);
      assert.equal((await credits(second.out.api_key)).balance, 12.5, 'a second key of the same account');

      const revoked = await admin(env, 'key', 'revoke', created.out.key_id);
      assert.equal(revoked.code, 0, revoked.stderr);
      // SQLite announces the revocation to the API processes through the signal file beside the
      // database; PostgreSQL without Redis announces nothing (its API processes confirm each use).
      assert.deepEqual(
        revoked.out,
        t.kind === 'sqlite'
          ? { key_id: created.out.key_id, revoked: true, announced: true }
          : { key_id: created.out.key_id, revoked: true },
      );
      const res = await get('/v1/credits', created.out.api_key);
      const err = (await res.json()) as any;
      assert.deepEqual([res.status, err.error.code, err.error.remediation.action], [401, 'INVALID_CREDENTIAL', 'replace_credential']);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await get('/v1/credits', second.out.api_key)).status, 200, 'the other key still works');

      const granted = await admin(env, 'credits', 'grant', '--account', created.out.account_id, '--amount', '7.25');
      assert.equal(granted.code, 0, granted.stderr);
      assert.deepEqual(granted.out, { account_id: created.out.account_id, granted: 7.25 });
      assert.equal((await credits(second.out.api_key)).balance, 19.75);
      const grants = await db.db.selectFrom('ledger').selectAll().where('account_id', '=', created.out.account_id).execute();
      assert.deepEqual(grants.map((r) => [r.kind, r.amount_milli]).sort(), [
        ['grant', 12500],
        ['grant', 7250],
      ]);
    });

    test('refusals: unknown account or key exit 1 with a JSON message; usage errors exit 2', async () => {
      const ghost = 'acct_01HZZZZZZZZZZZZZZZZZZZZZZZ';
      const refused = [
        ['key', 'create', '--account', ghost],
        ['key', 'revoke', 'key_01HZZZZZZZZZZZZZZZZZZZZZZZ'],
        ['credits', 'grant', '--account', ghost, '--amount', '5'],
      ];
      const misused = [['account', 'create', '--credits', '5'], ['credits', 'grant', '--account', ghost, '--amount', '-3'], ['nonsense']];
      const accountsBefore = await countAccounts();
      const results = await Promise.all([...refused, ...misused].map((args) => admin(env, ...args)));
      results.slice(0, refused.length).forEach((r, i) => {
        assert.equal(r.code, 1, `${refused[i].join(' ')}: ${r.stderr}`);
        assert.match(JSON.parse(r.stderr).error, /no (account|key)/);
        assert.equal(r.out, null, 'nothing on stdout');
      });
      results.slice(refused.length).forEach((r, i) => {
        assert.equal(r.code, 2, `${misused[i].join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /usage/);
      });
      assert.equal(await countAccounts(), accountsBefore, 'no account was created by a refused command');
    });

    test("project set-defaults: only the account's own usable assets, and a default render uses them", async () => {
      const [acct, other] = await Promise.all([
        admin(env, 'account', 'create', '--name', 'Studio', '--credits', '10'),
        admin(env, 'account', 'create', '--name', 'Other', '--credits', '1'),
      ]);
      const id = acct.out.account_id;
      const char = await insertCharacterRow(db.db, id, 'ready');
      const mot = await insertMotionRow(db.db, id, 'ready', 1500);
      const foreign = await insertMotionRow(db.db, other.out.account_id, 'ready');
      const failed = await insertCharacterRow(db.db, id, 'failed');

      const refusals: [string[], RegExp][] = [
        [['--character', char, '--motion', foreign], /no Motion .* belongs to account/],
        [['--character', 'char_nope', '--motion', mot], /no Character char_nope/],
        [['--character', mot], /no Character mot_/],
        [['--character', failed], /failed and cannot be a default/],
      ];
      const answers = await Promise.all(refusals.map(([flags]) => admin(env, 'project', 'set-defaults', '--account', id, ...flags)));
      answers.forEach((r, i) => {
        assert.equal(r.code, 1, `${refusals[i][0].join(' ')}: ${r.stderr}`);
        assert.match(JSON.parse(r.stderr).error, refusals[i][1]);
      });
      const untouched = await db.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual([untouched.default_character_id, untouched.default_motion_id], [null, null], 'a refusal changes nothing');

      const ok = await admin(env, 'project', 'set-defaults', '--account', id, '--character', char, '--motion', mot);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(ok.out, { account_id: id, default_character_id: char, default_motion_id: mot });

      const res = await fetch(server.baseUrl + '/v1/renders', { method: 'POST', headers: { authorization: `Bearer ${acct.out.api_key}` } });
      const render = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(render));
      const row = await db.db.selectFrom('videos').selectAll().where('id', '=', render.id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [JSON.parse(row.character_source), JSON.parse(row.motion_source)],
        [
          { kind: 'character', id: char },
          { kind: 'motion', id: mot },
        ],
      );
      assert.deepEqual(
        [(await credits(acct.out.api_key)).balance, (await credits(acct.out.api_key)).reserved],
        [8, 2],
        'ceil(1.5 s) reserved',
      );

      // An omitted flag keeps its default; "none" clears one.
      const cleared = await admin(env, 'project', 'set-defaults', '--account', id, '--motion', 'none');
      assert.deepEqual(cleared.out, { account_id: id, default_character_id: char, default_motion_id: null });
    });

    test('a second start on the same data dir creates no other account and prints no key', async () => {
      await server.stop();
      const before = await countAccounts();
      const saved = await readFile(join(dataDir, 'demo-api-key'), 'utf8');
      server = await startServer(env);
      assert.doesNotMatch(server.stdout(), KEY_RE);
      assert.doesNotMatch(server.stdout(), /Created a demo account/);
      assert.equal(await countAccounts(), before);
      assert.equal(await readFile(join(dataDir, 'demo-api-key'), 'utf8'), saved);
      assert.equal((await credits(saved.trim())).balance, 100);
    });
  });
}

describe('demo account on a fresh database beside an old key file', () => {
  test('the stale demo-api-key is replaced by the new key, mode 0600', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'marionette-demo-'));
    const handle = await openDb({ url: `sqlite:${join(dir, 'marionette.sqlite')}` });
    try {
      await migrate(handle.db);
      const file = join(dir, 'demo-api-key');
      await writeFile(file, 'mk_live_from_an_earlier_database_0000000\n');
      await chmod(file, 0o644);
      const demo = await ensureDemoAccount(handle.db, loadConfig({ MARIONETTE_DATA_DIR: dir }));
      assert.ok(demo);
      assert.equal((await readFile(file, 'utf8')).trim(), demo.apiKey);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal(await ensureDemoAccount(handle.db, loadConfig({ MARIONETTE_DATA_DIR: dir })), null, 'only once');
    } finally {
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

for (const t of await dbTargets()) {
  describe(`demo account when several processes start together (${t.kind})`, { skip: t.skip }, () => {
    test('one demo account is created, once; every other starter creates nothing', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'marionette-demo-race-'));
      const { env, drop } = await freshDatabase(t.kind, dir);
      const url = env.MARIONETTE_DATABASE_URL ?? `sqlite:${join(dir, 'marionette.sqlite')}`;
      const first = await openDb({ url });
      try {
        await migrate(first.db);
        // Four processes, each released at the same moment once loaded, all find the database empty.
        const goAt = String(Date.now() + 4000);
        const starter = join(import.meta.dirname, '../helpers/demo-starter.ts');
        const results = await Promise.all(
          [1, 2, 3, 4].map(async () => {
            const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', starter, url, dir, goAt], { timeout: 60_000 });
            return JSON.parse(stdout.trim()) as { created: boolean; apiKey: string | null };
          }),
        );
        const made = results.filter((r) => r.created);
        assert.equal(made.length, 1, `exactly one starter created the demo account: ${JSON.stringify(results)}`);
        const accounts = await first.db.selectFrom('accounts').select('id').execute();
        assert.deepEqual(
          accounts.map((a) => a.id),
          [DEMO_ACCOUNT_ID],
        );
        assert.equal((await first.db.selectFrom('api_keys').select('id').execute()).length, 1);
        assert.equal((await readFile(join(dir, 'demo-api-key'), 'utf8')).trim(), made[0].apiKey);
      } finally {
        await first.close();
        await drop();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
