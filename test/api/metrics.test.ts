import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type TestService } from '../helpers/harness.js';

/**
 * `/metrics` of an API process (Prometheus text): every answered request is observed in
 * `marionette_http_request_duration_seconds` under its route pattern (no route: one shared label),
 * event streams are left out, and the queue depth gauge is read from the record. Render fps and job
 * durations are scraped from worker processes in test/cluster/cluster.e2e.test.ts.
 */
describe('/metrics on an API process', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({ db: 'sqlite' });
  });
  after(() => svc?.close());

  const scrape = async () => {
    const r = await fetch(`${svc.baseUrl}/metrics`);
    assert.equal(r.status, 200);
    return r.text();
  };
  const count = (text: string, labels: Record<string, string>) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('marionette_http_request_duration_seconds_count{'))
      .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
      .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

  it('observes each request by method, route pattern and status; unmatched paths share one label', async () => {
    const before_ = await scrape();
    for (let i = 0; i < 3; i++) assert.equal((await svc.request('/v1/credits')).status, 200);
    assert.equal((await svc.request('/v1/videos/render_nope')).status, 404);
    assert.equal((await svc.request('/no/such/path/123')).status, 404);
    assert.equal((await svc.request('/no/such/path/456')).status, 404);
    const text = await scrape();
    assert.equal(
      count(text, { method: 'GET', route: '/v1/credits', status: '200' }) - count(before_, { route: '/v1/credits', status: '200' }),
      3,
    );
    assert.ok(count(text, { method: 'GET', route: '/v1/videos/:video_id', status: '404' }) >= 1, text);
    assert.ok(count(text, { route: 'unmatched', status: '404' }) >= 2, text);
    assert.ok(!/route="\/no\/such/.test(text), 'raw paths never become labels');
    const sum = text.split('\n').find((l) => l.startsWith('marionette_http_request_duration_seconds_sum{') && l.includes('/v1/credits'));
    assert.ok(sum && Number(sum.split(' ').pop()) > 0, sum);
  });

  it('leaves event streams out of the latency histogram; reports the queue depth from the record', async () => {
    const res = await svc.request('/v1/renders', { method: 'POST' });
    assert.ok(res.status < 300, await res.clone().text());
    const { id } = (await res.json()) as { id: string };
    const ac = new AbortController();
    const stream = await svc.request(`/v1/renders/${id}/events`, { signal: ac.signal });
    assert.equal(stream.status, 200);
    ac.abort();
    await new Promise((r) => setTimeout(r, 200));
    const text = await scrape();
    assert.equal(count(text, { route: '/v1/renders/:render_id/events' }), 0, text);
    // No workers in this process: the render's job waits in the record.
    assert.match(text, /^marionette_queue_depth\{type="render\.run",status="queued"\} 1$/m);
  });
});
