import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dbTargets, startService, type TestService } from '../helpers/harness.js';
import { reserveMeasuredDuration, transitionRender } from '../../src/domain/renders/renders.state.js';
import { AppError } from '../../src/contracts/errors.js';
import { balanceMilli, insertQueuedRender, ledgerOf } from '../helpers/render-fixture.js';

for (const t of await dbTargets()) {
  describe(`render state machine (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 100 });
    });
    after(async () => svc?.close());

    const deps = () => svc.wired.deps;
    const events = (id: string) =>
      deps()
        .db.selectFrom('render_events')
        .select(['type', 'sequence', 'data_json'])
        .where('render_id', '=', id)
        .orderBy('sequence')
        .execute();

    it('processing, progress and ready: one event each, settled once at the measured duration', async () => {
      const { accountId } = await svc.newAccount(100);
      const row = await insertQueuedRender(deps(), accountId, { reserveCredits: 5 });
      assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 95_000, reserved: 5_000 });

      const p = await transitionRender(deps(), row.id, { to: 'processing' });
      assert.equal(p?.status, 'processing');
      assert.ok(p?.started_at);
      assert.equal(await transitionRender(deps(), row.id, { to: 'processing' }), null, 'a retried job does not restart the render');
      const g = await transitionRender(deps(), row.id, { to: 'progress', stage: 'rendering', progress: 40.4 });
      assert.equal(g?.progress, 40);
      assert.equal(
        await transitionRender(deps(), row.id, { to: 'progress', stage: 'rendering', progress: 30 }),
        null,
        'progress never goes backwards',
      );
      const capped = await transitionRender(deps(), row.id, { to: 'progress', stage: 'finishing', progress: 100 });
      assert.equal(capped?.progress, 99, '100 belongs to ready');

      const r = await transitionRender(deps(), row.id, {
        to: 'ready',
        videoKey: `renders/${row.id}/output/video.mp4`,
        alphaKey: null,
        durationMs: 3210,
      });
      assert.equal(r?.status, 'ready');
      assert.equal(r?.progress, 100);
      assert.equal(r?.stage, null);
      assert.equal(Number(r?.duration_ms), 3210);
      assert.ok(r?.completed_at);
      // Settled at exactly duration_ms / 1000 credits: 100 - 3.21.
      assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 96_790, reserved: 0 });

      for (const change of [
        { to: 'ready', videoKey: 'x', alphaKey: null, durationMs: 1000 },
        { to: 'failed', error: { code: 'INTERNAL_ERROR', message: 'late', retryable: true } },
        { to: 'cancelled' },
        { to: 'progress', stage: 'rendering', progress: 50 },
      ] as const) {
        assert.equal(await transitionRender(deps(), row.id, change), null, `${change.to} after ready is a no-op`);
      }
      assert.deepEqual(
        (await ledgerOf(deps().db, row.id)).map((l) => [l.kind, Number(l.amount_milli), Number(l.reserved_delta_milli)]),
        [
          ['reserve', -5000, 5000],
          ['settle', 1790, -5000],
        ],
      );
      const ev = await events(row.id);
      assert.deepEqual(
        ev.map((e) => [e.type, Number(e.sequence)]),
        [
          ['queued', 1],
          ['processing', 2],
          ['progress', 3],
          ['progress', 4],
          ['ready', 5],
        ],
      );
      assert.equal(JSON.parse(ev[2].data_json).progress, 40);
    });

    it('failed stores the full error envelope with the creating request ID and releases the reservation', async () => {
      const { accountId, apiKey } = await svc.newAccount(10);
      const row = await insertQueuedRender(deps(), accountId, { reserveCredits: 4, requestId: 'req-from-client-42' });
      await transitionRender(deps(), row.id, { to: 'processing' });
      const f = await transitionRender(deps(), row.id, {
        to: 'failed',
        error: { code: 'INVALID_CHARACTER', message: 'No figure found.', retryable: false, details: { reason: 'no_pose' } },
      });
      assert.equal(f?.status, 'failed');
      assert.deepEqual(JSON.parse(f!.error_json!), {
        code: 'INVALID_CHARACTER',
        message: 'No figure found.',
        retryable: false,
        request_id: 'req-from-client-42',
        details: { reason: 'no_pose' },
        remediation: { action: 'fix_input', retry_after_ms: null },
      });
      assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 10_000, reserved: 0 });
      assert.deepEqual(
        (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
        ['reserve', 'release'],
      );
      assert.equal(await transitionRender(deps(), row.id, { to: 'cancelled' }), null);
      assert.deepEqual(
        (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
        ['reserve', 'release'],
      );

      // The public view (GET /v1/videos) answers 200 with the same envelope.
      const res = await svc.request(`/v1/videos/${row.id}`, { key: apiKey });
      assert.equal(res.status, 200);
      const body = (await res.json()) as any;
      assert.equal(body.status, 'failed');
      assert.equal(body.error.code, 'INVALID_CHARACTER');
      assert.equal(body.error.request_id, 'req-from-client-42');
    });

    it('cancelled from queued releases and records completed_at; racing terminal changes settle exactly once', async () => {
      const { accountId } = await svc.newAccount(20);
      const row = await insertQueuedRender(deps(), accountId, { reserveCredits: 6 });
      const results = await Promise.all([
        transitionRender(deps(), row.id, { to: 'cancelled' }),
        transitionRender(deps(), row.id, { to: 'ready', videoKey: 'k', alphaKey: null, durationMs: 2000 }),
        transitionRender(deps(), row.id, { to: 'failed', error: { code: 'INTERNAL_ERROR', message: 'x', retryable: true } }),
      ]);
      const winners = results.filter((r) => r !== null);
      assert.equal(winners.length, 1, 'exactly one terminal transition wins');
      const ledger = await ledgerOf(deps().db, row.id);
      assert.equal(ledger.length, 2, 'one reserve and one closing row');
      const terminalEvents = (await events(row.id)).filter((e) => ['ready', 'failed', 'cancelled'].includes(e.type));
      assert.equal(terminalEvents.length, 1);
      const bal = await balanceMilli(deps().db, accountId);
      assert.equal(bal.reserved, 0);
      assert.equal(bal.available, winners[0]!.status === 'ready' ? 18_000 : 20_000);
    });

    it('a URL motion reserves its measured length once, and refuses when the balance is short', async () => {
      const { accountId } = await svc.newAccount(3);
      const row = await insertQueuedRender(deps(), accountId, { reserveCredits: 0 });
      assert.equal(await reserveMeasuredDuration(deps(), row.id, 2100), true);
      assert.equal(await reserveMeasuredDuration(deps(), row.id, 2100), true, 'repeat after a crash');
      assert.deepEqual(await balanceMilli(deps().db, accountId), { available: 0, reserved: 3_000 });
      assert.deepEqual(
        (await ledgerOf(deps().db, row.id)).map((l) => l.kind),
        ['reserve'],
      );

      const poor = await insertQueuedRender(deps(), accountId, { reserveCredits: 0 });
      await assert.rejects(
        reserveMeasuredDuration(deps(), poor.id, 1000),
        (e: unknown) => e instanceof AppError && e.code === 'INSUFFICIENT_CREDITS',
      );
      assert.deepEqual(await ledgerOf(deps().db, poor.id), []);
    });
  });
}
