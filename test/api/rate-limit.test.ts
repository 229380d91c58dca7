import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';
import { MemoryRateLimitStore } from '../../src/infra/ratelimit/memory-rate-limit-store.js';

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
});

for (const target of await dbTargets()) {
  describe(`rate limits (${target.kind})`, { skip: target.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({
        db: target.kind,
        env: { MARIONETTE_RATE_LIMITS: 'true', MARIONETTE_RATE_READ_PER_S: '2', MARIONETTE_RATE_CREATE_PER_S: '1', MARIONETTE_RATE_CREATE_BURST: '3' },
      });
    });
    after(() => svc?.close());

    const create = (key?: string) => svc.request('/v1/renders/prepare', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', key });

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
