import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../../src/contracts/ids.js';
import { setProjectDefaults } from '../../src/domain/accounts/accounts.service.js';
import type { AssetStatus } from '../../src/infra/db/schema.js';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { insertCharacterRow, insertMotionRow } from '../helpers/asset-rows.js';

/** POST /v1/renders (direct form and defaults), the retired paths and downloads. */

const IMAGE = mediaFile('images/mimicmotion--demo1.jpg');
const VIDEO = mediaFile('videos/liveportrait--d18.mp4');

type Part = string | { file: string; name?: string } | { bytes: Buffer; name: string };

async function form(parts: Record<string, Part>): Promise<FormData> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') fd.append(k, v);
    else if ('file' in v) fd.append(k, new Blob([await readFile(v.file)]), v.name ?? 'upload.bin');
    else fd.append(k, new Blob([v.bytes]), v.name);
  }
  return fd;
}

const insertCharacter = (svc: TestService, accountId: string, status: AssetStatus) =>
  insertCharacterRow(svc.wired.deps.db, accountId, status);
const insertMotion = (svc: TestService, accountId: string, status: AssetStatus, durationMs: number | null = 2500) =>
  insertMotionRow(svc.wired.deps.db, accountId, status, durationMs);

const videoRow = (svc: TestService, id: string) =>
  svc.wired.deps.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const reserveOf = async (svc: TestService, id: string) =>
  (await svc.wired.deps.db.selectFrom('ledger').selectAll().where('resource_id', '=', id).execute()).filter((r) => r.kind === 'reserve');
const uploadsLeft = async (svc: TestService) => readdir(join(svc.wired.deps.tmpDir, 'uploads')).catch(() => [] as string[]);
const countVideos = async (svc: TestService, accountId: string) =>
  Number(
    (
      await svc.wired.deps.db
        .selectFrom('videos')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

for (const t of await dbTargets()) {
  describe(`renders (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    let charReady: string;
    let motReady: string;
    const post = async (parts: Record<string, Part>, init: RequestInit & { key?: string } = {}) =>
      svc.request('/v1/renders', { method: 'POST', body: await form(parts), ...init });

    before(async () => {
      svc = await startService({ db: t.kind, credits: 1000, env: { MARIONETTE_URL_ALLOW_LIST: '127.0.0.1' } });
      charReady = await insertCharacter(svc, svc.accountId, 'ready');
      motReady = await insertMotion(svc, svc.accountId, 'ready', 2500);
    });
    after(async () => svc?.close());

    test('every character source combines with every motion source', async () => {
      const videoMs = (await svc.wired.deps.engine.probeVideo(VIDEO)).durationMs;
      const characters: Record<string, Part> = {
        character_id: '',
        image: { file: IMAGE, name: 'me.jpg' },
        image_url: `${svc.baseUrl}/assets/me.png`,
      };
      const motions: Record<string, Part> = {
        motion_id: '',
        motion_video: { file: VIDEO, name: 'dance.mp4' },
        motion_video_url: `${svc.baseUrl}/assets/dance.mp4`,
      };
      for (const [cf, cv] of Object.entries(characters)) {
        for (const [mf, mv] of Object.entries(motions)) {
          const res = await post({ [cf]: cf === 'character_id' ? charReady : cv, [mf]: mf === 'motion_id' ? motReady : mv });
          const body = (await res.json()) as any;
          assert.equal(res.status, 200, `${cf} x ${mf}: ${JSON.stringify(body)}`);
          assert.match(body.id, /^render_[0-9A-Z]{26}$/);
          assert.equal(body.status, 'queued');
          assert.equal(body.progress, 0);
          assert.equal(body.video_url, null);
          assert.deepEqual(body.links, {
            self: `${svc.baseUrl}/v1/renders/${body.id}`,
            events: `${svc.baseUrl}/v1/renders/${body.id}/events`,
            download: `${svc.baseUrl}/v1/renders/${body.id}/download`,
          });
          const row = await videoRow(svc, body.id);
          const cs = JSON.parse(row.character_source);
          const ms = JSON.parse(row.motion_source);
          if (cf === 'character_id') assert.deepEqual(cs, { kind: 'character', id: charReady });
          if (cf === 'image_url') assert.deepEqual(cs, { kind: 'url', url: characters.image_url });
          if (cf === 'image') {
            assert.deepEqual(cs, { kind: 'stored', key: `renders/${body.id}/inputs/image` });
            assert.equal((await svc.wired.deps.storage.stat(cs.key))?.size, (await readFile(IMAGE)).length);
          }
          if (mf === 'motion_id') assert.deepEqual(ms, { kind: 'motion', id: motReady });
          if (mf === 'motion_video') {
            assert.deepEqual(ms, { kind: 'stored', key: `renders/${body.id}/inputs/video` });
            assert.equal((await svc.wired.deps.storage.stat(ms.key))?.size, (await readFile(VIDEO)).length);
          }
          if (mf === 'motion_video_url') assert.deepEqual(ms, { kind: 'url', url: motions.motion_video_url });
          // 1 credit per started second of the estimate; a URL motion is measured (and reserved) by the worker.
          const expected = mf === 'motion_id' ? 3000 : mf === 'motion_video' ? Math.ceil(videoMs / 1000) * 1000 : null;
          const reserves = await reserveOf(svc, body.id);
          if (expected === null) assert.equal(reserves.length, 0);
          else assert.deepEqual([reserves.length, -reserves[0].amount_milli, row.reserved_milli], [1, expected, expected]);
        }
      }
      assert.deepEqual(await uploadsLeft(svc), []);
    });

    test('creation writes the queued event, the render.run job, the request ID and the service source', async () => {
      const res = await post(
        { character_id: charReady, motion_id: motReady, background_mode: 'solid', bg_color: '0, 177,64' },
        { headers: { 'X-Request-Id': 'trace-abc-1', 'X-Service-Source': 'sdk-ts/1.0' } },
      );
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-request-id'), 'trace-abc-1');
      const { id } = (await res.json()) as any;
      const row = await videoRow(svc, id);
      assert.deepEqual(
        [row.request_id, row.service_source, row.background_mode, row.bg_color, row.status],
        ['trace-abc-1', 'sdk-ts/1.0', 'solid', '0,177,64', 'queued'],
      );
      const events = await svc.wired.deps.db.selectFrom('render_events').selectAll().where('render_id', '=', id).execute();
      assert.deepEqual(
        events.map((e) => [Number(e.sequence), e.type]),
        [[1, 'queued']],
      );
      const jobs = await svc.wired.deps.db.selectFrom('jobs').selectAll().where('resource_id', '=', id).execute();
      assert.deepEqual(
        jobs.map((j) => [j.type, j.status]),
        [['render.run', 'queued']],
      );
    });

    test('neither family: the built-in default character and template, or the project defaults', async () => {
      const other = await svc.newAccount(100);
      const res = await svc.request('/v1/renders', { method: 'POST', key: other.apiKey });
      const body = (await res.json()) as any;
      assert.equal(res.status, 200, JSON.stringify(body));
      const row = await videoRow(svc, body.id);
      assert.deepEqual(JSON.parse(row.character_source), { kind: 'builtin' });
      const ms = JSON.parse(row.motion_source);
      const template = svc.wired.deps.engine.listTemplates().find((x) => x.id === ms.id);
      assert.equal(ms.kind, 'template');
      assert.ok(template, `template ${ms.id} is one the engine ships`);
      assert.equal(-(await reserveOf(svc, body.id))[0].amount_milli, Math.ceil(template.durationS) * 1000);

      // A form with only background settings also means "defaults".
      const transparent = await post({ background_mode: 'transparent' }, { key: other.apiKey });
      assert.equal(transparent.status, 200);
      assert.equal((await videoRow(svc, ((await transparent.json()) as any).id)).background_mode, 'transparent');

      const c = await insertCharacter(svc, other.accountId, 'ready');
      const m = await insertMotion(svc, other.accountId, 'ready', 1200);
      await setProjectDefaults(svc.wired.deps.db, other.accountId, { characterId: c, motionId: m });
      const withDefaults = (await (await svc.request('/v1/renders', { method: 'POST', key: other.apiKey })).json()) as any;
      const row2 = await videoRow(svc, withDefaults.id);
      assert.deepEqual(
        [JSON.parse(row2.character_source), JSON.parse(row2.motion_source)],
        [
          { kind: 'character', id: c },
          { kind: 'motion', id: m },
        ],
      );
      assert.equal(-(await reserveOf(svc, withDefaults.id))[0].amount_milli, 2000);

      await setProjectDefaults(svc.wired.deps.db, other.accountId, {
        characterId: await insertCharacter(svc, other.accountId, 'processing'),
        motionId: m,
      });
      const notReady = await errorOf(await svc.request('/v1/renders', { method: 'POST', key: other.apiKey }));
      assert.deepEqual([notReady.status, notReady.code, notReady.body.error.details.status], [409, 'INVALID_CHARACTER', 'processing']);
    });

    test('a family given partially or twice is refused with the family and fields named', async () => {
      const cases: [Record<string, Part>, string, string[]][] = [
        [{ character_id: charReady }, 'motion', []],
        [{ motion_video_url: 'https://example.com/v.mp4' }, 'character', []],
        [
          { character_id: charReady, image_url: 'https://example.com/a.png', motion_id: motReady },
          'character',
          ['character_id', 'image_url'],
        ],
        [
          { character_id: charReady, motion_id: motReady, motion_video: { file: VIDEO }, motion_video_url: 'https://example.com/v.mp4' },
          'motion',
          ['motion_id', 'motion_video', 'motion_video_url'],
        ],
      ];
      for (const [parts, family, fields] of cases) {
        const e = await errorOf(await post(parts));
        assert.deepEqual(
          [e.status, e.code, e.body.error.details.family, e.body.error.details.fields],
          [400, 'INVALID_REQUEST', family, fields],
          JSON.stringify(parts),
        );
      }
      const unknown = await errorOf(await post({ scene_id: 'x' }));
      assert.deepEqual([unknown.status, unknown.body.error.details.field], [400, 'scene_id']);
      assert.deepEqual(await uploadsLeft(svc), []);
    });

    test('background_mode and bg_color rules', async () => {
      const src = { character_id: charReady, motion_id: motReady };
      for (const [bg, why] of [
        [{ background_mode: 'solid' }, 'solid without bg_color'],
        [{ bg_color: '1,2,3' }, 'bg_color with the default original'],
        [{ background_mode: 'transparent', bg_color: '1,2,3' }, 'bg_color with transparent'],
        [{ background_mode: 'solid', bg_color: '256,0,0' }, 'component over 255'],
        [{ background_mode: 'solid', bg_color: '#00ff00' }, 'not R,G,B'],
        [{ background_mode: 'green' }, 'unknown mode'],
      ] as const) {
        const e = await errorOf(await post({ ...src, ...bg }));
        assert.deepEqual([e.status, e.code], [400, 'INVALID_REQUEST'], why);
      }
      for (const mode of ['original', 'transparent']) assert.equal((await post({ ...src, background_mode: mode })).status, 200);
    });

    test('Character and Motion IDs: not found, not ready, failed', async () => {
      const foreign = await svc.newAccount(10);
      const cases: [Record<string, string>, number, string, string | undefined][] = [
        [{ character_id: await insertCharacter(svc, svc.accountId, 'queued') }, 409, 'INVALID_CHARACTER', 'queued'],
        [{ character_id: await insertCharacter(svc, svc.accountId, 'processing') }, 409, 'INVALID_CHARACTER', 'processing'],
        [{ character_id: await insertCharacter(svc, svc.accountId, 'failed') }, 422, 'INVALID_CHARACTER', 'failed'],
        [{ character_id: newId('character') }, 404, 'CHARACTER_NOT_FOUND', undefined],
        [{ character_id: await insertCharacter(svc, foreign.accountId, 'ready') }, 404, 'CHARACTER_NOT_FOUND', undefined],
        [{ character_id: 'char_nope' }, 404, 'CHARACTER_NOT_FOUND', undefined],
        [{ character_id: motReady }, 404, 'CHARACTER_NOT_FOUND', undefined],
        [{ motion_id: await insertMotion(svc, svc.accountId, 'processing') }, 409, 'MOTION_NOT_READY', 'processing'],
        [{ motion_id: await insertMotion(svc, svc.accountId, 'failed') }, 422, 'INVALID_MOTION', 'failed'],
        [{ motion_id: newId('motion') }, 404, 'MOTION_NOT_FOUND', undefined],
        [{ motion_id: await insertMotion(svc, foreign.accountId, 'ready') }, 404, 'MOTION_NOT_FOUND', undefined],
        [{ motion_id: charReady }, 404, 'MOTION_NOT_FOUND', undefined],
      ];
      for (const [ids, status, code, detail] of cases) {
        const e = await errorOf(await post({ character_id: charReady, motion_id: motReady, ...ids }));
        assert.deepEqual([e.status, e.code, e.body.error.details.status], [status, code, detail], JSON.stringify(ids));
      }
    });

    test('an asset whose 2D part is ready is usable while its 3D part runs; a failed 3D part keeps an `all` asset usable', async () => {
      const db = svc.wired.deps.db;
      const twoDReady = async (table: 'characters' | 'motions', id: string, patch: Record<string, unknown>) =>
        db
          .updateTable(table)
          .set({ assets_key: `${table}/${id}/assets`, ...patch } as never)
          .where('id', '=', id)
          .execute();
      const charRunning = await insertCharacter(svc, svc.accountId, 'processing');
      await twoDReady('characters', charRunning, { type: 'all', vsplat_status: 'processing' });
      const motRunning = await insertMotion(svc, svc.accountId, 'processing');
      await twoDReady('motions', motRunning, { type: 'glb', glb_status: 'processing' });
      assert.equal((await post({ character_id: charRunning, motion_id: motRunning })).status, 200, 'both 3D parts still running');
      const failed3d = JSON.stringify({ reason: 'x', part: 'vsplat', at: new Date().toISOString() });
      const charAll = await insertCharacter(svc, svc.accountId, 'failed');
      await twoDReady('characters', charAll, { type: 'all', vsplat_status: 'failed', failure_json: failed3d });
      assert.equal((await post({ character_id: charAll, motion_id: motReady })).status, 200, 'all: the 2D part was paid and delivered');
      const charVsplat = await insertCharacter(svc, svc.accountId, 'failed');
      await twoDReady('characters', charVsplat, { type: 'vsplat', vsplat_status: 'failed', failure_json: failed3d });
      const e = await errorOf(await post({ character_id: charVsplat, motion_id: motReady }));
      assert.deepEqual([e.status, e.code], [422, 'INVALID_CHARACTER'], 'vsplat only: refunded whole, not usable');
    });

    test('uploads that are not accepted media are refused with nothing left behind', async () => {
      const before = await countVideos(svc, svc.accountId);
      const e1 = await errorOf(
        await post({ image: { bytes: Buffer.from('definitely not a picture'), name: 'a.png' }, motion_id: motReady }),
      );
      assert.deepEqual([e1.status, e1.code], [422, 'UNSUPPORTED_MEDIA']);
      const e2 = await errorOf(await post({ character_id: charReady, motion_video: { file: IMAGE, name: 'clip.mp4' } }));
      assert.deepEqual([e2.status, e2.code], [422, 'UNSUPPORTED_MEDIA']);
      assert.equal(await countVideos(svc, svc.accountId), before);
      assert.deepEqual(await uploadsLeft(svc), []);
      const renderDirs = await readdir(join(svc.config.storage.root, 'renders')).catch(() => [] as string[]);
      for (const d of renderDirs)
        assert.ok(
          (await svc.wired.deps.db.selectFrom('videos').select('id').where('id', '=', d).executeTakeFirst()) !== undefined,
          `orphan ${d}`,
        );
    });

    test('URL sources must be public http(s) URLs', async () => {
      for (const [field, url] of [
        ['image_url', 'file:///etc/passwd'],
        ['image_url', 'http://user:pw@example.com/a.png'],
        ['motion_video_url', 'http://10.1.2.3/v.mp4'],
        ['motion_video_url', 'not a url'],
      ]) {
        const parts: Record<string, Part> =
          field === 'image_url' ? { image_url: url, motion_id: motReady } : { character_id: charReady, motion_video_url: url };
        const e = await errorOf(await post(parts));
        assert.deepEqual([e.status, e.code, e.body.error.details.field], [400, 'INVALID_REQUEST', field], url);
      }
    });

    test('GET /v1/renders and GET /v1/renders/{id} are retired (405)', async () => {
      const list = await svc.request('/v1/renders');
      assert.equal(list.status, 405);
      assert.equal(list.headers.get('allow'), 'POST');
      const e = await errorOf(list);
      assert.equal(e.code, 'INVALID_REQUEST');
      assert.match(e.body.error.message, /GET \/v1\/videos\/\{id\}/);
      const one = await svc.request(`/v1/renders/${newId('render')}`);
      assert.equal(one.status, 405);
      assert.equal(one.headers.get('allow'), '');
      assert.match((await errorOf(one)).body.error.message, /GET \/v1\/videos\/\{id\}/);
      assert.equal((await svc.request(`/v1/renders/${newId('render')}`, { method: 'DELETE' })).status, 405);
    });

    test("download: 302 to a fresh signed URL when ready, 409 before, 404 when not the caller's", async () => {
      const { id } = (await (await post({ character_id: charReady, motion_id: motReady })).json()) as any;
      const early = await errorOf(await svc.request(`/v1/renders/${id}/download`));
      assert.deepEqual([early.status, early.code, early.body.error.details.status], [409, 'INVALID_REQUEST', 'queued']);

      const key = `renders/${id}/output/video.mp4`;
      await svc.wired.deps.storage.putFile(key, VIDEO);
      await svc.wired.deps.db
        .updateTable('videos')
        .set({ status: 'ready', video_key: key, progress: 100, duration_ms: 2500, completed_at: new Date().toISOString() })
        .where('id', '=', id)
        .execute();
      const res = await svc.request(`/v1/renders/${id}/download`);
      assert.equal(res.status, 302);
      const location = res.headers.get('location')!;
      assert.ok(location.startsWith(`${svc.baseUrl}/files/`), location);
      const file = await fetch(location);
      assert.equal(file.status, 200);
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), await readFile(VIDEO));

      const foreign = await svc.newAccount(1);
      for (const [path, key2] of [
        [`/v1/renders/${id}/download`, foreign.apiKey],
        [`/v1/renders/${newId('render')}/download`, svc.apiKey],
        ['/v1/renders/render_bad/download', svc.apiKey],
        [`/v1/renders/${charReady}/download`, svc.apiKey],
      ]) {
        const e = await errorOf(await svc.request(path, { key: key2 }));
        assert.deepEqual([e.status, e.code], [404, 'RENDER_NOT_FOUND'], path);
      }
    });

    test('a JSON body is the draft form, answered by the draft rules', async () => {
      const noKey = await errorOf(
        await svc.request('/v1/renders', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ draft_id: newId('draft') }),
        }),
      );
      assert.deepEqual([noKey.status, noKey.code], [400, 'INVALID_REQUEST']);
      const missing = await errorOf(
        await svc.request('/v1/renders', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
          body: JSON.stringify({ draft_id: newId('draft') }),
        }),
      );
      assert.deepEqual([missing.status, missing.code], [404, 'DRAFT_NOT_FOUND']);
    });
  });
}
