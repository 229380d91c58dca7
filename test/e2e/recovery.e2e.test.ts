import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dbTargets, freePort, hasSharedMedia, NO_MEDIA_REASON, startProcess, type ChildService } from '../helpers/harness.js';
import { openDb, type DbHandle } from '../../src/infra/db/database.js';
import { openSse } from '../helpers/sse-reader.js';
import { ffprobe, prepareMedia } from '../helpers/media-prep.js';

/**
 * Crash recovery with a real process: `npm start` (server + in-process workers) is killed with
 * SIGKILL in the middle of a render and started again on the same data dir. The job's lease
 * lapses, the restarted worker claims it as attempt 2 and finishes; the ledger holds exactly one
 * reservation and one settlement, and no job temp dir is left behind.
 */
for (const t of await dbTargets()) {
  describe(`SIGKILL during a render (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let dataDir: string;
    let dbUrl: string;
    let schema: string | null = null;
    let media: { dir: string; video: string; image: string };
    let child: ChildService | null = null;
    let db: DbHandle | null = null;
    let port: number;

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'marionette-recovery-'));
      media = await prepareMedia({ seconds: 3 });
      port = await freePort();
      dbUrl = `sqlite:${join(dataDir, 'marionette.sqlite')}`;
      if (t.kind === 'postgres') {
        // The server process gets its own schema through MARIONETTE_DATABASE_SCHEMA: it creates the
        // schema and migrates into it (Kysely's own tables included) although other test schemas
        // with migration tables exist in the same database.
        schema = `t_${randomBytes(6).toString('hex')}`;
        dbUrl = process.env.MARIONETTE_TEST_PG_URL!;
      }
    });
    after(async () => {
      await child?.stop('SIGKILL');
      await db?.close();
      if (schema) {
        const c = new pg.Client({ connectionString: process.env.MARIONETTE_TEST_PG_URL });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`).finally(() => c.end());
      }
      await rm(dataDir, { recursive: true, force: true });
      await rm(media.dir, { recursive: true, force: true });
    });

    const base = () => `http://127.0.0.1:${port}`;

    /** `npm start` (server + in-process workers) on the test's data dir and database, the same port each time. */
    function startServer(): Promise<ChildService> {
      return startProcess('server', {
        port,
        env: {
          MARIONETTE_DATA_DIR: dataDir,
          MARIONETTE_JOB_LEASE_MS: '3000',
          MARIONETTE_JOB_HEARTBEAT_MS: '500',
          MARIONETTE_JOB_POLL_MS: '100',
          MARIONETTE_DATABASE_URL: dbUrl,
          ...(schema ? { MARIONETTE_DATABASE_SCHEMA: schema } : {}),
        },
      });
    }

    it('the job completes after restart, settled once, with no temp files left', async () => {
      child = await startServer();
      const key = (await readFile(join(dataDir, 'demo-api-key'), 'utf8')).trim();
      const auth = { authorization: `Bearer ${key}` };
      const fd = new FormData();
      fd.append('image', new Blob([await readFile(media.image)], { type: 'image/jpeg' }), 'c.jpg');
      fd.append('motion_video', new Blob([await readFile(media.video)], { type: 'video/mp4' }), 'm.mp4');
      const res = await fetch(`${base()}/v1/renders`, { method: 'POST', headers: auth, body: fd });
      assert.equal(res.status, 200, await res.clone().text());
      const { id } = (await res.json()) as { id: string };

      // Wait until it is really being worked on, then kill without any chance to clean up.
      const s = await openSse(`${base()}/v1/renders/${id}/events`, auth);
      const seen = await s.until(['progress'], 120_000);
      s.close();
      assert.equal(seen[seen.length - 1].json.status, 'processing');
      const jobsDir = join(dataDir, 'tmp', 'jobs');
      assert.ok((await readdir(jobsDir)).length > 0, 'the job had a temp dir when killed');
      await child.stop('SIGKILL');

      child = await startServer();
      const again = await openSse(`${base()}/v1/renders/${id}/events`, auth);
      const frames = await again.until(['ready', 'failed', 'cancelled'], 180_000);
      const last = frames[frames.length - 1];
      assert.equal(last.event, 'ready', JSON.stringify(last.json));

      db = await openDb({ url: dbUrl, schema: schema ?? undefined });
      if (schema) {
        const c = new pg.Client({ connectionString: process.env.MARIONETTE_TEST_PG_URL });
        await c.connect();
        const r = await c
          .query(
            `select table_name from information_schema.tables where table_schema = $1 and table_name in ('kysely_migration', 'videos')`,
            [schema],
          )
          .finally(() => c.end());
        assert.equal(r.rowCount, 2, "the server migrated inside its schema, Kysely's own table included");
      }
      const ledger = await db.db
        .selectFrom('ledger')
        .select(['kind', 'amount_milli'])
        .where('resource_id', '=', id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        ledger.map((l) => l.kind),
        ['reserve', 'settle'],
        'exactly one reservation and one settlement',
      );
      // The worker records the job as completed just after the render's terminal transition.
      let job = await db.db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
      for (let i = 0; i < 100 && job.status === 'active'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        job = await db.db.selectFrom('jobs').selectAll().where('resource_id', '=', id).executeTakeFirstOrThrow();
      }
      assert.equal(job.status, 'completed');
      assert.equal(job.attempts, 2, 'the killed attempt counted; the second finished');
      const events = await db.db
        .selectFrom('render_events')
        .select(['type', 'sequence'])
        .where('render_id', '=', id)
        .orderBy('sequence')
        .execute();
      assert.equal(events.filter((e) => e.type === 'ready').length, 1);
      assert.deepEqual(
        events.map((e) => Number(e.sequence)),
        events.map((_, i) => i + 1),
        'one gapless sequence across both processes',
      );

      const dl = await fetch(`${base()}/v1/renders/${id}/download`, { headers: auth, redirect: 'manual' });
      assert.equal(dl.status, 302);
      const out = join(media.dir, 'recovered.mp4');
      await writeFile(out, Buffer.from(await (await fetch(dl.headers.get('location')!)).arrayBuffer()));
      const probe = await ffprobe(out);
      assert.equal(probe.codec, 'h264');
      assert.ok(Math.abs(probe.durationS - 3) < 0.3, `duration ${probe.durationS}`);
      assert.deepEqual(existsSync(jobsDir) ? await readdir(jobsDir) : [], [], 'no job temp dirs remain');
      const tmpFiles = (await readdir(join(dataDir, 'tmp'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
      assert.deepEqual(
        tmpFiles.map((e) => e.name),
        [],
        'no temp files at all under the data dir',
      );
      const partials = (await readdir(join(dataDir, 'storage'), { recursive: true })).filter((f) => String(f).includes('.partial-'));
      assert.deepEqual(partials, [], 'no half-written storage objects');

      await child.stop();
    });
  });
}
