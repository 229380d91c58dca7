import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setProjectDefaults } from '../../src/domain/accounts/accounts.service.js';
import { settle } from '../../src/domain/billing/billing.service.js';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { insertMotionRow } from '../helpers/asset-rows.js';

/** GET /v1/credits and the credit rules of render creation (DECISIONS "Credits"). */

const insertMotion = (svc: TestService, accountId: string, durationMs: number) =>
  insertMotionRow(svc.wired.deps.db, accountId, 'ready', durationMs);

const ledgerOf = (svc: TestService, accountId: string) =>
  svc.wired.deps.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
const balanceRow = (svc: TestService, accountId: string) =>
  svc.wired.deps.db.selectFrom('balances').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();

for (const t of await dbTargets()) {
  describe(`credits (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 100 });
    });
    after(async () => svc?.close());

    test('GET /v1/credits reports balance, reserved and updated_at of the caller only', async () => {
      const res = await svc.request('/v1/credits');
      assert.equal(res.status, 200);
      const body = (await res.json()) as any;
      assert.deepEqual(Object.keys(body).sort(), ['balance', 'reserved', 'updated_at']);
      assert.equal(body.balance, 100);
      assert.equal(body.reserved, 0);
      assert.ok(!Number.isNaN(Date.parse(body.updated_at)));
      const other = await svc.newAccount(7);
      assert.equal(((await (await svc.request('/v1/credits', { key: other.apiKey })).json()) as any).balance, 7);
      const anon = await errorOf(await svc.request('/v1/credits', { key: null }));
      assert.deepEqual([anon.status, anon.code], [401, 'UNAUTHENTICATED']);
    });

    test("GET /v1/credits/ledger pages the caller's movements newest first, in credits, and only the caller's", async () => {
      const acct = await svc.newAccount(10);
      // Three movements: the grant, then a reservation and its settlement of a 2.5 s render (3 reserved, 2.5 charged).
      const motion = await insertMotion(svc, acct.accountId, 2500);
      const fd = new FormData();
      fd.append('motion_id', motion);
      fd.append('image', new Blob([Buffer.from('not read before the worker')], { type: 'image/png' }), 'x.png');
      const created = await svc.request('/v1/renders', { method: 'POST', key: acct.apiKey, body: fd });
      const renderId = created.status === 200 ? ((await created.json()) as any).id : null;
      if (renderId) await svc.wired.deps.db.transaction().execute((tx) => settle(tx, acct.accountId, renderId, 2500));
      const rows = await ledgerOf(svc, acct.accountId);
      const seen: any[] = [];
      let cursor: string | null = null;
      do {
        const res = await svc.request(`/v1/credits/ledger?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: acct.apiKey });
        assert.equal(res.status, 200);
        const page = (await res.json()) as any;
        assert.ok(page.items.length <= 1);
        seen.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      assert.equal(seen.length, rows.length, 'every row once');
      assert.deepEqual(
        seen.map((e) => e.id),
        rows.map((r) => r.id).reverse(),
        'newest first',
      );
      for (const e of seen) {
        const r = rows.find((x) => x.id === e.id)!;
        assert.equal(e.amount, Number(r.amount_milli) / 1000);
        assert.equal(e.reserved_delta, Number(r.reserved_delta_milli) / 1000);
        assert.equal(e.resource_id, r.resource_id);
        assert.equal(e.kind, r.kind);
      }
      assert.equal(seen.at(-1).kind, 'grant');
      assert.equal(seen.at(-1).amount, 10);
      // The main account sees none of these.
      const mine = (await (await svc.request('/v1/credits/ledger?limit=100')).json()) as any;
      assert.ok(mine.items.every((e: any) => !rows.some((r) => r.id === e.id)));
      // Numbers past the float range coerce to Infinity: refused, not handed to SQL (a 500 before).
      const huge = ['limit=1e400', 'limit=-1e400', `limit=${'9'.repeat(400)}`];
      for (const bad of ['limit=0', 'limit=101', ...huge, 'cursor=%21%21', `cursor=${Buffer.from('render_x').toString('base64url')}`]) {
        const err = await errorOf(await svc.request(`/v1/credits/ledger?${bad}`));
        assert.deepEqual([err.status, err.code], [400, 'INVALID_REQUEST'], bad);
      }
    });

    test('a render reserves ceil(seconds) credits; settlement shows thousandths', async () => {
      const acct = await svc.newAccount(10);
      const motion = await insertMotion(svc, acct.accountId, 2400);
      await setProjectDefaults(svc.wired.deps.db, acct.accountId, { characterId: null, motionId: motion });
      const res = await svc.request('/v1/renders', { method: 'POST', key: acct.apiKey });
      assert.equal(res.status, 200);
      const { id } = (await res.json()) as any;
      const afterReserve = (await (await svc.request('/v1/credits', { key: acct.apiKey })).json()) as any;
      assert.deepEqual([afterReserve.balance, afterReserve.reserved], [7, 3]);
      // Settling at the finished duration (what the render worker does) charges exactly 2.4 credits.
      await svc.wired.deps.db.transaction().execute((tx) => settle(tx, acct.accountId, id, 2400));
      const settled = (await (await svc.request('/v1/credits', { key: acct.apiKey })).json()) as any;
      assert.deepEqual([settled.balance, settled.reserved], [7.6, 0]);
    });

    test(
      'a render the balance cannot cover is refused with 402 and leaves nothing behind',
      { skip: !hasSharedMedia() && NO_MEDIA_REASON },
      async () => {
        const acct = await svc.newAccount(2);
        const motion = await insertMotion(svc, acct.accountId, 2001);
        const fd = new FormData();
        fd.append('image', new Blob([await readFile(mediaFile('images/mimicmotion--demo1.jpg'))]), 'me.jpg');
        fd.append('motion_id', motion);
        const storedBefore = await readdir(join(svc.config.storage.root, 'renders')).catch(() => [] as string[]);
        const e = await errorOf(await svc.request('/v1/renders', { method: 'POST', body: fd, key: acct.apiKey }));
        assert.deepEqual(
          [e.status, e.code, e.body.error.details.required, e.body.error.details.balance],
          [402, 'INSUFFICIENT_CREDITS', 3, 2],
        );
        assert.equal(e.body.error.remediation.action, 'add_credits');
        assert.equal(
          (await svc.wired.deps.db.selectFrom('videos').select('id').where('account_id', '=', acct.accountId).execute()).length,
          0,
        );
        assert.equal(
          (await svc.wired.deps.db.selectFrom('jobs').select('id').where('type', '=', 'render.run').execute()).length,
          (await svc.wired.deps.db.selectFrom('videos').select('id').execute()).length,
        );
        assert.deepEqual(await readdir(join(svc.config.storage.root, 'renders')).catch(() => [] as string[]), storedBefore);
        assert.deepEqual(
          (await ledgerOf(svc, acct.accountId)).map((r) => r.kind),
          ['grant'],
        );
        assert.equal((await balanceRow(svc, acct.accountId)).available_milli, 2000);
      },
    );

    test('50 concurrent creations against a balance covering exactly 10 give exactly 10 successes', async () => {
      const acct = await svc.newAccount(10);
      const motion = await insertMotion(svc, acct.accountId, 1000);
      await setProjectDefaults(svc.wired.deps.db, acct.accountId, { characterId: null, motionId: motion });
      const results = await Promise.all(Array.from({ length: 50 }, () => svc.request('/v1/renders', { method: 'POST', key: acct.apiKey })));
      const statuses = results.map((r) => r.status);
      const bodies = (await Promise.all(results.map((r) => r.json()))) as any[];
      assert.equal(statuses.filter((s) => s === 200).length, 10, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 402).length, 40, JSON.stringify(statuses));
      assert.ok(bodies.filter((b) => b.error).every((b) => b.error.code === 'INSUFFICIENT_CREDITS'));
      const ids = new Set(bodies.filter((b) => !b.error).map((b) => b.id));
      const ledger = await ledgerOf(svc, acct.accountId);
      const reserves = ledger.filter((r) => r.kind === 'reserve');
      assert.equal(reserves.length, 10);
      assert.ok(reserves.every((r) => r.amount_milli === -1000 && ids.has(r.resource_id)));
      const bal = await balanceRow(svc, acct.accountId);
      assert.deepEqual([Number(bal.available_milli), Number(bal.reserved_milli)], [0, 10_000]);
      // The ledger replays to the balance and never dips below zero along the way.
      let running = 0;
      for (const r of ledger) {
        running += Number(r.amount_milli);
        assert.ok(running >= 0, `balance went to ${running}`);
      }
      assert.equal(running, 0);
      const videos = await svc.wired.deps.db.selectFrom('videos').select('id').where('account_id', '=', acct.accountId).execute();
      assert.deepEqual(new Set(videos.map((v) => v.id)), ids);
      const jobs = await svc.wired.deps.db
        .selectFrom('jobs')
        .select('resource_id')
        .where('resource_id', 'in', [...ids])
        .execute();
      assert.equal(jobs.length, 10);
      assert.equal(((await (await svc.request('/v1/credits', { key: acct.apiKey })).json()) as any).balance, 0);
    });
  });
}
