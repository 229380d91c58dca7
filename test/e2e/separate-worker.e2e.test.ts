import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { hasSharedMedia, NO_MEDIA_REASON, startProcess, startService, type ChildService, type TestService } from '../helpers/harness.js';
import { openSse } from '../helpers/sse-reader.js';
import { ledgerOf } from '../helpers/render-fixture.js';
import { prepareMedia } from '../helpers/media-prep.js';

/**
 * The split topology: an API process without workers and `npm run worker` as its own process on the
 * same database and storage. The in-process pub/sub does not cross processes, so the API's event
 * stream learns of the worker's changes from the stored events (the stream hub's poll).
 */
describe('API and a separate worker process (sqlite)', { skip: !hasSharedMedia() && NO_MEDIA_REASON }, () => {
  let svc: TestService;
  let worker: ChildService;
  let media: { dir: string; video: string; image: string };

  before(async () => {
    media = await prepareMedia({ seconds: 1.5 });
    svc = await startService({ db: 'sqlite', workers: false });
  });
  after(async () => {
    await worker?.stop();
    await svc?.close();
    await rm(media.dir, { recursive: true, force: true });
  });

  it('a render created on the API is processed by the worker process and streamed to ready', async () => {
    const fd = new FormData();
    fd.append('image', new Blob([await readFile(media.image)], { type: 'image/jpeg' }), 'c.jpg');
    fd.append('motion_video', new Blob([await readFile(media.video)], { type: 'video/mp4' }), 'm.mp4');
    const res = await svc.request('/v1/renders', { method: 'POST', body: fd });
    assert.equal(res.status, 200, await res.clone().text());
    const { id } = (await res.json()) as { id: string };
    const s = await openSse(`${svc.baseUrl}/v1/renders/${id}/events`, { authorization: `Bearer ${svc.apiKey}` });
    // The worker starts once the stream is open, so the stream sees every change the worker makes.
    worker = await startProcess('worker', { env: { MARIONETTE_DATA_DIR: svc.config.dataDir, MARIONETTE_JOB_POLL_MS: '100' } });
    const frames = await s
      .until(['ready', 'failed', 'cancelled'], 150_000)
      .catch((e) => assert.fail(`${e.message}\nworker output: ${worker.output()}`));
    const last = frames[frames.length - 1];
    assert.equal(last.event, 'ready', JSON.stringify(last.json));
    assert.ok(
      frames.some((f) => f.event === 'processing'),
      'the worker process announced processing',
    );
    assert.match(worker.output(), /marionette worker started/);
    const video = await fetch(last.json.video_url);
    assert.equal(video.status, 200);
    assert.ok((await video.arrayBuffer()).byteLength > 1000);
    assert.deepEqual(
      (await ledgerOf(svc.wired.deps.db, id)).map((l) => l.kind),
      ['reserve', 'settle'],
    );
    let job = await svc.wired.deps.db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
    for (let i = 0; i < 100 && job.status === 'active'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      job = await svc.wired.deps.db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
    }
    assert.deepEqual([job.status, job.attempts, job.lease_owner], ['completed', 1, null]);
  });
});
