import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { transitionMotion } from '../../src/domain/motions/motions.state.js';

/**
 * Motions through real HTTP on both databases (DECISIONS "Motions", spec 4.4): the form and its
 * aliases, templates and import, the cursor list, ownership 404s, delete, export and transitions.
 */
const DANCE = mediaFile('videos/animate-x--dance_3.mp4');
const URL_SOURCE = 'https://example.com/clips/dance.mp4';

async function form(fields: Record<string, string>, files: Record<string, string> = {}): Promise<FormData> {
  const f = new FormData();
  for (const [k, path] of Object.entries(files)) f.append(k, await openAsBlob(path), 'clip.mp4');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

for (const t of await dbTargets()) {
  describe(`motions (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind });
    });
    after(async () => svc?.close());

    const create = async (
      fields: Record<string, string>,
      files: Record<string, string> = {},
      init: { key?: string; headers?: Record<string, string> } = {},
    ) => svc.request('/v1/motions', { method: 'POST', body: await form(fields, files), ...init });
    const importJson = (body: unknown, key?: string) =>
      svc.request('/v1/motions/import', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        key,
      });
    const firstTemplate = () => svc.wired.deps.engine.listTemplates()[0];

    it('creates a queued Motion from an uploaded video: shape, stored source, probed duration, job, free of charge', async () => {
      const acct = await svc.newAccount(5);
      const res = await create(
        { name: 'Dance' },
        { video: DANCE },
        { key: acct.apiKey, headers: { 'x-request-id': 'req-mot-1', 'x-service-source': 'cli' } },
      );
      assert.equal(res.status, 200);
      const body = (await res.json()) as Record<string, unknown>;
      assert.match(String(body.id), /^mot_[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.deepEqual(Object.keys(body).sort(), [
        'capabilities',
        'completed_at',
        'created_at',
        'error',
        'glb',
        'id',
        'name',
        'progress',
        'status',
        'type',
        'vsplat',
      ]);
      assert.deepEqual(
        { ...body, id: 'x', created_at: 'x' },
        {
          id: 'x',
          status: 'queued',
          name: 'Dance',
          progress: 0,
          capabilities: [],
          created_at: 'x',
          completed_at: null,
          error: null,
          type: 'render',
          vsplat: null,
          glb: null,
        },
      );
      const id = String(body.id);
      const row = await svc.wired.deps.db.selectFrom('motions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.source_kind, 'upload');
      assert.equal(row.source_key, `motions/${id}/source`);
      assert.ok(Math.abs(Number(row.duration_ms) - 6400) < 200, `duration ${row.duration_ms}`);
      assert.equal(row.enable_smoothing, 1);
      assert.equal(row.target_fps, null);
      assert.equal(row.joint_set, 'body');
      assert.equal(row.request_id, 'req-mot-1');
      assert.equal(row.service_source, 'cli');
      assert.equal((await svc.wired.deps.storage.stat(`motions/${id}/source`))?.size, (await openAsBlob(DANCE)).size);
      const jobs = await svc.wired.deps.db.selectFrom('jobs').select(['type', 'status']).where('resource_id', '=', id).execute();
      assert.deepEqual(jobs, [{ type: 'motion.extract', status: 'queued' }]);
      assert.deepEqual(await svc.wired.deps.db.selectFrom('ledger').select('id').where('resource_id', '=', id).execute(), []);
      assert.equal(((await (await svc.request('/v1/credits', { key: acct.apiKey })).json()) as { balance: number }).balance, 5);
    });

    it('accepts the motion_video / motion_video_url aliases and video_url, storing URL sources for the worker', async () => {
      const alias = await create({}, { motion_video: DANCE });
      assert.equal(alias.status, 200);
      for (const field of ['video_url', 'motion_video_url']) {
        const res = await create({ [field]: URL_SOURCE });
        assert.equal(res.status, 200, field);
        const { id } = (await res.json()) as { id: string };
        const row = await svc.wired.deps.db.selectFrom('motions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        assert.equal(row.source_kind, 'url');
        assert.equal(row.source_url, URL_SOURCE);
        assert.equal(row.duration_ms, null);
      }
      assert.equal(
        (await create({ video_url: URL_SOURCE, motion_video_url: '', task_id: '' })).status,
        200,
        'empty fields count as not sent',
      );
      const unsafe = await errorOf(await create({ motion_video_url: 'http://10.0.0.7/clip.mp4' }));
      assert.equal(unsafe.status, 400);
      assert.equal(unsafe.body.error.details.field, 'motion_video_url');
    });

    it('requires exactly one driving-video source', async () => {
      const none = await errorOf(await create({ name: 'x' }));
      assert.equal(none.status, 400);
      assert.equal(none.code, 'INVALID_REQUEST');
      assert.deepEqual(none.body.error.details.fields, ['video', 'motion_video', 'video_url', 'motion_video_url']);
      const two = await errorOf(await create({ video_url: URL_SOURCE, motion_video_url: URL_SOURCE }));
      assert.equal(two.status, 400);
      assert.deepEqual(two.body.error.details.fields, ['video_url', 'motion_video_url']);
      const mixed = await errorOf(await create({ video_url: URL_SOURCE }, { video: DANCE }));
      assert.equal(mixed.status, 400);
      assert.deepEqual(mixed.body.error.details.fields, ['video', 'video_url']);
    });

    it('stores every field with valid values; glb/all report the glb sub-status', async () => {
      const res = await create({
        video_url: URL_SOURCE,
        name: 'Full',
        type: 'all',
        enable_smoothing: 'false',
        target_fps: '60',
        joint_set: 'full',
        task_id: 't'.repeat(128),
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { id: string; glb: unknown; vsplat: unknown; type: string };
      assert.equal(body.type, 'all');
      assert.deepEqual(body.glb, { status: 'queued' });
      assert.equal(body.vsplat, null);
      const row = await svc.wired.deps.db.selectFrom('motions').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.enable_smoothing, row.target_fps, row.joint_set, row.task_id, row.glb_status],
        [0, 60, 'full', 't'.repeat(128), 'queued'],
      );
      assert.equal((await create({ video_url: URL_SOURCE, target_fps: '1', type: 'glb' })).status, 200);
    });

    const invalid: [string, Record<string, string>, string][] = [
      ['type', { type: 'vsplat' }, 'type'],
      ['enable_smoothing', { enable_smoothing: 'maybe' }, 'enable_smoothing'],
      ['target_fps 0', { target_fps: '0' }, 'target_fps'],
      ['target_fps 61', { target_fps: '61' }, 'target_fps'],
      ['fractional target_fps', { target_fps: '29.97' }, 'target_fps'],
      ['text target_fps', { target_fps: 'fast' }, 'target_fps'],
      ['joint_set', { joint_set: 'hands' }, 'joint_set'],
      ['long task_id', { task_id: 'x'.repeat(129) }, 'task_id'],
      ['long name', { name: 'n'.repeat(257) }, 'name'],
      ['unknown field', { speed: '2' }, 'speed'],
    ];
    for (const [label, fields, field] of invalid) {
      it(`refuses ${label} with 400 INVALID_REQUEST naming the field`, async () => {
        const acct = await svc.newAccount();
        const err = await errorOf(await create({ video_url: URL_SOURCE, ...fields }, {}, { key: acct.apiKey }));
        assert.equal(err.status, 400);
        assert.equal(err.code, 'INVALID_REQUEST');
        assert.equal(err.body.error.details.field, field);
        assert.ok(err.body.error.message.includes(field), err.body.error.message);
        assert.equal(
          (await svc.wired.deps.db.selectFrom('motions').select('id').where('account_id', '=', acct.accountId).execute()).length,
          0,
        );
      });
    }

    it('task_id: the same request returns the same Motion; another request with it is 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const first = await create({ video_url: URL_SOURCE, task_id: 'motion-task-1', type: 'glb' });
      assert.equal(first.status, 200);
      const firstId = ((await first.json()) as { id: string }).id;
      const again = await create({ type: 'glb', task_id: 'motion-task-1', video_url: URL_SOURCE });
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as { id: string }).id, firstId, 'the replay answers the existing Motion');
      const other = await errorOf(await create({ video_url: URL_SOURCE, task_id: 'motion-task-1', type: 'all' }));
      assert.equal(other.status, 409, 'another type');
      const err = await errorOf(await create({ task_id: 'motion-task-1' }, { video: DANCE }));
      assert.equal(err.status, 409);
      assert.equal(err.code, 'IDEMPOTENCY_KEY_REUSED');
      const uploaded = await create({ task_id: 'motion-task-2' }, { video: DANCE });
      const uploadedId = ((await uploaded.json()) as { id: string }).id;
      const uploadedAgain = await create({ task_id: 'motion-task-2' }, { video: DANCE });
      assert.equal(((await uploadedAgain.json()) as { id: string }).id, uploadedId, 'an upload replayed by its bytes');
      const stored = await readdir(join(svc.config.storage.root, 'motions')).catch(() => [] as string[]);
      const known = new Set((await svc.wired.deps.db.selectFrom('motions').select('id').execute()).map((r) => r.id));
      assert.deepEqual(
        stored.filter((d) => !known.has(d)),
        [],
        'the refused upload was removed from storage',
      );
      assert.deepEqual(await readdir(join(svc.config.dataDir, 'tmp', 'uploads')).catch(() => []), []);
    });

    it('lists the shipped templates and imports one as a queued Motion with a motion.extract job', async () => {
      const res = await svc.request('/v1/motions/templates');
      assert.equal(res.status, 200);
      const body = (await res.json()) as { items: { id: string; name: string; duration_s: number }[] };
      const expected = svc.wired.deps.engine.listTemplates().map((tpl) => ({ id: tpl.id, name: tpl.name, duration_s: tpl.durationS }));
      assert.ok(expected.length >= 1, 'the service ships at least one template');
      assert.deepEqual(body, { items: expected });
      const tpl = expected[0];
      const imported = await importJson({ template_id: tpl.id });
      assert.equal(imported.status, 200);
      const m = (await imported.json()) as { id: string; status: string; name: string; type: string };
      assert.deepEqual([m.status, m.name, m.type], ['queued', tpl.name, 'render']);
      const row = await svc.wired.deps.db.selectFrom('motions').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.source_kind, row.template_id, Number(row.duration_ms)],
        ['template', tpl.id, Math.round(tpl.duration_s * 1000)],
      );
      const jobs = await svc.wired.deps.db.selectFrom('jobs').select('type').where('resource_id', '=', m.id).execute();
      assert.deepEqual(jobs, [{ type: 'motion.extract' }]);
      const named = (await (await importJson({ template_id: tpl.id, name: 'My take' })).json()) as { name: string };
      assert.equal(named.name, 'My take');
    });

    it('refuses unknown templates (404) and malformed import bodies (400)', async () => {
      const unknown = await errorOf(await importJson({ template_id: 'no-such-template' }));
      assert.equal(unknown.status, 404);
      assert.equal(unknown.code, 'MOTION_TEMPLATE_NOT_FOUND');
      for (const body of [
        {},
        { template_id: '' },
        { template_id: null },
        { template_id: ['a', 'b'] },
        { template_id: firstTemplate().id, extra: true },
        { template_id: firstTemplate().id, name: 'n'.repeat(257) },
      ]) {
        const err = await errorOf(await importJson(body));
        assert.equal(err.status, 400, JSON.stringify(body));
        assert.equal(err.code, 'INVALID_REQUEST');
      }
      const notJson = await errorOf(
        await svc.request('/v1/motions/import', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' }),
      );
      assert.equal(notJson.status, 400);
    });

    it('lists Motions newest first in cursor pages; progress null; deleted and foreign ones excluded', async () => {
      const acct = await svc.newAccount();
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push(((await (await importJson({ template_id: firstTemplate().id, name: `m${i}` }, acct.apiKey)).json()) as { id: string }).id);
      assert.equal((await svc.request(`/v1/motions/${ids[5]}`, { method: 'DELETE', key: acct.apiKey })).status, 200);
      const newestFirst = ids.slice(0, 5).reverse();
      const seen: string[] = [];
      let cursor: string | null = null;
      const flags: boolean[] = [];
      do {
        const res: Response = await svc.request(`/v1/motions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          key: acct.apiKey,
        });
        assert.equal(res.status, 200);
        const page = (await res.json()) as { items: { id: string; progress: unknown }[]; next_cursor: string | null; has_more: boolean };
        assert.deepEqual(Object.keys(page).sort(), ['has_more', 'items', 'next_cursor']);
        assert.ok(page.items.every((m) => m.progress === null));
        seen.push(...page.items.map((m) => m.id));
        flags.push(page.has_more);
        assert.equal(page.next_cursor === null, !page.has_more);
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, newestFirst);
      assert.deepEqual(flags, [true, true, false]);
      const all = (await (await svc.request('/v1/motions', { key: acct.apiKey })).json()) as { items: { id: string }[]; has_more: boolean };
      assert.deepEqual(
        all.items.map((m) => m.id),
        newestFirst,
        'default limit 20 covers them',
      );
      assert.equal(all.has_more, false);
      const mine = (await (await svc.request('/v1/motions?limit=100')).json()) as { items: { id: string }[] };
      assert.ok(mine.items.every((m) => !ids.includes(m.id)));
    });

    it('refuses bad limits and cursors with 400', async () => {
      for (const q of [
        'limit=0',
        'limit=101',
        'limit=abc',
        'limit=2.5',
        'cursor=garbage',
        `cursor=${Buffer.from('m1:char_01J00000000000000000000000').toString('base64url')}`,
        'cursor=',
        'status=ready',
      ]) {
        const err = await errorOf(await svc.request(`/v1/motions?${q}`));
        assert.equal(err.status, 400, q);
        assert.equal(err.code, 'INVALID_REQUEST', q);
      }
    });

    it('gets, and answers 404 MOTION_NOT_FOUND for another account, a wrong family or a malformed ID', async () => {
      const { id } = (await (await importJson({ template_id: firstTemplate().id })).json()) as { id: string };
      assert.equal((await svc.request(`/v1/motions/${id}`)).status, 200);
      const other = await svc.newAccount();
      const probes = [
        [id, other.apiKey],
        [id.replace('mot_', 'char_'), svc.apiKey],
        ['mot_nope', svc.apiKey],
        ['mot_' + 'Z'.repeat(26), svc.apiKey],
      ] as const;
      for (const [probe, key] of probes) {
        for (const [path, method] of [
          [`/v1/motions/${probe}`, 'GET'],
          [`/v1/motions/${probe}`, 'DELETE'],
          [`/v1/motions/${probe}/export?download_type=glb`, 'GET'],
        ]) {
          const err = await errorOf(await svc.request(path, { method, key }));
          assert.equal(err.status, 404, `${method} ${path}`);
          assert.equal(err.code, 'MOTION_NOT_FOUND', `${method} ${path}`);
        }
      }
      assert.equal((await svc.request(`/v1/motions/${id}`)).status, 200);
    });

    it('deletes softly with {id, status: deleted}; later reads are 404; stored source stays for renders', async () => {
      const res = await create({}, { video: DANCE });
      const { id } = (await res.json()) as { id: string };
      const del = await svc.request(`/v1/motions/${id}`, { method: 'DELETE' });
      assert.equal(del.status, 200);
      assert.deepEqual(await del.json(), { id, status: 'deleted' });
      assert.equal((await errorOf(await svc.request(`/v1/motions/${id}`))).code, 'MOTION_NOT_FOUND');
      assert.equal((await svc.request(`/v1/motions/${id}`, { method: 'DELETE' })).status, 404);
      assert.ok(await svc.wired.deps.storage.stat(`motions/${id}/source`));
      assert.deepEqual(await svc.wired.deps.db.selectFrom('jobs').select('status').where('resource_id', '=', id).execute(), [
        { status: 'cancelled' },
      ]);
      assert.equal(await transitionMotion(svc.wired.deps.db, id, { to: 'processing' }), null);
    });

    it('export: download_type glb|fbx; 409 until the glb extraction is ready, then signed URLs', async () => {
      const db = svc.wired.deps.db;
      const plain = ((await (await importJson({ template_id: firstTemplate().id })).json()) as { id: string }).id;
      for (const q of ['', '?download_type=vsplat', '?download_type=obj']) {
        const err = await errorOf(await svc.request(`/v1/motions/${plain}/export${q}`));
        assert.equal(err.status, 400, q);
        assert.equal(err.code, 'INVALID_REQUEST');
      }
      const render = await errorOf(await svc.request(`/v1/motions/${plain}/export?download_type=glb`));
      assert.equal(render.status, 409);
      assert.equal(render.code, 'EXTRACTION_UNAVAILABLE');
      const id = ((await (await create({ video_url: URL_SOURCE, type: 'glb' })).json()) as { id: string }).id;
      assert.equal(
        (await errorOf(await svc.request(`/v1/motions/${id}/export?download_type=fbx`))).body.error.details.glb_status,
        'queued',
      );
      const assets = `motions/${id}/assets`;
      await svc.wired.deps.storage.putStream(`${assets}/metahuman.fbx`, Readable.from([Buffer.from('fbx-metahuman')]));
      await transitionMotion(db, id, { to: 'ready', assetsKey: assets, durationMs: 4000 });
      assert.equal(
        ((await (await svc.request(`/v1/motions/${id}`)).json()) as { status: string }).status,
        'processing',
        'waits for its glb',
      );
      assert.equal((await transitionMotion(db, id, { to: 'glb', status: 'ready' }))?.status, 'ready');
      const exp = (await (await svc.request(`/v1/motions/${id}/export?download_type=fbx`)).json()) as {
        id: string;
        metahuman_url: string;
        mixamo_url: string | null;
      };
      assert.equal(exp.id, id);
      assert.equal(await (await fetch(exp.metahuman_url)).text(), 'fbx-metahuman');
      assert.equal(exp.mixamo_url, null, 'no mixamo file was produced');
      assert.equal(
        (await errorOf(await svc.request(`/v1/motions/${id}/export?download_type=glb`))).code,
        'EXTRACTION_UNAVAILABLE',
        'no glb file',
      );
      const got = (await (await svc.request(`/v1/motions/${id}`)).json()) as Record<string, unknown>;
      assert.deepEqual([got.status, got.progress, got.glb, got.capabilities], ['ready', 100, { status: 'ready' }, ['video_render']]);
    });

    it('transitions: ready records the duration; failures are final, show in the glb sub-object and cost nothing', async () => {
      const db = svc.wired.deps.db;
      const id = ((await (await create({ video_url: URL_SOURCE })).json()) as { id: string }).id;
      assert.equal((await transitionMotion(db, id, { to: 'processing' }))?.status, 'processing');
      assert.equal((await transitionMotion(db, id, { to: 'progress', progress: 55 }))?.progress, 55);
      const ready = await transitionMotion(db, id, { to: 'ready', assetsKey: `motions/${id}/assets`, durationMs: 8123.4 });
      assert.deepEqual([ready?.status, Number(ready?.duration_ms), ready?.progress], ['ready', 8123, 100]);
      assert.equal(await transitionMotion(db, id, { to: 'failed', reason: 'late' }), null);
      const glb = ((await (await create({ video_url: URL_SOURCE, type: 'all' })).json()) as { id: string }).id;
      const [a, b] = await Promise.all([
        transitionMotion(db, glb, { to: 'failed', reason: 'x', part: 'glb' }),
        transitionMotion(db, glb, { to: 'cancelled' }),
      ]);
      assert.equal([a, b].filter((r) => r !== null).length, 1, 'one terminal transition wins');
      const got = (await (await svc.request(`/v1/motions/${glb}`)).json()) as Record<string, any>;
      assert.ok(got.status === 'failed' ? got.glb.status === 'failed' : got.status === 'cancelled' && got.glb.status === 'cancelled');
      assert.equal(got.error, null);
      assert.ok(got.completed_at);
      if (got.status === 'failed')
        assert.equal((await errorOf(await svc.request(`/v1/motions/${glb}/export?download_type=glb`))).code, 'EXTRACTION_FAILED');
    });
  });
}
