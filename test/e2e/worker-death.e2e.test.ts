import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import {
  dbTargets,
  hasSharedMedia,
  NO_MEDIA_REASON,
  startProcess,
  startService,
  type ChildService,
  type TestService,
} from '../helpers/harness.js';
import { openSse } from '../helpers/sse-reader.js';
import { prepareMedia } from '../helpers/media-prep.js';

/**
 * A worker process killed with SIGKILL in the middle of a render while a second worker process runs
 * (both `npm run worker` on the API's database, default lease and heartbeat): the second worker takes
 * the job over within 10 s of the kill, the event stream shows the hand-over (a `progress` event
 * after the kill), the render becomes ready, and the ledger has one reservation and one settlement.
 */
for (const t of await dbTargets()) {
  describe(
    `SIGKILL of a worker process mid-render, second worker running (${t.kind})`,
    { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) },
    () => {
      let svc: TestService;
      let media: { dir: string; video: string; image: string };
      const workers: ChildService[] = [];

      before(async () => {
        media = await prepareMedia({ seconds: 3 });
        svc = await startService({ db: t.kind, workers: false, credits: 1000 });
        const schema =
          t.kind === 'postgres'
            ? String(
                (await svc.wired.deps.db.selectNoFrom((eb) => eb.fn<string>('current_schema', []).as('s')).executeTakeFirstOrThrow()).s,
              )
            : null;
        const env = {
          MARIONETTE_DATA_DIR: svc.config.dataDir,
          MARIONETTE_DATABASE_URL: svc.config.databaseUrl,
          ...(schema ? { MARIONETTE_DATABASE_SCHEMA: schema } : {}),
        };
        const started = await Promise.allSettled([0, 1].map(() => startProcess('worker', { env })));
        for (const r of started) if (r.status === 'fulfilled') workers.push(r.value);
        for (const r of started) if (r.status === 'rejected') throw r.reason;
      });
      after(async () => {
        for (const w of workers) await w.stop();
        await svc?.close();
        if (media) await rm(media.dir, { recursive: true, force: true });
      });

      it('the other worker takes the job over within 10 s; ready once, settled once', async () => {
        const fd = new FormData();
        fd.append('image', new Blob([await readFile(media.image)], { type: 'image/jpeg' }), 'c.jpg');
        fd.append('motion_video', new Blob([await readFile(media.video)], { type: 'video/mp4' }), 'm.mp4');
        const res = await svc.request('/v1/renders', { method: 'POST', body: fd });
        assert.equal(res.status, 200, await res.clone().text());
        const { id } = (await res.json()) as { id: string };
        const db = svc.wired.deps.db;
        const s = await openSse(`${svc.baseUrl}/v1/renders/${id}/events`, { authorization: `Bearer ${svc.apiKey}` });
        await s.until(['progress'], 300_000);
        const job = await db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
        assert.equal(job.status, 'active');
        const ownerPid = Number(String(job.lease_owner).split(':')[1]);
        const victim = workers.find((w) => w.proc.pid === ownerPid);
        assert.ok(victim, `the job's owner ${job.lease_owner} is one of our workers`);
        const survivor = workers.find((w) => w !== victim)!;
        await victim.stop('SIGKILL');
        const killedAt = Date.now();

        // The hand-over: the survivor claims the job (its lease expired with the dead owner). A progress
        // event the victim stored just before the kill can still arrive after it, so the claim is read
        // from the jobs table, and the stream must then go on with the survivor's progress.
        let claimed = await db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
        while (Number(String(claimed.lease_owner).split(':')[1]) !== survivor.proc.pid && Date.now() - killedAt < 30_000) {
          await new Promise((r) => setTimeout(r, 100));
          claimed = await db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
        }
        const claimedAt = Date.now();
        assert.equal(Number(String(claimed.lease_owner).split(':')[1]), survivor.proc.pid, 'the survivor owns the job');
        assert.equal(Number(claimed.attempts), 2);
        const tookMs = claimedAt - killedAt;
        assert.ok(tookMs <= 10_000, `the survivor claimed the job ${tookMs} ms after the kill`);
        let handover = (await s.until(['progress', 'ready', 'failed'], 60_000)).at(-1)!;
        while (handover.receivedAt < claimedAt && handover.event === 'progress') {
          handover = (await s.until(['progress', 'ready', 'failed'], 60_000)).at(-1)!;
        }
        assert.equal(handover.event, 'progress', 'the survivor reports progress');

        const rest = await s
          .until(['ready', 'failed', 'cancelled'], 600_000)
          .catch((e) => assert.fail(`${e.message}\n${survivor.output()}`));
        s.close();
        assert.equal(rest[rest.length - 1].event, 'ready', JSON.stringify(rest[rest.length - 1].json));
        const ledger = await db.selectFrom('ledger').select('kind').where('resource_id', '=', id).orderBy('id').execute();
        assert.deepEqual(
          ledger.map((l) => l.kind),
          ['reserve', 'settle'],
          'billed exactly once',
        );
        const events = await db
          .selectFrom('render_events')
          .select(['type', 'sequence'])
          .where('render_id', '=', id)
          .orderBy('sequence')
          .execute();
        assert.equal(events.filter((e) => e.type === 'ready').length, 1);
      });
    },
  );
}
