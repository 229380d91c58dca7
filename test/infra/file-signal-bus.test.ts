import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSignalBus } from '../../src/infra/pubsub/file-signal-bus.js';
import { ApiKeyCache } from '../../src/domain/accounts/key-cache.js';
import { announceKeyRevoked, followKeyRevocations } from '../../src/domain/accounts/key-revocations.js';

/**
 * The signal file of a SQLite deployment (API-key revocations between its processes): what one bus
 * publishes reaches another on the same file through the watch and at once through catchUp; nothing
 * is lost or doubled when several write at once; a removed file makes the bus not live (caches then
 * confirm each key) until it is watched again, and consumers are told to resync.
 */
async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('FileSignalBus', () => {
  const dirs: string[] = [];
  const buses: FileSignalBus[] = [];
  after(async () => {
    for (const b of buses) await b.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function pair(): Promise<[FileSignalBus, FileSignalBus, string]> {
    const dir = await mkdtemp(join(tmpdir(), 'marionette-signals-'));
    dirs.push(dir);
    const path = join(dir, 'db.sqlite-signals');
    const a = FileSignalBus.open(path);
    const b = FileSignalBus.open(path);
    buses.push(a, b);
    return [a, b, path];
  }

  it('delivers to the other bus by the watch, and at once on catchUp; only its channel; nothing older than the open', async () => {
    const [a, b, path] = await pair();
    await writeFile(path, `${JSON.stringify(['c', 'from before'])}\n`, { flag: 'a' });
    const late = FileSignalBus.open(path);
    buses.push(late);
    const got: string[] = [];
    const other: string[] = [];
    const lateGot: string[] = [];
    await b.subscribe('c', (m) => got.push(m));
    await b.subscribe('d', (m) => other.push(m));
    await late.subscribe('c', (m) => lateGot.push(m));
    assert.ok(a.connected() && b.connected());
    await a.publish('c', 'one');
    b.catchUp();
    assert.deepEqual(got, ['one'], 'catchUp reads what was appended, without waiting for the watch');
    await a.publish('c', 'two');
    await until('the watch to deliver', () => got.length === 2);
    assert.deepEqual(got, ['one', 'two']);
    assert.deepEqual(other, []);
    await until('the late bus to see both', () => lateGot.length === 2);
    assert.deepEqual(lateGot, ['one', 'two'], 'a bus delivers only what was appended after it opened');
  });

  it('many messages from two writers at once: each delivered exactly once, in the order each wrote them', async () => {
    const [a, b] = await pair();
    const got: string[] = [];
    await b.subscribe('k', (m) => got.push(m));
    const writers = [a, b].map(async (bus, w) => {
      for (let i = 0; i < 200; i++) await bus.publish('k', `${w}:${i}`);
    });
    await Promise.all(writers);
    b.catchUp();
    assert.equal(got.length, 400);
    assert.equal(new Set(got).size, 400);
    for (const w of [0, 1]) {
      const seq = got.filter((m) => m.startsWith(`${w}:`)).map((m) => Number(m.split(':')[1]));
      assert.deepEqual(
        seq,
        [...seq].sort((x, y) => x - y),
      );
    }
  });

  it('a removed file: not live (revocations then confirmed against the database), watched again within seconds, caches emptied', async () => {
    const [admin, api, path] = await pair();
    const feed = await followKeyRevocations(api);
    const cache = new ApiKeyCache({ ttlMs: 600_000, confirmEachUse: false, revocations: feed });
    cache.set('h1', { accountId: 'acc_1', keyId: 'key_1' });
    cache.set('h2', { accountId: 'acc_1', keyId: 'key_2' });
    assert.equal(cache.mustConfirm(), false);
    await announceKeyRevoked(admin, 'key_1');
    assert.equal(cache.get('h1'), undefined, 'dropped before the cached key is trusted (catchUp on get)');
    assert.ok(cache.get('h2'));

    await unlink(path);
    await until('the bus to notice the file is gone', () => !feed.live());
    assert.equal(cache.mustConfirm(), true);
    await until('the bus to watch the file again', () => feed.live());
    assert.equal(cache.size, 0, 'a revocation may have been missed meanwhile: the cache was emptied');
    await feed.close();
  });
});
