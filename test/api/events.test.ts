import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';
import { transitionRender } from '../../src/domain/renders/renders.state.js';
import { newId } from '../../src/contracts/ids.js';
import { insertQueuedRender } from '../helpers/render-fixture.js';
import { renderEventStreams } from '../helpers/sse-reader.js';
import type { PubSub } from '../../src/domain/ports/pubsub.js';
import { purgeEventHistory } from '../../src/jobs/maintenance.js';

/** GET /v1/renders/{id}/events through real HTTP; render state is driven by the state machine. */
for (const t of await dbTargets()) {
  describe(`render event stream (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    const streams = renderEventStreams(() => svc);
    const stream = streams.stream;
    before(async () => {
      svc = await startService({ db: t.kind, env: { MARIONETTE_EVENT_HEARTBEAT_MS: '150' } });
    });
    after(async () => {
      streams.closeAll();
      await svc?.close();
    });

    const deps = () => svc.wired.deps;
    const newRender = () => insertQueuedRender(deps(), svc.accountId, { reserveCredits: 2 });

    it('answers JSON 404 RENDER_NOT_FOUND before streaming for missing, malformed, foreign-family and other-account IDs', async () => {
      const mine = await newRender();
      const other = await svc.newAccount();
      for (const [id, key] of [
        [newId('render'), svc.apiKey],
        ['render_nope', svc.apiKey],
        [newId('character'), svc.apiKey],
        [mine.id, other.apiKey],
      ] as const) {
        const res = await svc.request(`/v1/renders/${id}/events`, { key, headers: { 'x-request-id': 'ev-404' } });
        const e = await errorOf(res);
        assert.equal(e.status, 404, id);
        assert.equal(e.code, 'RENDER_NOT_FOUND');
        assert.match(res.headers.get('content-type') ?? '', /application\/json/);
        assert.equal(e.requestId, 'ev-404');
        assert.equal(e.body.error.request_id, 'ev-404');
      }
      const unauth = await svc.request(`/v1/renders/${mine.id}/events`, { key: null });
      assert.equal(unauth.status, 401);
    });

    it('sends the headers and a snapshot, then every state change in order, and closes after ready with working URLs', async () => {
      const r = await newRender();
      const s = await stream(r.id, { 'x-request-id': 'ev-follow' });
      assert.equal(s.status, 200);
      assert.equal(s.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(s.headers.get('cache-control'), 'no-cache');
      assert.equal(s.headers.get('x-accel-buffering'), 'no');
      assert.equal(s.headers.get('x-request-id'), 'ev-follow');
      const snap = (await s.until(['snapshot']))[0];
      assert.equal(snap.json.status, 'queued');
      assert.equal(snap.json.sequence, 1);
      assert.equal(snap.id, snap.json.event_id, 'the frame id is the latest event ID');
      assert.deepEqual(Object.keys(snap.json).sort(), [
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
      ]);

      // An output for the ready event's signed URL.
      const key = `renders/${r.id}/output/video.mp4`;
      await deps().storage.putStream(key, (await import('node:stream')).Readable.from([Buffer.from('not really an mp4')]));
      await transitionRender(deps(), r.id, { to: 'processing' });
      await transitionRender(deps(), r.id, { to: 'progress', stage: 'analyzing', progress: 10 });
      await transitionRender(deps(), r.id, { to: 'progress', stage: 'rendering', progress: 55 });
      await transitionRender(deps(), r.id, { to: 'ready', videoKey: key, alphaKey: null, durationMs: 1500 });
      const frames = await s.until(['ready']);
      assert.deepEqual(
        frames.map((f) => [f.event, f.json.sequence, f.json.status, f.json.stage, f.json.progress]),
        [
          ['processing', 2, 'processing', 'analyzing', 0],
          ['progress', 3, 'processing', 'analyzing', 10],
          ['progress', 4, 'processing', 'rendering', 55],
          ['ready', 5, 'ready', null, 100],
        ],
      );
      const ready = frames[3].json;
      assert.ok(ready.completed_at);
      assert.equal(ready.error, null);
      assert.equal(ready.alpha_url, null);
      const file = await fetch(ready.video_url);
      assert.equal(file.status, 200, 'the signed URL works without Authorization');
      assert.equal(await file.text(), 'not really an mp4');
      assert.equal(await s.next(2000), null, 'the stream is closed after the terminal event');
    });

    it('resumes after Last-Event-ID with exactly the missed events, in order', async () => {
      const r = await newRender();
      const first = await stream(r.id);
      await first.until(['snapshot']);
      await transitionRender(deps(), r.id, { to: 'processing' });
      await transitionRender(deps(), r.id, { to: 'progress', stage: 'rendering', progress: 20 });
      const seen = await first.until(['progress']);
      const lastId = seen[seen.length - 1].id!;
      first.close();
      await first.closed;

      await transitionRender(deps(), r.id, { to: 'progress', stage: 'rendering', progress: 40 });
      await transitionRender(deps(), r.id, { to: 'progress', stage: 'finishing', progress: 90 });
      const again = await stream(r.id, { 'last-event-id': lastId });
      const missed = [await again.next(), await again.next()];
      assert.deepEqual(
        missed.map((f) => [f!.event, f!.json.sequence, f!.json.progress]),
        [
          ['progress', 4, 40],
          ['progress', 5, 90],
        ],
      );
      await transitionRender(deps(), r.id, {
        to: 'failed',
        error: { code: 'INVALID_MOTION', message: 'No performer found in the driving video.', retryable: false },
      });
      const rest = await again.until(['failed']);
      assert.deepEqual(
        rest.map((f) => [f.event, f.json.sequence]),
        [['failed', 6]],
      );
      const err = rest[0].json.error;
      assert.equal(err.code, 'INVALID_MOTION');
      assert.equal(err.request_id, r.request_id);
      assert.deepEqual(err.remediation, { action: 'fix_input', retry_after_ms: null });
      assert.equal(await again.next(2000), null);

      // Resuming a finished render from an older event replays the rest and closes.
      const late = await stream(r.id, { 'last-event-id': missed[0]!.id! });
      const replay: string[] = [];
      for (let f = await late.next(); f; f = await late.next()) replay.push(`${f.event}:${f.json.sequence}`);
      assert.deepEqual(replay, ['progress:5', 'failed:6']);
    });

    it('an unknown Last-Event-ID gets a fresh snapshot; a terminal render gets its snapshot and the stream closes', async () => {
      const r = await newRender();
      const s = await stream(r.id, { 'last-event-id': newId('event') });
      const f = await s.next();
      assert.equal(f?.event, 'snapshot');
      assert.equal(f?.json.status, 'queued');
      s.close();

      await transitionRender(deps(), r.id, { to: 'cancelled' });
      const done = await stream(r.id);
      const frames: string[] = [];
      for (let x = await done.next(); x; x = await done.next()) frames.push(`${x.event}:${x.json.status}`);
      assert.deepEqual(frames, ['snapshot:cancelled']);
    });

    it('sends heartbeats at the configured interval while idle, with no business data', async () => {
      const r = await newRender();
      const s = await stream(r.id);
      await s.until(['snapshot']);
      const beats = [await s.next(2000), await s.next(2000), await s.next(2000)];
      for (const b of beats) {
        assert.equal(b?.event, 'heartbeat');
        assert.equal(b?.data, '');
        assert.equal(b?.id, null, 'a heartbeat does not move Last-Event-ID');
      }
      const gaps = [beats[1]!.receivedAt - beats[0]!.receivedAt, beats[2]!.receivedAt - beats[1]!.receivedAt];
      for (const g of gaps) assert.ok(g >= 120 && g <= 400, `heartbeat gap ${g} ms for a 150 ms interval`);
      s.close();
    });

    it('delivers events written by another process (no pub/sub hint) from stored history', async () => {
      const r = await newRender();
      const s = await stream(r.id);
      await s.until(['snapshot']);
      const silent: PubSub = { publish: async () => {}, subscribe: async () => async () => {}, close: async () => {} };
      await transitionRender({ db: deps().db, pubsub: silent }, r.id, { to: 'processing' });
      await transitionRender({ db: deps().db, pubsub: silent }, r.id, { to: 'cancelled' });
      const frames = await s.until(['cancelled'], 5000);
      assert.deepEqual(
        frames.map((f) => f.event),
        ['processing', 'cancelled'],
      );
    });

    it('many streams of one render share the delivery and all see the same sequence', async () => {
      const r = await newRender();
      const streams = await Promise.all(Array.from({ length: 20 }, () => stream(r.id)));
      await Promise.all(streams.map((s) => s.until(['snapshot'])));
      await transitionRender(deps(), r.id, { to: 'processing' });
      await transitionRender(deps(), r.id, { to: 'cancelled' });
      const all = await Promise.all(streams.map((s) => s.until(['cancelled'])));
      for (const frames of all)
        assert.deepEqual(
          frames.map((f) => f.json.sequence),
          [2, 3],
        );
    });

    it('history older than the retention is purged but for the last event; resuming then gets a snapshot of it', async () => {
      const r = await newRender();
      const recent = await newRender();
      const first = await stream(r.id);
      const snap = (await first.until(['snapshot']))[0];
      await transitionRender(deps(), r.id, { to: 'failed', error: { code: 'INTERNAL_ERROR', message: 'x', retryable: true } });
      const failed = (await first.until(['failed']))[0];
      await transitionRender(deps(), recent.id, { to: 'cancelled' });
      // 25 h and 23 h after their terminal events: only the first is past the 24 h retention.
      await deps()
        .db.updateTable('videos')
        .set({ completed_at: new Date(Date.now() - 25 * 3600_000).toISOString() })
        .where('id', '=', r.id)
        .execute();
      await deps()
        .db.updateTable('videos')
        .set({ completed_at: new Date(Date.now() - 23 * 3600_000).toISOString() })
        .where('id', '=', recent.id)
        .execute();
      const live = await newRender();
      assert.ok((await purgeEventHistory(deps())) >= 1);
      const left = await deps()
        .db.selectFrom('render_events')
        .select(['render_id', 'id'])
        .where('render_id', 'in', [r.id, recent.id, live.id])
        .orderBy('render_id')
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        left.filter((e) => e.render_id === r.id).map((e) => e.id),
        [failed.id],
        'the expired render keeps only its terminal event',
      );
      assert.equal(left.filter((e) => e.render_id === recent.id).length, 2, 'a render within the retention keeps its history');
      assert.equal(left.filter((e) => e.render_id === live.id).length, 1, 'an active render keeps its history');
      const again = await stream(r.id, { 'last-event-id': snap.id! });
      const frames: string[] = [];
      for (let f = await again.next(); f; f = await again.next()) frames.push(`${f.event}:${f.id}:${f.json.status}:${f.json.error?.code}`);
      assert.deepEqual(frames, [`snapshot:${failed.id}:failed:INTERNAL_ERROR`], 'expired ID: a fresh snapshot with a usable event_id');
    });
  });
}
