import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { ApiKeyCache, invalidateApiKey } from '../../src/domain/accounts/key-cache.js';
import { migrate, openDb, type DbHandle } from '../../src/infra/db/database.js';
import { sql } from 'kysely';
import { compiledOnce } from '../../src/infra/db/compiled.js';
import { revokeKey } from '../../src/domain/accounts/accounts.service.js';
import { FileSignalBus } from '../../src/infra/pubsub/file-signal-bus.js';
import { signalFileOf } from '../../src/config/database-url.js';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';

/**
 * The read path (issue #14): the API-key cache (TTL, bound, instant revocation in this process and
 * across processes), queries compiled once, and an API process without workers never loading a model.
 */
describe('ApiKeyCache', () => {
  it('keeps a key for its TTL only, and is bounded', () => {
    const c = new ApiKeyCache({ ttlMs: 1000, confirmEachUse: true, maxEntries: 3 });
    c.set('h1', { accountId: 'a', keyId: 'k1' }, 0);
    assert.deepEqual({ ...c.get('h1', 999) }, { accountId: 'a', keyId: 'k1', expiresAt: 1000 });
    assert.equal(c.get('h1', 1000), undefined);
    for (let i = 0; i < 10; i++) c.set(`x${i}`, { accountId: 'a', keyId: `k${i}` }, 0);
    assert.equal(c.size, 3);
    assert.ok(c.get('x9', 1));
    assert.equal(c.get('x0', 1), undefined);
  });

  it('a TTL of 0 caches nothing', () => {
    const c = new ApiKeyCache({ ttlMs: 0, confirmEachUse: true });
    c.set('h', { accountId: 'a', keyId: 'k' });
    assert.equal(c.get('h'), undefined);
  });

  it('invalidateApiKey (the cross-process hook) drops a key from every cache of the process', () => {
    const a = new ApiKeyCache({ ttlMs: 60_000, confirmEachUse: false });
    const b = new ApiKeyCache({ ttlMs: 60_000, confirmEachUse: false });
    a.set('h', { accountId: 'acc', keyId: 'key_1' });
    b.set('h2', { accountId: 'acc', keyId: 'key_1' });
    b.set('h3', { accountId: 'acc', keyId: 'key_2' });
    invalidateApiKey('key_1');
    assert.equal(a.get('h'), undefined);
    assert.equal(b.get('h2'), undefined);
    assert.ok(b.get('h3'));
  });
});

describe('compiledOnce', () => {
  let h: DbHandle;
  before(async () => {
    h = await openDb({ url: 'sqlite::memory:' });
    await h.db.schema.createTable('t').addColumn('id', 'text').addColumn('n', 'integer').execute();
    await h.db
      .insertInto('t' as never)
      .values([
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
        { id: 'c', n: 3 },
      ] as never)
      .execute();
  });
  after(() => h?.close());

  it('runs one compiled query with new arguments each call, constants kept', async () => {
    const q = compiledOnce((db, id: string, limit: number) =>
      (db as any).selectFrom('t').select(['id', 'n']).where('id', '>=', id).where('n', '<', 100).orderBy('id').limit(limit),
    );
    assert.deepEqual(await q(h.db, 'a', 2), [
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    assert.deepEqual(await q(h.db, 'b', 5), [
      { id: 'b', n: 2 },
      { id: 'c', n: 3 },
    ]);
    assert.deepEqual(await q(h.db, 'z', 5), []);
  });
});

for (const t of await dbTargets()) {
  describe(`API-key cache in the service (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    before(async () => {
      // A long TTL: revocation must not wait for it.
      svc = await startService({ db: t.kind, env: { MARIONETTE_API_KEY_CACHE_MS: '600000' } });
    });
    after(() => svc?.close());

    it('a key revoked through the service stops working at once', async () => {
      const other = await svc.newAccount();
      assert.equal((await svc.request('/v1/credits', { key: other.apiKey })).status, 200);
      const row = await svc.wired.deps.db
        .selectFrom('api_keys')
        .select('id')
        .where('account_id', '=', other.accountId)
        .executeTakeFirstOrThrow();
      await revokeKey(svc.wired.deps.db, row.id);
      const e = await errorOf(await svc.request('/v1/credits', { key: other.apiKey }));
      assert.equal(e.status, 401);
      assert.equal(e.code, 'INVALID_CREDENTIAL');
    });

    it('a key revoked by another process stops working at once', async () => {
      const other = await svc.newAccount();
      for (let i = 0; i < 3; i++) assert.equal((await svc.request('/v1/credits', { key: other.apiKey })).status, 200);
      // Another connection, as another process would have: this process's cache is not told directly.
      const outside =
        t.kind === 'sqlite'
          ? await openDb({ url: svc.config.databaseUrl })
          : await openDb({ url: process.env.MARIONETTE_TEST_PG_URL!, schema: await currentSchema(svc) });
      try {
        if (t.kind === 'sqlite') {
          // SQLite: cached keys are not re-read on each use; the revoking process announces the key
          // through the signal file beside the database, as `npm run admin -- key revoke` does.
          assert.equal(svc.config.apiKeyCache.confirmEachUse, false);
          const row = await outside.db
            .selectFrom('api_keys')
            .select('id')
            .where('account_id', '=', other.accountId)
            .executeTakeFirstOrThrow();
          const bus = FileSignalBus.open(signalFileOf(svc.config.databaseUrl)!);
          try {
            assert.deepEqual(await revokeKey(outside.db, row.id, bus), { revoked: true, announced: true });
          } finally {
            await bus.close();
          }
        } else {
          // PostgreSQL without Redis: a direct write with no notice at all, confirmed on each use.
          assert.equal(svc.config.apiKeyCache.confirmEachUse, true);
          await outside.db
            .updateTable('api_keys')
            .set({ revoked_at: new Date().toISOString() })
            .where('account_id', '=', other.accountId)
            .execute();
        }
      } finally {
        await outside.close();
      }
      const e = await errorOf(await svc.request('/v1/videos', { key: other.apiKey }));
      assert.equal(e.status, 401);
      assert.equal(e.code, 'INVALID_CREDENTIAL');
      // The main key is unaffected.
      assert.equal((await svc.request('/v1/credits')).status, 200);
    });

    it('an API process without workers loads no model', async () => {
      // No body at all is the default render (an empty multipart form is refused since request-body hardening).
      const res = await svc.request('/v1/renders', { method: 'POST' });
      assert.ok(res.status < 300, await res.clone().text());
      for (const p of ['/v1/credits', '/v1/videos', '/v1/characters', '/v1/motions']) assert.equal((await svc.request(p)).status, 200, p);
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /@vladmandic[\\/]human|tfjs/.test(k));
      assert.deepEqual(loaded, []);
    });
  });
}

async function currentSchema(svc: TestService): Promise<string> {
  const { sql } = await import('kysely');
  const r = await sql<{ s: string }>`select current_schema() as s`.execute(svc.wired.deps.db);
  return r.rows[0].s;
}

describe('video list query plan (SQLite)', () => {
  it("pages newest first by an index: no sort of all of the account's videos", async () => {
    const h = await openDb({ url: 'sqlite::memory:' });
    try {
      await migrate(h.db);
      const plans: string[] = [];
      for (const q of [
        `select * from videos where account_id = 'a' order by created_at desc, id desc limit 21`,
        `select * from videos where account_id = 'a' and status = 'ready' order by created_at desc, id desc limit 21`,
      ]) {
        const rows = await sql<{ detail: string }>`${sql.raw(`explain query plan ${q}`)}`.execute(h.db);
        plans.push(rows.rows.map((r) => r.detail).join(' | '));
      }
      for (const p of plans) {
        assert.doesNotMatch(p, /TEMP B-TREE/, p);
        assert.match(p, /videos_account_(status_)?created_idx/, p);
      }
    } finally {
      await h.close();
    }
  });
});
