import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';
import { MemoryRateLimitStore } from '../../src/infra/ratelimit/memory-rate-limit-store.js';
import { loadConfig } from '../../src/config/config.js';

/**
 * Per-API-key token buckets (DECISIONS "Rate limits"), with small numbers so the test is quick:
 * reads 2/s (burst 2), creations 1/s with bursts of 3. Over the limit: 429 RATE_LIMITED with
 * Retry-After (whole seconds >= 1) and remediation.retry_after_ms.
 */

describe('in-process token bucket store', () => {
  it('spends, refuses with the exact wait, and refills with time', async () => {
    let now = 0;
    const store = new MemoryRateLimitStore(() => now);
    const rule = { ratePerSecond: 4, burst: 2 };
    assert.deepEqual(await store.take('k', rule), { allowed: true, remaining: 1, retryAfterMs: 0 });
    assert.deepEqual(await store.take('k', rule), { allowed: true, remaining: 0, retryAfterMs: 0 });
    assert.deepEqual(await store.take('k', rule), { allowed: false, remaining: 0, retryAfterMs: 250 });
    now = 100;
    assert.equal((await store.take('k', rule)).retryAfterMs, 150);
    now = 250;
    assert.equal((await store.take('k', rule)).allowed, true);
    now = 10_000; // long idle: the bucket is full again, never fuller than the burst
    assert.equal((await store.take('k', rule)).remaining, 1);
    assert.equal((await store.take('other', rule)).remaining, 1, 'keys are independent');
  });

  it('the default numbers: creations burst 40 then 20/s, reads 100/s; a refusal spends nothing', async () => {
    const config = loadConfig({});
    assert.deepEqual({ ...config.rateLimits }, { enabled: true, createPerSecond: 20, createBurst: 40, readPerSecond: 100 });
    let now = 0;
    const store = new MemoryRateLimitStore(() => now);
    const create = { ratePerSecond: 20, burst: 40 };
    let allowed = 0;
    for (let i = 0; i < 45; i++) if ((await store.take('c', create)).allowed) allowed++;
    assert.equal(allowed, 40, 'a burst of 40');
    assert.equal((await store.take('c', create)).retryAfterMs, 50, 'one token every 50 ms');
    now = 1000;
    allowed = 0;
    for (let i = 0; i < 30; i++) if ((await store.take('c', create)).allowed) allowed++;
    assert.equal(allowed, 20, '20 more after a second, despite the refused attempts');
    const read = { ratePerSecond: 100, burst: 100 };
    allowed = 0;
    for (let i = 0; i < 150; i++) if ((await store.take('r', read)).allowed) allowed++;
    assert.equal(allowed, 100);
    assert.equal((await store.take('r', read)).retryAfterMs, 10);
  });
});

for (const target of await dbTargets()) {
  describe(`rate limits (${target.kind})`, { skip: target.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({
        db: target.kind,
        env: {
          MARIONETTE_RATE_LIMITS: 'true',
          MARIONETTE_RATE_READ_PER_S: '2',
          MARIONETTE_RATE_CREATE_PER_S: '1',
          MARIONETTE_RATE_CREATE_BURST: '3',
        },
      });
    });
    after(() => svc?.close());

    const create = (key?: string) =>
      svc.request('/v1/renders/prepare', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', key });

    function assertLimited(err: Awaited<ReturnType<typeof errorOf>>, res: Response, maxWaitMs: number): number {
      assert.equal(err.status, 429);
      assert.equal(err.code, 'RATE_LIMITED');
      assert.equal(err.body.error.retryable, true);
      assert.equal(err.body.error.remediation.action, 'retry_later');
      const waitMs = err.body.error.remediation.retry_after_ms;
      assert.ok(Number.isInteger(waitMs) && waitMs >= 1 && waitMs <= maxWaitMs, `retry_after_ms ${waitMs}`);
      const retryAfter = res.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^[1-9]\d*$/);
      assert.equal(Number(retryAfter), Math.ceil(waitMs / 1000));
      assert.equal(err.requestId, err.body.error.request_id);
      return waitMs;
    }

    it('reads over the limit get 429 with Retry-After and retry_after_ms, then pass after the wait', async () => {
      assert.equal((await svc.request('/v1/credits')).status, 200);
      assert.equal((await svc.request('/v1/credits')).status, 200);
      const res = await svc.request('/v1/credits');
      const waitMs = assertLimited(await errorOf(res.clone()), res, 500);
      await new Promise((r) => setTimeout(r, waitMs + 20));
      assert.equal((await svc.request('/v1/credits')).status, 200);
    });

    it('creations have their own bucket with bursts, per API key', async () => {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await create()).status);
      assert.deepEqual(statuses, [200, 200, 200], 'a burst of 3 passes');
      const res = await create();
      assertLimited(await errorOf(res.clone()), res, 1000);
      const drafts = await svc.wired.deps.db.selectFrom('drafts').select('id').where('account_id', '=', svc.accountId).execute();
      assert.equal(drafts.length, 3, 'the refused creation did nothing');

      const other = await svc.newAccount();
      assert.equal((await create(other.apiKey)).status, 200, "another key's bucket is full");
    });

    it('event streams and downloads count as reads; signed /files URLs are outside the limits; buckets are per key', async () => {
      const fresh = await svc.newAccount();
      const { Readable } = await import('node:stream');
      await svc.wired.deps.storage.putStream('renders/rl-test/output/video.mp4', Readable.from([Buffer.from('x')]));
      const signed = await svc.wired.deps.storage.signedGetUrl('renders/rl-test/output/video.mp4', 60);
      for (let i = 0; i < 6; i++) assert.equal((await fetch(signed)).status, 200, 'signed file reads are not limited');
      // Two reads in the bucket, spent on an event stream connect and a download of unknown renders.
      const bogus = 'render_00000000000000000000000000';
      assert.notEqual((await svc.request(`/v1/renders/${bogus}/events`, { key: fresh.apiKey })).status, 429);
      assert.notEqual((await svc.request(`/v1/renders/${bogus}/download`, { key: fresh.apiKey })).status, 429);
      const res = await svc.request('/v1/credits', { key: fresh.apiKey });
      assertLimited(await errorOf(res.clone()), res, 500);
      const another = await svc.newAccount();
      assert.equal((await svc.request('/v1/credits', { key: another.apiKey })).status, 200, "another key's read bucket is untouched");
      await svc.wired.deps.storage.deletePrefix('renders/rl-test/');
    });

    it('requests without a valid key are refused by authentication, not counted', async () => {
      for (let i = 0; i < 5; i++) {
        const err = await errorOf(await svc.request('/v1/credits', { key: 'mk_live_not-a-key' }));
        assert.equal(err.status, 401);
      }
      const fresh = await svc.newAccount();
      assert.equal((await svc.request('/v1/credits', { key: fresh.apiKey })).status, 200);
    });
  });
}
