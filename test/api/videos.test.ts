import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { newId, type IdFamily } from '../../src/contracts/ids.js';
import type { VideosTable } from '../../src/infra/db/schema.js';
import { dbTargets, errorOf, startService, type TestService } from '../helpers/harness.js';

/** GET /v1/videos/{id} and GET /v1/videos (the unified read resource, spec 4.2). */

let clock = Date.parse('2026-01-01T00:00:00.000Z');

async function insertVideo(
  svc: TestService,
  accountId: string,
  over: Partial<VideosTable> & { family?: IdFamily } = {},
): Promise<VideosTable> {
  const { family = 'render', ...rest } = over;
  // Distinct, increasing creation times so "newest first" is a checkable fact.
  const at = new Date((clock += 1000)).toISOString();
  const row: VideosTable = {
    id: newId(family),
    account_id: accountId,
    kind: family === 'render' ? 'render' : family === 'h3Video' ? 'h3' : 'animation',
    status: 'queued',
    progress: 0,
    stage: null,
    background_mode: 'original',
    bg_color: null,
    character_source: '{"kind":"builtin"}',
    motion_source: '{"kind":"template","id":"wave"}',
    video_key: null,
    alpha_key: null,
    estimated_ms: 1000,
    duration_ms: null,
    reserved_milli: 1000,
    error_json: null,
    request_id: 'req_seed',
    service_source: null,
    draft_id: null,
    created_at: at,
    updated_at: at,
    started_at: null,
    completed_at: null,
    ...rest,
  };
  await svc.wired.deps.db.insertInto('videos').values(row).execute();
  return row;
}

for (const t of await dbTargets()) {
  describe(`videos (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind });
    });
    after(async () => svc?.close());

    test('GET /v1/videos/{id} accepts render_, vid_ and anim_ IDs and omits links', async () => {
      for (const family of ['render', 'h3Video', 'animation'] as const) {
        const row = await insertVideo(svc, svc.accountId, { family, status: 'processing', stage: 'rendering', progress: 40 });
        const res = await svc.request(`/v1/videos/${row.id}`);
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), {
          id: row.id,
          status: 'processing',
          progress: 40,
          stage: 'rendering',
          video_url: null,
          alpha_url: null,
          created_at: row.created_at,
          completed_at: null,
          error: null,
        });
      }
    });

    test('a ready video carries fresh signed URLs that serve the bytes; alpha only when there is one', async () => {
      const key = 'renders/test/output/video.mp4';
      const alphaKey = 'renders/test/output/alpha.mp4';
      await svc.wired.deps.storage.putStream(key, Readable.from([Buffer.from('video-bytes')]));
      await svc.wired.deps.storage.putStream(alphaKey, Readable.from([Buffer.from('alpha-bytes')]));
      const done = new Date().toISOString();
      const transparent = await insertVideo(svc, svc.accountId, {
        status: 'ready',
        progress: 100,
        stage: 'finishing',
        video_key: key,
        alpha_key: alphaKey,
        background_mode: 'transparent',
        completed_at: done,
      });
      const body = (await (await svc.request(`/v1/videos/${transparent.id}`)).json()) as any;
      assert.equal(body.stage, null);
      assert.equal(body.completed_at, done);
      assert.equal(await (await fetch(body.video_url)).text(), 'video-bytes');
      assert.equal(await (await fetch(body.alpha_url)).text(), 'alpha-bytes');
      const opaque = await insertVideo(svc, svc.accountId, { status: 'ready', video_key: key, completed_at: done });
      const b2 = (await (await svc.request(`/v1/videos/${opaque.id}`)).json()) as any;
      assert.ok(b2.video_url);
      assert.equal(b2.alpha_url, null);
    });

    test('a failed video answers 200 with the full error envelope', async () => {
      const failed = await insertVideo(svc, svc.accountId, {
        status: 'failed',
        completed_at: new Date().toISOString(),
        request_id: 'req_origin',
        error_json: JSON.stringify({
          code: 'INVALID_MOTION',
          message: 'No performer was found in the driving video.',
          retryable: false,
          details: { frames: 0 },
        }),
      });
      const res = await svc.request(`/v1/videos/${failed.id}`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as any;
      assert.equal(body.status, 'failed');
      assert.deepEqual(body.error, {
        code: 'INVALID_MOTION',
        message: 'No performer was found in the driving video.',
        retryable: false,
        request_id: 'req_origin',
        details: { frames: 0 },
        remediation: { action: 'fix_input', retry_after_ms: null },
      });
    });

    test('missing, foreign, malformed and other-family IDs are 404 RENDER_NOT_FOUND', async () => {
      const other = await svc.newAccount(1);
      const foreign = await insertVideo(svc, other.accountId);
      for (const id of [
        newId('render'),
        newId('animation'),
        foreign.id,
        'render_123',
        'vid_',
        newId('character'),
        'render_' + 'Z'.repeat(90),
      ]) {
        const e = await errorOf(await svc.request(`/v1/videos/${id}`));
        assert.deepEqual([e.status, e.code], [404, 'RENDER_NOT_FOUND'], id);
      }
      assert.equal((await svc.request(`/v1/videos/${foreign.id}`, { key: other.apiKey })).status, 200);
    });

    test("GET /v1/videos pages newest first with an opaque cursor, filters by status, and lists only the caller's", async () => {
      const acct = await svc.newAccount(1);
      const other = await svc.newAccount(1);
      const rows: VideosTable[] = [];
      for (let i = 0; i < 25; i++) {
        const family = (['render', 'h3Video', 'animation'] as const)[i % 3];
        rows.push(
          await insertVideo(svc, acct.accountId, {
            family,
            status: i % 5 === 0 ? 'ready' : 'queued',
            video_key: i % 5 === 0 ? 'renders/test/output/video.mp4' : null,
          }),
        );
      }
      await insertVideo(svc, other.accountId);
      const newestFirst = rows.map((r) => r.id).reverse();

      const seen: string[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const res = await svc.request(`/v1/videos?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: acct.apiKey });
        assert.equal(res.status, 200);
        const page = (await res.json()) as any;
        assert.deepEqual(Object.keys(page).sort(), ['has_more', 'items', 'next_cursor']);
        sizes.push(page.items.length);
        seen.push(...page.items.map((v: any) => v.id));
        assert.equal(page.has_more, page.next_cursor !== null);
        assert.ok(page.items.every((v: any) => !('links' in v)));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(sizes, [10, 10, 5]);
      assert.deepEqual(seen, newestFirst);

      const def = (await (await svc.request('/v1/videos', { key: acct.apiKey })).json()) as any;
      assert.equal(def.items.length, 20);
      assert.equal(def.has_more, true);

      const ready = (await (await svc.request('/v1/videos?status=ready&limit=100', { key: acct.apiKey })).json()) as any;
      assert.deepEqual(
        ready.items.map((v: any) => v.id),
        rows
          .filter((r) => r.status === 'ready')
          .map((r) => r.id)
          .reverse(),
      );
      assert.ok(ready.items.every((v: any) => typeof v.video_url === 'string'));
      assert.deepEqual([ready.has_more, ready.next_cursor], [false, null]);
      const none = (await (await svc.request('/v1/videos?status=cancelled', { key: acct.apiKey })).json()) as any;
      assert.deepEqual(none, { items: [], next_cursor: null, has_more: false });
    });

    test('bad list parameters are 400 INVALID_REQUEST', async () => {
      const forged = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV'])).toString('base64url');
      for (const q of [
        'status=done',
        'status=',
        'limit=0',
        'limit=101',
        'limit=abc',
        'limit=2.5',
        'cursor=%%%',
        'cursor=bm90LWpzb24',
        `cursor=${forged}`,
      ]) {
        const e = await errorOf(await svc.request(`/v1/videos?${q}`));
        assert.deepEqual([e.status, e.code], [400, 'INVALID_REQUEST'], q);
      }
    });
  });
}
