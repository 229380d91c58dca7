import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssetStatus } from '../../src/infra/db/schema.js';
import { transitionRender } from '../../src/domain/renders/renders.state.js';
import { transitionCharacter } from '../../src/domain/characters/characters.state.js';
import { dbTargets, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { insertCharacterRow, insertMotionRow } from '../helpers/asset-rows.js';
import { insertQueuedRender, ledgerOf, balanceMilli } from '../helpers/render-fixture.js';
import { assertDeprecated, form, legacyError, syntheticVideo, type Part } from '../helpers/legacy.js';

/**
 * The deprecated Legacy interface under /api (spec 9.1, 9.3; DECISIONS "Legacy interface") through
 * real HTTP, without workers: shapes, statuses, every Legacy error code and the 401 `detail` strings,
 * the Deprecation/Link headers, offset paging, the direct-video limits and cancellation racing the
 * completion. Flows through the workers are in legacy-flows.test.ts.
 */

const IMAGE = mediaFile('images/mimicmotion--demo1.jpg');
const VIDEO = mediaFile('videos/liveportrait--d18.mp4');
const MiB = 1024 * 1024;

for (const t of await dbTargets()) {
  describe(`legacy /api (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    let charReady: string;
    let motReady: string;
    let media: string;
    const db = () => svc.wired.deps.db;
    const post = async (path: string, parts: Record<string, Part>, init: RequestInit & { key?: string | null } = {}) =>
      svc.request(path, { method: 'POST', body: await form(parts), ...init });
    const videoRow = (id: string) => db().selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    before(async () => {
      svc = await startService({ db: t.kind, credits: 2000, env: { MARIONETTE_URL_ALLOW_LIST: '127.0.0.1' } });
      charReady = await insertCharacterRow(db(), svc.accountId, 'ready');
      motReady = await insertMotionRow(db(), svc.accountId, 'ready', 2500);
      media = await mkdtemp(join(tmpdir(), 'marionette-legacy-'));
    });
    after(async () => {
      await svc?.close();
      if (media) await rm(media, { recursive: true, force: true });
    });

    test('401: no credential and a bad one answer { detail: string } with WWW-Authenticate, on every Legacy path', async () => {
      for (const [method, path] of [
        ['GET', '/api/credits'],
        ['GET', '/api/characters'],
        ['POST', '/api/render'],
        ['DELETE', `/api/render/render_01ARZ3NDEKTSV4RRFFQ69G5FAV`],
        ['GET', '/api/scenes'],
      ]) {
        const none = await svc.request(path, { method, key: null });
        assert.equal(none.status, 401, `${method} ${path}`);
        assert.deepEqual(await none.json(), { detail: 'Not authenticated' });
        assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
        assert.equal(none.headers.get('deprecation'), 'true');
        const bad = await svc.request(path, { method, key: 'mk_live_not-a-real-key' });
        assert.equal(bad.status, 401);
        assert.deepEqual(await bad.json(), { detail: 'Invalid or revoked API key' });
        const scheme = await svc.request(path, { method, key: null, headers: { authorization: 'Basic abc' } });
        assert.deepEqual([scheme.status, await scheme.json()], [401, { detail: 'Invalid or revoked API key' }]);
      }
    });

    test('POST /api/render: every character source with every scene source; the Legacy answer; model recorded', async () => {
      const characters: Record<string, Part> = {
        character_id: charReady,
        ref_image: { file: IMAGE, name: 'me.jpg' },
        ref_image_url: `${svc.baseUrl}/assets/me.png`,
      };
      const scenes: Record<string, Part> = {
        scene_id: motReady,
        driving_video: { file: VIDEO, name: 'dance.mp4' },
        driving_video_url: `${svc.baseUrl}/assets/dance.mp4`,
      };
      for (const [cf, cv] of Object.entries(characters)) {
        for (const [sf, sv] of Object.entries(scenes)) {
          const res = await post('/api/render', { [cf]: cv, [sf]: sv, model: 'v2-legacy' });
          const body = (await res.json()) as any;
          assert.equal(res.status, 200, `${cf} x ${sf}: ${JSON.stringify(body)}`);
          assertDeprecated(res, '/v1/renders');
          assert.deepEqual(Object.keys(body).sort(), ['enqueued_at', 'job_id', 'mode', 'poll_url', 'status', 'status_url']);
          assert.match(body.job_id, /^render_[0-9A-Z]{26}$/);
          assert.equal(body.status, 'queued');
          assert.equal(body.poll_url, `/api/render/${body.job_id}`);
          assert.equal(body.status_url, `/api/render/${body.job_id}`);
          assert.ok(!Number.isNaN(Date.parse(body.enqueued_at)) && body.enqueued_at.endsWith('Z'));
          const asset = (f: string) => f === 'character_id' || f === 'scene_id';
          assert.equal(body.mode, asset(cf) && asset(sf) ? 'asset' : !asset(cf) && !asset(sf) ? 'direct' : 'mixed');
          const row = await videoRow(body.job_id);
          const cs = JSON.parse(row.character_source);
          const ms = JSON.parse(row.motion_source);
          assert.equal(cs.kind, { character_id: 'character', ref_image: 'stored', ref_image_url: 'url' }[cf]);
          assert.equal(ms.kind, { scene_id: 'motion', driving_video: 'stored', driving_video_url: 'url' }[sf]);
          assert.deepEqual(JSON.parse(row.params_json ?? '{}'), { legacy_model: 'v2-legacy' });
        }
      }
    });

    test('POST /api/render: background_mode and bg_color reach the render; the V1 rules answer in Legacy errors', async () => {
      const res = await post('/api/render', {
        character_id: charReady,
        scene_id: motReady,
        background_mode: 'solid',
        bg_color: '0,177,64',
      });
      const { job_id } = (await res.json()) as any;
      const row = await videoRow(job_id);
      assert.deepEqual([row.background_mode, row.bg_color], ['solid', '0,177,64']);

      const cases: [string, Record<string, Part>, number, string, RegExp?][] = [
        ['no scene source', { character_id: charReady }, 400, 'CS-ORIV-002', /driving_video, driving_video_url, scene_id/],
        ['no source at all', {}, 400, 'CS-ORIV-002'],
        [
          'two character sources',
          { character_id: charReady, ref_image_url: 'https://example.com/a.png', scene_id: motReady },
          400,
          'CS-ORIV-001',
          /ref_image_url/,
        ],
        ['bg_color without solid', { character_id: charReady, scene_id: motReady, bg_color: '1,2,3' }, 400, 'CS-ORIV-001', /bg_color/],
        ['unknown field', { character_id: charReady, scene_id: motReady, motion_id: motReady }, 400, 'CS-ORIV-001', /motion_id/],
        ['unknown scene', { character_id: charReady, scene_id: 'mot_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 404, 'CS-UORC01-003'],
        ['a scene ID of the wrong family', { character_id: charReady, scene_id: charReady }, 404, 'CS-UORC01-003'],
        ['unknown character', { character_id: 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV', scene_id: motReady }, 404, 'CS-UORC01-003'],
        ['not an image', { ref_image: { bytes: Buffer.from('hello'), name: 'a.png' }, scene_id: motReady }, 400, 'CS-ORIV-001'],
      ];
      for (const [what, parts, status, code, message] of cases) {
        const r = await post('/api/render', parts);
        assertDeprecated(r, '/v1/renders');
        const e = await legacyError(r);
        assert.deepEqual([e.status, e.code], [status, code], `${what}: ${JSON.stringify(e.body)}`);
        assert.equal(typeof e.detail.message, 'string');
        if (message) assert.match(e.detail.message, message, what);
        // V1 names never leak into a Legacy message about the render's own fields.
        if (what !== 'unknown field') assert.doesNotMatch(e.detail.message, /\bmotion_video|(?<!ref_)image_url|\bmotion_id\b/, what);
      }

      for (const status of ['queued', 'processing'] as AssetStatus[]) {
        const c = await insertCharacterRow(db(), svc.accountId, status);
        const m = await insertMotionRow(db(), svc.accountId, status);
        const ec = await legacyError(await post('/api/render', { character_id: c, scene_id: motReady }));
        assert.deepEqual([ec.status, ec.code, ec.detail.v1_code], [409, 'CS-ORIV-002', 'INVALID_CHARACTER']);
        const em = await legacyError(await post('/api/render', { character_id: charReady, scene_id: m }));
        assert.deepEqual([em.status, em.code, em.detail.v1_code], [409, 'CS-ORIV-002', 'MOTION_NOT_READY']);
      }

      const poor = await svc.newAccount(1);
      const long = await insertMotionRow(db(), poor.accountId, 'ready', 5000);
      const pc = await insertCharacterRow(db(), poor.accountId, 'ready');
      const e = await legacyError(await post('/api/render', { character_id: pc, scene_id: long }, { key: poor.apiKey }));
      assert.deepEqual([e.status, e.code], [402, 'CS-UORC01-008']);
      assert.equal(
        Number(
          (
            await db()
              .selectFrom('videos')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('account_id', '=', poor.accountId)
              .executeTakeFirstOrThrow()
          ).n,
        ),
        0,
      );
    });

    test('GET /api/render/{job_id}: queued, complete with cdn_url / mask_cdn_url, failed with top-level error fields; open without a credential', async () => {
      const created = (await (
        await post('/api/render', { character_id: charReady, scene_id: motReady, background_mode: 'transparent' })
      ).json()) as any;
      const res = await svc.request(created.status_url, { key: null });
      assertDeprecated(res, `/v1/videos/${created.job_id}`);
      const job = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(job));
      assert.deepEqual(
        [
          job.job_id,
          job.status,
          job.mode,
          job.progress,
          job.cdn_url,
          job.mask_cdn_url,
          job.error,
          job.error_code,
          job.enqueued_at,
          job.completed_at,
        ],
        [created.job_id, 'queued', 'asset', 0, null, null, null, null, created.enqueued_at, null],
      );

      // Finish it as a worker would: outputs in storage, then the ready transition.
      const deps = svc.wired.deps;
      await deps.storage.putFile(`renders/${created.job_id}/output/video.mp4`, VIDEO);
      await deps.storage.putFile(`renders/${created.job_id}/output/alpha.mp4`, VIDEO);
      await transitionRender(deps, created.job_id, { to: 'processing' });
      await transitionRender(deps, created.job_id, {
        to: 'ready',
        videoKey: `renders/${created.job_id}/output/video.mp4`,
        alphaKey: `renders/${created.job_id}/output/alpha.mp4`,
        durationMs: 2500,
      });
      const done = (await (await svc.request(`/api/render/${created.job_id}`)).json()) as any;
      assert.deepEqual([done.status, done.progress], ['complete', 100]);
      assert.ok(done.completed_at);
      for (const url of [done.cdn_url, done.mask_cdn_url]) {
        const f = await fetch(url);
        assert.equal(f.status, 200);
        assert.equal(Buffer.from(await f.arrayBuffer()).length, (await readFile(VIDEO)).length);
      }
      // The same render read through V1.
      const v1 = (await (await svc.request(`/v1/videos/${created.job_id}`)).json()) as any;
      assert.deepEqual(
        [v1.status, new URL(v1.video_url).pathname, new URL(v1.alpha_url).pathname],
        ['ready', new URL(done.cdn_url).pathname, new URL(done.mask_cdn_url).pathname],
      );

      const failing = (await (await post('/api/render', { character_id: charReady, scene_id: motReady })).json()) as any;
      await transitionRender(deps, failing.job_id, {
        to: 'failed',
        error: { code: 'INVALID_MOTION', message: 'No performer was found in the driving video.', retryable: false },
      });
      const failed = (await (await svc.request(`/api/render/${failing.job_id}`, { key: null })).json()) as any;
      assert.deepEqual(
        [failed.status, failed.error_code, failed.error, failed.cdn_url],
        ['failed', 'CS-ORIV-001', 'No performer was found in the driving video.', null],
      );

      // A credential that is sent is checked: bad → 401, another account's job → 404.
      const other = await svc.newAccount(10);
      assert.deepEqual(
        await legacyError(await svc.request(`/api/render/${created.job_id}`, { key: 'mk_live_nope' })).then((e) => [e.status, e.detail]),
        [401, 'Invalid or revoked API key'],
      );
      assert.deepEqual(
        await legacyError(await svc.request(`/api/render/${created.job_id}`, { key: other.apiKey })).then((e) => [e.status, e.code]),
        [404, 'CS-UORC01-003'],
      );
      for (const id of ['render_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope', charReady]) {
        assert.deepEqual(
          await legacyError(await svc.request(`/api/render/${id}`, { key: null })).then((e) => [e.status, e.code]),
          [404, 'CS-UORC01-003'],
          id,
        );
      }
    });

    test('DELETE /api/render/{job_id}: cancels a queued render and releases its credits once; a terminal one answers its status', async () => {
      const before = await balanceMilli(db(), svc.accountId);
      const created = (await (await post('/api/render', { character_id: charReady, scene_id: motReady })).json()) as any;
      assert.equal((await balanceMilli(db(), svc.accountId)).available, before.available - 3000);
      const res = await svc.request(`/api/render/${created.job_id}`, { method: 'DELETE' });
      assertDeprecated(res, `/v1/videos/${created.job_id}`);
      const body = (await res.json()) as any;
      assert.deepEqual([res.status, body.job_id, body.status, body.cancelled], [200, created.job_id, 'cancelled', true]);
      assert.deepEqual(await balanceMilli(db(), svc.accountId), before);
      const again = (await (await svc.request(`/api/render/${created.job_id}`, { method: 'DELETE' })).json()) as any;
      assert.deepEqual([again.status, again.cancelled], ['cancelled', false]);
      assert.deepEqual(
        (await ledgerOf(db(), created.job_id)).map((l) => l.kind),
        ['reserve', 'release'],
      );
      assert.equal(((await (await svc.request(`/v1/videos/${created.job_id}`)).json()) as any).status, 'cancelled');
      const job = await db().selectFrom('jobs').select('status').where('resource_id', '=', created.job_id).executeTakeFirstOrThrow();
      assert.equal(job.status, 'cancelled');

      const other = await svc.newAccount(10);
      assert.deepEqual(
        await legacyError(await svc.request(`/api/render/${created.job_id}`, { method: 'DELETE', key: other.apiKey })).then((e) => [
          e.status,
          e.code,
        ]),
        [404, 'CS-UORC01-003'],
      );
      assert.deepEqual(
        await legacyError(await svc.request(`/api/render/${created.job_id}`, { method: 'DELETE', key: null })).then((e) => [
          e.status,
          e.detail,
        ]),
        [401, 'Not authenticated'],
      );
    });

    test('a Legacy cancel racing the completion settles exactly once (20 races)', async () => {
      const { accountId, apiKey } = await svc.newAccount(100);
      const deps = svc.wired.deps;
      const outcomes = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const row = await insertQueuedRender(deps, accountId, { reserveCredits: 3 });
        await deps.storage.putFile(`renders/${row.id}/output/video.mp4`, VIDEO);
        await transitionRender(deps, row.id, { to: 'processing' });
        const complete = () =>
          transitionRender(deps, row.id, { to: 'ready', videoKey: `renders/${row.id}/output/video.mp4`, alphaKey: null, durationMs: 2500 });
        const cancel = () => svc.request(`/api/render/${row.id}`, { method: 'DELETE', key: apiKey }).then((r) => r.json() as Promise<any>);
        // The DELETE travels through HTTP, the completion is in-process: a varying head start for the
        // completion lets either side win, so both outcomes are exercised.
        const lag = (i % 5) * 3;
        const [answer, ready] = await Promise.all([cancel(), new Promise((r) => setTimeout(r, lag)).then(complete)]);
        const final = await videoRow(row.id);
        const kinds = (await ledgerOf(db(), row.id)).map((l) => l.kind);
        const events = (await db().selectFrom('render_events').select('type').where('render_id', '=', row.id).execute()).map((e) => e.type);
        const terminal = events.filter((e) => ['ready', 'failed', 'cancelled'].includes(e));
        assert.equal(terminal.length, 1, `one terminal event: ${events}`);
        assert.ok(final.status === 'ready' || final.status === 'cancelled');
        assert.equal(answer.status, final.status === 'ready' ? 'complete' : 'cancelled', 'the DELETE answers the outcome that stuck');
        assert.equal(answer.cancelled, final.status === 'cancelled');
        assert.equal(ready !== null, final.status === 'ready');
        assert.deepEqual(kinds, ['reserve', final.status === 'ready' ? 'settle' : 'release']);
        if (final.status === 'cancelled')
          assert.equal(await deps.storage.stat(`renders/${row.id}/output/video.mp4`), null, 'no orphan output');
        outcomes.add(final.status);
      }
      // Every reservation was closed exactly once: nothing stays reserved.
      assert.equal((await balanceMilli(db(), accountId)).reserved, 0);
      process.stdout.write(`# legacy cancel race outcomes (${t.kind}): ${[...outcomes].join(', ')}\n`);
    });

    test('GET /api/characters: limit 1-100 (default 50), offset; newest first; offset paging walks every character once', async () => {
      const acct = await svc.newAccount(10);
      const ids: string[] = [];
      for (let i = 0; i < 23; i++)
        ids.push(
          await insertCharacterRow(
            db(),
            acct.accountId,
            (['ready', 'queued', 'processing', 'failed', 'cancelled'] as AssetStatus[])[i % 5],
          ),
        );
      await svc.request(`/api/characters/${ids[0]}`, { method: 'DELETE', key: acct.apiKey });
      const live = ids.slice(1).reverse();
      const seen: string[] = [];
      for (let offset = 0; ; offset += 5) {
        const res = await svc.request(`/api/characters?limit=5&offset=${offset}`, { key: acct.apiKey });
        assertDeprecated(res, '/v1/characters');
        const page = (await res.json()) as any;
        assert.equal(page.total, page.characters.length);
        for (const c of page.characters) {
          assert.deepEqual(Object.keys(c).sort(), ['completed_at', 'created_at', 'id', 'name', 'status']);
          assert.ok(['pending', 'processing', 'ready', 'failed'].includes(c.status), c.status);
        }
        seen.push(...page.characters.map((c: any) => c.id));
        if (page.characters.length < 5) break;
      }
      assert.deepEqual(seen, live, 'every active character once, newest first');
      const all = (await (await svc.request('/api/characters', { key: acct.apiKey })).json()) as any;
      assert.equal(all.total, 22);
      const statuses = Object.fromEntries(all.characters.map((c: any) => [c.id, c.status]));
      assert.deepEqual(
        [statuses[ids[1]], statuses[ids[2]], statuses[ids[3]], statuses[ids[4]], statuses[ids[5]]],
        ['pending', 'processing', 'failed', 'failed', 'ready'],
      );
      // Default limit 50: 60 characters give 50 on the first page.
      for (let i = 0; i < 38; i++) await insertCharacterRow(db(), acct.accountId, 'ready');
      assert.equal(((await (await svc.request('/api/characters', { key: acct.apiKey })).json()) as any).total, 50);
      assert.equal(((await (await svc.request('/api/characters?limit=100', { key: acct.apiKey })).json()) as any).total, 60);
      for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5']) {
        const e = await legacyError(await svc.request(`/api/characters?${q}`, { key: acct.apiKey }));
        assert.deepEqual([e.status, e.code], [400, 'CS-ORIV-001'], q);
      }
    });

    test('characters: preprocess (either image spelling, model recorded, 1 credit), get, soft delete returning success', async () => {
      const acct = await svc.newAccount(10);
      const res = await post(
        '/api/characters/preprocess',
        { ref_image: { file: IMAGE, name: 'me.jpg' }, name: 'Hero', model: 'hq-2' },
        { key: acct.apiKey },
      );
      assertDeprecated(res, '/v1/characters');
      const c = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(c));
      assert.deepEqual(
        [Object.keys(c).sort(), c.name, c.status, c.completed_at],
        [['completed_at', 'created_at', 'id', 'name', 'status'], 'Hero', 'pending', null],
      );
      assert.match(c.id, /^char_/);
      const row = await db().selectFrom('characters').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
      assert.deepEqual([row.legacy_model, row.type, row.source_kind], ['hq-2', 'render', 'upload']);
      assert.equal((await balanceMilli(db(), acct.accountId)).available, 9000);
      const byUrl = await post('/api/characters/preprocess', { image_url: 'https://example.com/x.png' }, { key: acct.apiKey });
      assert.equal(byUrl.status, 200);

      const e1 = await legacyError(await post('/api/characters/preprocess', { name: 'x' }, { key: acct.apiKey }));
      assert.deepEqual([e1.status, e1.code], [400, 'CS-ORIV-002']);
      const e2 = await legacyError(
        await post(
          '/api/characters/preprocess',
          { image: { file: IMAGE, name: 'a.jpg' }, ref_image_url: 'https://example.com/x.png' },
          { key: acct.apiKey },
        ),
      );
      assert.deepEqual([e2.status, e2.code], [400, 'CS-ORIV-001']);

      const got = await svc.request(`/api/characters/${c.id}`, { key: acct.apiKey });
      assertDeprecated(got, `/v1/characters/${c.id}`);
      assert.deepEqual(await got.json(), c);
      // The same Character through V1.
      assert.equal(((await (await svc.request(`/v1/characters/${c.id}`, { key: acct.apiKey })).json()) as any).status, 'queued');
      const del = await svc.request(`/api/characters/${c.id}`, { method: 'DELETE', key: acct.apiKey });
      assert.deepEqual([del.status, await del.json()], [200, { success: true }]);
      assert.deepEqual(
        await legacyError(await svc.request(`/api/characters/${c.id}`, { key: acct.apiKey })).then((e) => [e.status, e.code]),
        [404, 'CS-UORC01-003'],
      );
      assert.deepEqual(
        await legacyError(await svc.request(`/api/characters/${c.id}`, { method: 'DELETE', key: acct.apiKey })).then((e) => [
          e.status,
          e.code,
        ]),
        [404, 'CS-UORC01-003'],
      );
      assert.equal((await svc.request(`/v1/characters/${c.id}`, { key: acct.apiKey })).status, 404);
    });

    test('scenes: import from a template (free), create from a video, list by offset, get, soft delete', async () => {
      const acct = await svc.newAccount(10);
      const template = svc.wired.deps.engine.listTemplates()[0];
      const res = await svc.request('/api/scenes/import', {
        method: 'POST',
        key: acct.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template_uuid: template.id, name: 'Wave' }),
      });
      assertDeprecated(res, '/v1/motions/import');
      const imported = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(imported));
      assert.match(imported.scene_id, /^mot_/);
      assert.deepEqual(
        [imported.job_id, imported.status, imported.name, typeof imported.message],
        [imported.scene_id, 'pending', 'Wave', 'string'],
      );
      assert.equal('character_uuids' in imported, false, 'single-person templates track no persons');
      assert.deepEqual(await balanceMilli(db(), acct.accountId), { available: 10_000, reserved: 0 }, 'importing is free');

      const missing = await legacyError(
        await svc.request('/api/scenes/import', {
          method: 'POST',
          key: acct.apiKey,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x' }),
        }),
      );
      assert.deepEqual([missing.status, missing.code], [400, 'CS-ORIV-002']);
      const unknown = await legacyError(
        await svc.request('/api/scenes/import', {
          method: 'POST',
          key: acct.apiKey,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ template_uuid: 'tpl_nope' }),
        }),
      );
      assert.deepEqual([unknown.status, unknown.code], [404, 'CS-UORC01-003']);

      const created = await post('/api/scenes', { driving_video: { file: VIDEO, name: 'd.mp4' }, name: 'Dance' }, { key: acct.apiKey });
      assertDeprecated(created, '/v1/motions');
      const scene = (await created.json()) as any;
      assert.equal(created.status, 200, JSON.stringify(scene));
      assert.deepEqual([scene.status, scene.name], ['pending', 'Dance']);
      const noVideo = await legacyError(await post('/api/scenes', { name: 'x' }, { key: acct.apiKey }));
      assert.deepEqual([noVideo.status, noVideo.code], [400, 'CS-ORIV-002']);

      const list = (await (await svc.request('/api/scenes?limit=1&offset=1', { key: acct.apiKey })).json()) as any;
      assert.deepEqual([list.total, list.scenes.map((s: any) => s.scene_id)], [1, [imported.scene_id]]);
      const one = (await (await svc.request(`/api/scenes/${scene.scene_id}`, { key: acct.apiKey })).json()) as any;
      assert.deepEqual(Object.keys(one).sort(), ['completed_at', 'created_at', 'id', 'name', 'scene_id', 'status']);
      assert.equal(one.id, one.scene_id);
      const del = await svc.request(`/api/scenes/${scene.scene_id}`, { method: 'DELETE', key: acct.apiKey });
      assertDeprecated(del, `/v1/motions/${scene.scene_id}`);
      assert.deepEqual([del.status, await del.json()], [200, { success: true }]);
      assert.deepEqual(
        await legacyError(await svc.request(`/api/scenes/${scene.scene_id}`, { key: acct.apiKey })).then((e) => [e.status, e.code]),
        [404, 'CS-UORC01-003'],
      );
      assert.equal(((await (await svc.request('/api/scenes', { key: acct.apiKey })).json()) as any).total, 1);
    });

    test('GET /api/credits and the extraction operations (same answer as V1 while 3D is not available)', async () => {
      const acct = await svc.newAccount(42);
      const res = await svc.request('/api/credits', { key: acct.apiKey });
      assertDeprecated(res, '/v1/credits');
      const c = (await res.json()) as any;
      assert.deepEqual([c.credits, c.balance, c.reserved], [42, 42, 0]);

      // A render-only Character has no splat: V1 says 409 EXTRACTION_UNAVAILABLE, Legacy 409 CS-ORIV-002 with the same message.
      const plain = await insertCharacterRow(db(), acct.accountId, 'ready');
      const v1 = (await (await svc.request(`/v1/characters/${plain}/export?download_type=vsplat`, { key: acct.apiKey })).json()) as any;
      const e = await legacyError(await post('/api/extract/static-bin', { character_id: plain }, { key: acct.apiKey }));
      assert.deepEqual(
        [e.status, e.code, e.detail.message, e.detail.v1_code],
        [409, 'CS-ORIV-002', v1.error.message, 'EXTRACTION_UNAVAILABLE'],
      );
      const json = await legacyError(
        await svc.request('/api/extract/static-bin', {
          method: 'POST',
          key: acct.apiKey,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ character_id: plain }),
        }),
      );
      assert.deepEqual([json.status, json.code], [409, 'CS-ORIV-002']);

      // With an image: a vsplat Character, priced as V1 (25 credits); its extraction then fails as V1's does here.
      const started = await post(
        '/api/extract/static-bin',
        { ref_image: { file: IMAGE, name: 'a.jpg' }, fp: 'fp16', model: 'splat-v1' },
        { key: acct.apiKey },
      );
      assertDeprecated(started, /^\/v1\/characters\/.+\/export$/);
      const s = (await started.json()) as any;
      assert.equal(started.status, 200, JSON.stringify(s));
      assert.deepEqual([s.status, s.poll_url], ['pending', `/api/characters/${s.character_id}`]);
      assert.equal((await balanceMilli(db(), acct.accountId)).available, 17_000);
      await transitionCharacter(db(), s.character_id, {
        to: 'failed',
        part: 'vsplat',
        reason: '3D extraction is not available on this server yet.',
      });
      const v1f = (await (
        await svc.request(`/v1/characters/${s.character_id}/export?download_type=vsplat`, { key: acct.apiKey })
      ).json()) as any;
      const lf = await legacyError(await post('/api/extract/static-bin', { character_id: s.character_id }, { key: acct.apiKey }));
      assert.deepEqual([lf.status, lf.code, lf.detail.message, lf.detail.v1_code], [400, 'CS-ORIV-001', v1f.error.message, v1f.error.code]);

      const mot = await insertMotionRow(db(), acct.accountId, 'ready');
      const v1m = (await (await svc.request(`/v1/motions/${mot}/export?download_type=fbx`, { key: acct.apiKey })).json()) as any;
      const lm = await legacyError(await post('/api/extract/dynamic-fbx', { scene_id: mot }, { key: acct.apiKey }));
      assert.deepEqual([lm.status, lm.code, lm.detail.message], [409, 'CS-ORIV-002', v1m.error.message]);
      const glb = await post(
        '/api/extract/dynamic-fbx',
        { driving_video: { file: VIDEO, name: 'd.mp4' }, enable_smoothing: 'false', target_fps: '12' },
        { key: acct.apiKey },
      );
      const g = (await glb.json()) as any;
      assert.equal(glb.status, 200, JSON.stringify(g));
      const mrow = await db().selectFrom('motions').selectAll().where('id', '=', g.scene_id).executeTakeFirstOrThrow();
      assert.deepEqual([mrow.type, mrow.enable_smoothing, mrow.target_fps], ['glb', 0, 12]);
      const none = await legacyError(await post('/api/extract/dynamic-fbx', {}, { key: acct.apiKey }));
      assert.deepEqual([none.status, none.code], [400, 'CS-ORIV-002']);
    });

    test('direct driving videos through /api: up to 10 minutes (V1 stops at 5), not over; 100 MB cut while streaming', async () => {
      const acct = await svc.newAccount(1000);
      const c = await insertCharacterRow(db(), acct.accountId, 'ready');
      const sixMinutes = await syntheticVideo(media, 360);
      const ok = await post(
        '/api/render',
        { character_id: c, driving_video: { file: sixMinutes, name: 'long.mp4' } },
        { key: acct.apiKey },
      );
      const okBody = (await ok.json()) as any;
      assert.equal(ok.status, 200, JSON.stringify(okBody));
      assert.equal(Number((await videoRow(okBody.job_id)).reserved_milli), 360_000);
      const v1 = await svc.request('/v1/renders', {
        method: 'POST',
        key: acct.apiKey,
        body: await form({ character_id: c, motion_video: { file: sixMinutes, name: 'long.mp4' } }),
      });
      assert.equal(v1.status, 422, 'V1 keeps its own 5-minute limit');
      await svc.request(`/api/render/${okBody.job_id}`, { method: 'DELETE', key: acct.apiKey });

      const tooLong = await syntheticVideo(media, 601);
      const e = await legacyError(
        await post('/api/render', { character_id: c, driving_video: { file: tooLong, name: 'long.mp4' } }, { key: acct.apiKey }),
      );
      assert.deepEqual([e.status, e.code, e.detail.v1_code], [400, 'CS-ORIV-001', 'UNSUPPORTED_MEDIA']);
      assert.match(e.detail.message, /600 s/);
      const es = await legacyError(await post('/api/scenes', { driving_video: { file: tooLong, name: 'long.mp4' } }, { key: acct.apiKey }));
      assert.deepEqual([es.status, es.code], [400, 'CS-ORIV-001']);

      // 100 MiB: a generated stream (no file on disk) is cut just past the limit, answered while still sending.
      const boundary = 'legacy-boundary';
      const total = 110 * MiB;
      const req = httpRequest(`${svc.baseUrl}/api/render`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${acct.apiKey}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(total),
        },
      });
      req.on('error', () => {});
      const response = new Promise<IncomingMessage>((resolve) => req.once('response', resolve));
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="driving_video"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
      );
      let sent = 0;
      let answeredAt = -1;
      void response.then(() => (answeredAt = sent));
      const chunk = Buffer.alloc(256 * 1024, 7);
      while (sent < total - MiB && answeredAt < 0 && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk))
          await new Promise<void>((r) => {
            const done = () => {
              req.off('drain', done);
              req.off('close', done);
              r();
            };
            req.on('drain', done);
            req.on('close', done);
          });
      }
      const r = await response;
      const body = JSON.parse(
        await new Promise<string>((ok2) => {
          let s = '';
          r.on('data', (d) => (s += d));
          r.on('end', () => ok2(s));
        }),
      );
      req.destroy();
      assert.deepEqual([r.statusCode, body.detail.error_code, body.detail.field], [400, 'CS-ORIV-001', 'driving_video']);
      assert.match(body.detail.message, new RegExp(String(100 * MiB)));
      assert.equal(r.headers.deprecation, 'true');
      assert.ok(answeredAt >= 100 * MiB - 4 * MiB && answeredAt < total - MiB, `answered after ${answeredAt} bytes`);

      // A declared length no Legacy form can fit is refused before a byte of the body is read.
      const req2 = httpRequest(`${svc.baseUrl}/api/render`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${acct.apiKey}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(200 * MiB),
        },
      });
      req2.on('error', () => {});
      const r2p = new Promise<IncomingMessage>((resolve) => req2.once('response', resolve));
      req2.write(`--${boundary}\r\n`);
      const r2 = await r2p;
      const b2 = JSON.parse(
        await new Promise<string>((ok2) => {
          let s = '';
          r2.on('data', (d) => (s += d));
          r2.on('end', () => ok2(s));
        }),
      );
      req2.destroy();
      assert.deepEqual([r2.statusCode, b2.detail.error_code], [400, 'CS-ORIV-001']);
    });

    test('unknown /api paths answer a Legacy 404; V1 errors keep the V1 envelope', async () => {
      const e = await legacyError(await svc.request('/api/nope'));
      assert.deepEqual([e.status, e.code], [404, 'CS-ORIV-001']);
      const v1 = (await (await svc.request('/v1/characters/nope')).json()) as any;
      assert.equal(v1.error.code, 'CHARACTER_NOT_FOUND');
    });
  });
}

describe('legacy /api with MARIONETTE_LEGACY_OPEN_STATUS=false', () => {
  test('the status URL needs a credential', async () => {
    const svc = await startService({ db: 'sqlite', env: { MARIONETTE_LEGACY_OPEN_STATUS: 'false' } });
    try {
      const row = await insertQueuedRender(svc.wired.deps, svc.accountId, {});
      const none = await svc.request(`/api/render/${row.id}`, { key: null });
      assert.deepEqual([none.status, await none.json()], [401, { detail: 'Not authenticated' }]);
      const ok = await svc.request(`/api/render/${row.id}`);
      assert.equal(ok.status, 200);
    } finally {
      await svc.close();
    }
  });
});
