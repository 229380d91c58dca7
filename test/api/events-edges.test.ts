import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';
import { transitionRender } from '../../src/domain/renders/renders.state.js';
import { insertQueuedRender } from '../helpers/render-fixture.js';
import { renderEventStreams } from '../helpers/sse-reader.js';
import type { PubSub } from '../../src/domain/ports/pubsub.js';

const FIELDS = [
  'alpha_url',
  'completed_at',
  'error',
  'event_id',
  'id',
  'occurred_at',
  'progress',
  'sequence',
  'stage',
  'status',
  'video_url',
];

/** Edges of GET /v1/renders/{id}/events: foreign resume IDs, the full data shape, leaks, rate limits. */
for (const t of await dbTargets()) {
  describe(`render event stream edges (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    const streams = renderEventStreams(() => svc);
    const stream = streams.stream;
    /** Live render-channel subscriptions the stream hub holds on the pub/sub port. */
    let liveSubscriptions = 0;
    before(async () => {
      svc = await startService({ db: t.kind, env: { MARIONETTE_EVENT_HEARTBEAT_MS: '200' } });
      const base = svc.wired.deps.pubsub;
      const counting: PubSub = {
        publish: (c, m) => base.publish(c, m),
        subscribe: async (c, h) => {
          const off = await base.subscribe(c, h);
          if (!c.startsWith('render-events:')) return off;
          liveSubscriptions++;
          let done = false;
          return async () => {
            if (!done) liveSubscriptions--;
            done = true;
            await off();
          };
        },
        close: () => base.close(),
      };
      svc.wired.deps.pubsub = counting;
    });
    after(async () => {
      streams.closeAll();
      await svc?.close();
    });

    const deps = () => svc.wired.deps;
    const newRender = (accountId = svc.accountId) => insertQueuedRender(deps(), accountId, { reserveCredits: 2 });
    async function waitFor(fn: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (!fn()) {
        if (Date.now() > end) throw new Error(`timed out: ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    it('a Last-Event-ID of another render (own or another account) is not resumed from: a snapshot of this render only', async () => {
      const mine = await newRender();
      const sibling = await newRender();
      const other = await svc.newAccount();
      const foreign = await newRender(other.accountId);
      for (const r of [sibling, foreign]) {
        await transitionRender(deps(), r.id, { to: 'processing' });
        await transitionRender(deps(), r.id, { to: 'progress', stage: 'rendering', progress: 30 });
      }
      const firstOf = async (id: string) =>
        (await deps().db.selectFrom('render_events').select('id').where('render_id', '=', id).orderBy('sequence').executeTakeFirstOrThrow())
          .id;
      const mineLatest = await firstOf(mine.id);
      for (const resumeId of [await firstOf(sibling.id), await firstOf(foreign.id)]) {
        const s = await stream(mine.id, { 'last-event-id': resumeId });
        const f = await s.next();
        assert.equal(f?.event, 'snapshot');
        assert.equal(f?.json.id, mine.id);
        assert.equal(f?.id, mineLatest, "the snapshot carries this render's latest event ID");
        assert.deepEqual([f?.json.status, f?.json.sequence], ['queued', 1]);
        // Nothing of the other render follows: the next frame is a heartbeat.
        assert.equal((await s.next(2000))?.event, 'heartbeat');
        s.close();
      }
    });

    it('every event carries all the data fields of spec section 6, with the frame id equal to event_id', async () => {
      for (const end of ['ready', 'failed', 'cancelled'] as const) {
        const r = await newRender();
        const s = await stream(r.id);
        await s.until(['snapshot']);
        await transitionRender(deps(), r.id, { to: 'processing' });
        await transitionRender(deps(), r.id, { to: 'progress', stage: 'rendering', progress: 50 });
        if (end === 'ready') {
          const key = `renders/${r.id}/output/video.mp4`;
          await deps().storage.putStream(key, Readable.from([Buffer.from('x')]));
          await transitionRender(deps(), r.id, { to: 'ready', videoKey: key, alphaKey: null, durationMs: 1000 });
        } else if (end === 'failed') {
          await transitionRender(deps(), r.id, {
            to: 'failed',
            error: { code: 'INTERNAL_ERROR', message: 'Processing failed after 3 attempts.', retryable: true },
          });
        } else {
          await transitionRender(deps(), r.id, { to: 'cancelled' });
        }
        await s.until([end]);
        const all = s.frames.filter((f) => f.event !== 'heartbeat');
        assert.deepEqual(
          all.map((f) => f.event),
          ['snapshot', 'processing', 'progress', end],
        );
        for (const f of all) {
          assert.deepEqual(Object.keys(f.json).sort(), FIELDS, `${f.event} fields`);
          assert.equal(f.id, f.json.event_id);
          assert.equal(f.json.id, r.id);
          assert.ok(!Number.isNaN(Date.parse(f.json.occurred_at)));
        }
        assert.deepEqual(
          all.slice(1).map((f) => f.json.sequence),
          [2, 3, 4],
        );
        const last = all[3].json;
        assert.ok(last.completed_at);
        assert.equal(last.video_url !== null, end === 'ready');
        assert.equal(last.error !== null, end === 'failed');
        if (end === 'failed') assert.equal(last.error.request_id, r.request_id, 'the envelope keeps the creating request ID');
        assert.equal(await s.next(2000), null, 'closed after the terminal event');
      }
    });

    it('the stage never goes back on the wire: a retry reporting an earlier stage changes nothing', async () => {
      const r = await newRender();
      const s = await stream(r.id);
      await s.until(['snapshot']);
      await transitionRender(deps(), r.id, { to: 'progress', stage: 'rendering', progress: 50 });
      assert.equal(await transitionRender(deps(), r.id, { to: 'progress', stage: 'analyzing', progress: 40 }), null);
      await transitionRender(deps(), r.id, { to: 'progress', stage: 'finishing', progress: 60 });
      await transitionRender(deps(), r.id, { to: 'cancelled' });
      const frames = await s.until(['cancelled']);
      assert.deepEqual(
        frames.map((f) => [f.event, f.json.stage, f.json.progress]),
        [
          ['processing', 'rendering', 50],
          ['progress', 'finishing', 60],
          ['cancelled', null, 60],
        ],
      );
    });

    it('client disconnects free their subscriptions: none left after many connect/disconnect cycles', async () => {
      await waitFor(() => liveSubscriptions === 0, 'earlier streams to be released');
      const renders = await Promise.all([newRender(), newRender(), newRender()]);
      for (let i = 0; i < 30; i++) {
        const s = await stream(renders[i % 3].id);
        await s.until(['snapshot']);
        if (i === 0) await waitFor(() => liveSubscriptions === 1, 'the first stream to subscribe');
        s.close();
        await s.closed;
      }
      // Ten streams open at once on the three renders: one subscription per render, not per stream.
      const batch = await Promise.all(Array.from({ length: 10 }, (_, i) => stream(renders[i % 3].id)));
      await Promise.all(batch.map((s) => s.until(['snapshot'])));
      await waitFor(() => liveSubscriptions === 3, 'one subscription per render');
      for (const s of batch.slice(0, 7)) s.close();
      // The rest end with their render.
      await transitionRender(deps(), renders[0].id, { to: 'cancelled' });
      await transitionRender(deps(), renders[1].id, { to: 'cancelled' });
      await transitionRender(deps(), renders[2].id, { to: 'cancelled' });
      await Promise.all(batch.slice(7).map((s) => s.closed));
      await waitFor(() => liveSubscriptions === 0, `subscriptions to drop to 0 (still ${liveSubscriptions})`);
    });

    it('answers JSON 429 with Retry-After before streaming when the read rate limit is hit', async () => {
      const limited = await startService({ db: t.kind, env: { MARIONETTE_RATE_LIMITS: 'true', MARIONETTE_RATE_READ_PER_S: '2' } });
      try {
        const r = await insertQueuedRender(limited.wired.deps, limited.accountId, { reserveCredits: 1 });
        let res: Response | null = null;
        for (let i = 0; i < 10; i++) {
          const x = await limited.request(`/v1/renders/${r.id}/events`, { headers: { 'x-request-id': `ev-429-${i}` } });
          if (x.status === 429) {
            res = x;
            break;
          }
          assert.equal(x.status, 200);
          await x.body?.cancel();
        }
        assert.ok(res, 'the limit was reached');
        const e = await errorOf(res);
        assert.equal(e.code, 'RATE_LIMITED');
        assert.match(res.headers.get('content-type') ?? '', /application\/json/);
        assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
        assert.equal(e.body.error.request_id, res.headers.get('x-request-id'));
      } finally {
        await limited.close();
      }
    });
  });
}
