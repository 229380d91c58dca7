import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKeyCache } from '../../src/domain/accounts/key-cache.js';
import { announceKeyRevoked, followKeyRevocations } from '../../src/domain/accounts/key-revocations.js';
import { RedisPubSub } from '../../src/infra/pubsub/redis-pubsub.js';
import { ownRedis, type TestRedis } from '../helpers/redis.js';

/**
 * API-key revocations pushed over Redis pub/sub, on a private redis-server this test kills and
 * restarts: a revocation announced by another connection (as the admin command does) drops the key
 * from this process's cache; while Redis is away the cache confirms every cached key against the
 * database; after Redis is back every cache is emptied (messages may have been lost meanwhile).
 */
const redis: TestRedis = await ownRedis();

async function until(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('API-key revocations over Redis pub/sub', { skip: redis.skip }, () => {
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
    await redis.close();
  });

  it('a revocation from another process drops the key at once; while Redis is away cached keys are confirmed; after it the cache is emptied', async () => {
    const api = new RedisPubSub(redis.url, redis.prefix);
    const admin = new RedisPubSub(redis.url, redis.prefix);
    closers.push(
      () => api.close(),
      () => admin.close(),
    );
    const feed = await followKeyRevocations(api);
    closers.push(() => feed.close());
    // Pushed revocations only: without the feed this cache would trust a key for ten minutes.
    const cache = new ApiKeyCache({ ttlMs: 600_000, confirmEachUse: false, revocations: feed });
    await until('the feed to be live', () => feed.live());
    assert.equal(cache.mustConfirm(), false);
    cache.set('h1', { accountId: 'acc_1', keyId: 'key_1' });
    cache.set('h2', { accountId: 'acc_1', keyId: 'key_2' });

    await announceKeyRevoked(admin, 'key_1');
    await until('key_1 to leave the cache', () => cache.get('h1') === undefined);
    assert.ok(cache.get('h2'), 'another key stays cached');

    await redis.kill!();
    await until('the feed to notice Redis is gone', () => !feed.live());
    assert.equal(cache.mustConfirm(), true, 'cached keys are confirmed against the database while revocations cannot arrive');
    assert.ok(cache.get('h2'), 'the entry is kept, only confirmed on use');

    await redis.start!();
    await until('the feed to be live again', () => feed.live());
    assert.equal(cache.size, 0, 'a revocation may have been missed: the cache was emptied');
    assert.equal(cache.mustConfirm(), false);

    // Delivery works on the new connection.
    cache.set('h3', { accountId: 'acc_1', keyId: 'key_3' });
    await announceKeyRevoked(admin, 'key_3');
    await until('key_3 to leave the cache', () => cache.get('h3') === undefined);
  });
});
