import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { sweepAllExpiredDrafts } from '../../src/domain/drafts/drafts.service.js';
import type { Clock } from '../../src/domain/ports/index.js';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';

/**
 * Drafts (spec 4.1, DECISIONS "Renders"): prepare → PUT to the signed upload URLs → POST /v1/renders
 * {draft_id} with an Idempotency-Key. Every error of the flow, the 202 answer, and idempotency
 * under concurrency (one render, one reservation).
 */

const IMAGE = 'images/mimicmotion--demo1.jpg'; // JPEG 1080x1920
const FAKE_PNG = 'images/musepose--ref.png'; // JPEG bytes inside a .png name
const VIDEO = 'videos/liveportrait--d18.mp4'; // MP4, 7.2 s → 8 credits reserved

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Plan {
  draft_id: string;
  expires_at: string;
  uploads: { field: string; method: string; url: string; headers: Record<string, string>; expires_at: string }[];
}

for (const target of await dbTargets()) {
  describe(`drafts (${target.kind})`, { skip: target.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    let image: Buffer;
    let video: Buffer;
    let fakePng: Buffer;

    before(async () => {
      svc = await startService({ db: target.kind, credits: 1000 });
      [image, video, fakePng] = await Promise.all([readFile(mediaFile(IMAGE)), readFile(mediaFile(VIDEO)), readFile(mediaFile(FAKE_PNG))]);
    });
    after(() => svc?.close());

    const json = (body: unknown, headers: Record<string, string> = {}, key?: string | null) =>
      ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers }, key }) as const;

    async function prepare(body: unknown, key?: string): Promise<Plan> {
      const res = await svc.request('/v1/renders/prepare', json(body, {}, key));
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as Plan;
    }

    const declareBoth = (opts: { imageSha?: string; videoSha?: string } = {}) => ({
      image: { content_type: 'image/jpeg', size_bytes: image.length, ...(opts.imageSha ? { sha256: opts.imageSha } : {}) },
      motion_video: { content_type: 'video/mp4', size_bytes: video.length, ...(opts.videoSha ? { sha256: opts.videoSha } : {}) },
      background_mode: 'solid',
      bg_color: '0,177,64',
    });

    const put = (plan: Plan, field: string, bytes: Buffer, headers: Record<string, string> = {}) => {
      const u = plan.uploads.find((x) => x.field === field)!;
      return fetch(u.url, { method: 'PUT', body: bytes, headers: { ...u.headers, ...headers } });
    };

    async function uploadedDraft(): Promise<Plan> {
      const plan = await prepare(declareBoth({ imageSha: sha(image), videoSha: sha(video) }));
      assert.equal((await put(plan, 'image', image)).status, 200);
      assert.equal((await put(plan, 'motion_video', video)).status, 200);
      return plan;
    }

    const createFromDraft = (draftId: string, key: string | undefined, apiKey?: string) =>
      svc.request('/v1/renders', json({ draft_id: draftId }, key === undefined ? {} : { 'idempotency-key': key }, apiKey));

    const ledger = (resourceId: string) =>
      svc.wired.deps.db.selectFrom('ledger').selectAll().where('resource_id', '=', resourceId).execute();

    it('prepare answers a draft with one signed PUT plan per declared file', async () => {
      const before = Date.now();
      const plan = await prepare(declareBoth());
      assert.match(plan.draft_id, /^draft_[0-9A-HJKMNP-TV-Z]{26}$/);
      const draftTtl = Date.parse(plan.expires_at) - before;
      assert.ok(draftTtl > 3590_000 && draftTtl <= 3601_000, `draft lives 1 h (got ${draftTtl} ms)`);
      assert.deepEqual(plan.uploads.map((u) => u.field).sort(), ['image', 'motion_video']);
      for (const u of plan.uploads) {
        assert.equal(u.method, 'PUT');
        assert.ok(u.url.startsWith(`${svc.baseUrl}/files/drafts/${plan.draft_id}/${u.field}?`), u.url);
        assert.equal(u.headers['Content-Type'], u.field === 'image' ? 'image/jpeg' : 'video/mp4');
        const ttl = Date.parse(u.expires_at) - before;
        assert.ok(ttl > 890_000 && ttl <= 901_000, `upload URL lives 15 min (got ${ttl} ms)`);
      }
      const uploads = await svc.wired.deps.db.selectFrom('uploads').selectAll().where('draft_id', '=', plan.draft_id).execute();
      assert.equal(uploads.length, 2);
      assert.ok(uploads.every((u) => u.status === 'pending' && u.account_id === svc.accountId));
    });

    it('prepare judges the declaration and the sources at the door', async () => {
      const cases: [unknown, string][] = [
        [{ ...declareBoth(), image: { content_type: 'image/gif', size_bytes: 10 } }, 'image.content_type'],
        [{ ...declareBoth(), motion_video: { content_type: 'video/mp4', size_bytes: 200 * 1024 * 1024 + 1 } }, 'motion_video.size_bytes'],
        [{ ...declareBoth(), image: { content_type: 'image/png', size_bytes: 0 } }, 'image.size_bytes'],
        [{ ...declareBoth(), image: { content_type: 'image/png', size_bytes: 5, sha256: 'abc' } }, 'image.sha256'],
        [{ image: { content_type: 'image/png', size_bytes: 5 } }, 'motion source missing'],
        [{ ...declareBoth(), character_id: 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'two character sources'],
        [{ ...declareBoth(), background_mode: 'original' }, 'bg_color without solid'],
        [{ image_url: 'http://127.0.0.1/x.png', motion_video: { content_type: 'video/mp4', size_bytes: 5 } }, 'loopback URL'],
        [{ image_url: 'ftp://example.com/x.png', motion_video: { content_type: 'video/mp4', size_bytes: 5 } }, 'ftp URL'],
        [{ ...declareBoth(), surprise: 1 }, 'unknown field'],
      ];
      for (const [body, what] of cases) {
        const res = await svc.request('/v1/renders/prepare', json(body));
        const err = await errorOf(res);
        assert.equal(err.status, 400, `${what}: ${JSON.stringify(err.body)}`);
        assert.equal(err.code, 'INVALID_REQUEST', what);
      }
      const drafts = await svc.wired.deps.db.selectFrom('drafts').select('id').where('account_id', '=', svc.accountId).execute();
      const uploads = await svc.wired.deps.db.selectFrom('uploads').select('id').where('account_id', '=', svc.accountId).execute();
      assert.equal(uploads.length, drafts.length * 2, 'a refused prepare leaves no draft behind');
    });

    it('prepare refuses Character and Motion IDs the account does not have (404); readiness waits for the render', async () => {
      const theirs = await svc.newAccount();
      const db = svc.wired.deps.db;
      const now = new Date().toISOString();
      const charId = 'char_01ARZ3NDEKTSV4RRFFQ69G5FAV';
      await db
        .insertInto('characters')
        .values({
          id: charId,
          account_id: theirs.accountId,
          name: '',
          type: 'render',
          status: 'processing',
          progress: 0,
          enhance: 0,
          joint_set: 'body',
          model_precision: null,
          filter_low_quality: 0,
          render_thumbnail: 0,
          task_id: null,
          vsplat_status: null,
          source_kind: 'url',
          source_key: null,
          source_url: 'https://example.com/a.png',
          assets_key: null,
          failure_json: null,
          charge_milli: 0,
          request_id: null,
          service_source: null,
          created_at: now,
          updated_at: now,
          completed_at: null,
          deleted_at: null,
        })
        .execute();
      const video = { motion_video: { content_type: 'video/mp4', size_bytes: 100 } };
      for (const [body, code] of [
        [{ character_id: charId, ...video }, 'CHARACTER_NOT_FOUND'],
        [{ character_id: 'mot_01ARZ3NDEKTSV4RRFFQ69G5FAV', ...video }, 'CHARACTER_NOT_FOUND'],
        [{ image: { content_type: 'image/png', size_bytes: 100 }, motion_id: 'mot_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'MOTION_NOT_FOUND'],
      ] as const) {
        const err = await errorOf(await svc.request('/v1/renders/prepare', json(body)));
        assert.equal(err.status, 404);
        assert.equal(err.code, code);
      }
      // The owner may prepare with a Character still processing.
      assert.equal((await svc.request('/v1/renders/prepare', json({ character_id: charId, ...video }, {}, theirs.apiKey))).status, 200);
    });

    it('prepare → PUT → draft render answers 202 with the render, one reservation, the draft consumed', async () => {
      const plan = await uploadedDraft();
      const res = await createFromDraft(plan.draft_id, `k-${plan.draft_id}`);
      assert.equal(res.status, 202, await res.clone().text());
      assert.ok(res.headers.get('x-request-id'));
      const body = (await res.json()) as any;
      assert.match(body.id, /^render_/);
      assert.equal(body.status, 'queued');
      assert.equal(body.progress, 0);
      assert.equal(body.links.events, `${svc.baseUrl}/v1/renders/${body.id}/events`);
      const row = await svc.wired.deps.db.selectFrom('videos').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      assert.equal(row.draft_id, plan.draft_id);
      assert.deepEqual(JSON.parse(row.character_source), { kind: 'stored', key: `drafts/${plan.draft_id}/image` });
      assert.deepEqual(JSON.parse(row.motion_source), { kind: 'stored', key: `drafts/${plan.draft_id}/motion_video` });
      assert.equal(row.background_mode, 'solid');
      assert.equal(row.bg_color, '0,177,64');
      const moves = await ledger(body.id);
      assert.deepEqual(
        moves.map((m) => [m.kind, Number(m.amount_milli)]),
        [['reserve', -8000]],
      );
      const draft = await svc.wired.deps.db.selectFrom('drafts').selectAll().where('id', '=', plan.draft_id).executeTakeFirstOrThrow();
      assert.equal(draft.status, 'consumed');
      assert.equal(draft.render_id, body.id);
      assert.ok(await svc.wired.deps.storage.stat(`drafts/${plan.draft_id}/motion_video`), 'the upload stays for the render');
    });

    it('same key + same body returns the original render; a new key gets DRAFT_ALREADY_CONSUMED; another body gets IDEMPOTENCY_KEY_REUSED', async () => {
      const plan = await uploadedDraft();
      const key = `retry-${plan.draft_id}`;
      const first = (await (await createFromDraft(plan.draft_id, key)).json()) as any;
      const again = await createFromDraft(plan.draft_id, key);
      assert.equal(again.status, 202);
      assert.equal(((await again.json()) as any).id, first.id);
      // Key order and whitespace do not make a different body.
      const spaced = await svc.request('/v1/renders', {
        method: 'POST',
        body: `{ "draft_id" : "${plan.draft_id}" }`,
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
      assert.equal(((await spaced.json()) as any).id, first.id);

      const consumed = await errorOf(await createFromDraft(plan.draft_id, `${key}-new`));
      assert.equal(consumed.status, 409);
      assert.equal(consumed.code, 'DRAFT_ALREADY_CONSUMED');
      assert.equal(consumed.body.error.remediation.action, 'create_new_draft');

      const other = await uploadedDraft();
      const reused = await errorOf(await createFromDraft(other.draft_id, key));
      assert.equal(reused.status, 409);
      assert.equal(reused.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(reused.body.error.remediation.action, 'use_new_idempotency_key');
      assert.equal((await svc.wired.deps.db.selectFrom('videos').select('id').where('draft_id', '=', other.draft_id).execute()).length, 0);
      assert.equal((await ledger(first.id)).length, 1);
    });

    it('20 concurrent retries with one key give one render and one reservation', async () => {
      const plan = await uploadedDraft();
      const key = `burst-${plan.draft_id}`;
      const answers = await Promise.all(Array.from({ length: 20 }, () => createFromDraft(plan.draft_id, key)));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as any[];
      assert.deepEqual(
        answers.map((r) => r.status),
        Array(20).fill(202),
        JSON.stringify(bodies.find((b) => b.error)),
      );
      const ids = new Set(bodies.map((b) => b.id));
      assert.equal(ids.size, 1);
      const rows = await svc.wired.deps.db.selectFrom('videos').select('id').where('draft_id', '=', plan.draft_id).execute();
      assert.equal(rows.length, 1);
      const reserves = (await ledger(rows[0].id)).filter((m) => m.kind === 'reserve');
      assert.equal(reserves.length, 1);
      const jobs = await svc.wired.deps.db.selectFrom('jobs').select('id').where('resource_id', '=', rows[0].id).execute();
      assert.equal(jobs.length, 1);
    });

    it('concurrent requests with different keys on one draft: one render, the others DRAFT_ALREADY_CONSUMED', async () => {
      const plan = await uploadedDraft();
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => createFromDraft(plan.draft_id, `race-${i}-${plan.draft_id}`)));
      const statuses = answers.map((r) => r.status).sort();
      assert.deepEqual(statuses, [202, 409, 409, 409, 409, 409]);
      const losers = (await Promise.all(answers.filter((r) => r.status === 409).map((r) => r.json()))) as any[];
      assert.ok(losers.every((b) => b.error.code === 'DRAFT_ALREADY_CONSUMED'));
      const rows = await svc.wired.deps.db.selectFrom('videos').select('id').where('draft_id', '=', plan.draft_id).execute();
      assert.equal(rows.length, 1);
      assert.equal((await ledger(rows[0].id)).length, 1);
      const keys = await svc.wired.deps.db.selectFrom('idempotency_keys').select('key').where('render_id', '=', rows[0].id).execute();
      assert.equal(keys.length, 1, 'only the winning key is recorded');
    });

    it('the Idempotency-Key header is required and 1-255 characters', async () => {
      const plan = await prepare({});
      for (const key of [undefined, '', 'x'.repeat(256)]) {
        const err = await errorOf(await createFromDraft(plan.draft_id, key));
        assert.equal(err.status, 400);
        assert.equal(err.code, 'INVALID_REQUEST');
        assert.equal(err.body.error.details.header, 'Idempotency-Key');
      }
      const extra = await errorOf(
        await svc.request('/v1/renders', json({ draft_id: plan.draft_id, motion_id: 'x' }, { 'idempotency-key': 'k' })),
      );
      assert.equal(extra.status, 400);
    });

    it('a malformed, unknown or foreign draft is 404 DRAFT_NOT_FOUND', async () => {
      const theirs = await svc.newAccount();
      const foreign = await prepare({}, theirs.apiKey);
      for (const id of ['nope', 'render_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'draft_01ARZ3NDEKTSV4RRFFQ69G5FAV', foreign.draft_id]) {
        const err = await errorOf(await createFromDraft(id, `nf-${id}`));
        assert.equal(err.status, 404, id);
        assert.equal(err.code, 'DRAFT_NOT_FOUND', id);
      }
    });

    it('a draft whose uploads have not arrived is 409 UPLOAD_REQUIRED naming the fields', async () => {
      const plan = await prepare(declareBoth());
      assert.equal((await put(plan, 'image', image)).status, 200);
      const err = await errorOf(await createFromDraft(plan.draft_id, `ur-${plan.draft_id}`));
      assert.equal(err.status, 409);
      assert.equal(err.code, 'UPLOAD_REQUIRED');
      assert.deepEqual(err.body.error.details.fields, ['motion_video']);
      assert.equal(err.body.error.remediation.action, 'upload_media');
      // The refusal recorded nothing: the same key works once the upload is there.
      assert.equal((await put(plan, 'motion_video', video)).status, 200);
      assert.equal((await createFromDraft(plan.draft_id, `ur-${plan.draft_id}`)).status, 202);
    });

    it('uploads that do not match the declaration are 422 UPLOAD_MISMATCH and leave no object', async () => {
      const plan = await prepare({
        image: { content_type: 'image/png', size_bytes: fakePng.length },
        motion_video: { content_type: 'video/mp4', size_bytes: video.length, sha256: 'f'.repeat(64) },
      });
      const store = svc.wired.deps.storage;
      const typeErr = await errorOf(await put(plan, 'image', fakePng));
      assert.equal(typeErr.status, 422);
      assert.equal(typeErr.code, 'UPLOAD_MISMATCH');
      assert.equal(typeErr.body.error.details.reason, 'type');
      assert.equal(typeErr.body.error.remediation.action, 'reupload');
      assert.equal(await store.stat(`drafts/${plan.draft_id}/image`), null);

      const shaErr = await errorOf(await put(plan, 'motion_video', video));
      assert.equal(shaErr.code, 'UPLOAD_MISMATCH');
      assert.equal(shaErr.body.error.details.reason, 'sha256');
      assert.equal(shaErr.body.error.details.actual_sha256, sha(video));

      const shortErr = await errorOf(await put(plan, 'motion_video', video.subarray(0, 1000)));
      assert.equal(shortErr.code, 'UPLOAD_MISMATCH');
      assert.equal(shortErr.body.error.details.reason, 'size');

      const notVideo = await prepare({ ...declareBoth(), motion_video: { content_type: 'video/mp4', size_bytes: image.length } });
      const kindErr = await errorOf(await put(notVideo, 'motion_video', image));
      assert.equal(kindErr.code, 'UPLOAD_MISMATCH');
      assert.equal(kindErr.body.error.details.reason, 'type');
      assert.equal(await store.stat(`drafts/${notVideo.draft_id}/motion_video`), null);
      const rows = await svc.wired.deps.db
        .selectFrom('uploads')
        .select('status')
        .where('draft_id', 'in', [plan.draft_id, notVideo.draft_id])
        .execute();
      assert.ok(rows.every((r) => r.status === 'pending'));
    });

    it('an expired upload URL is 409 UPLOAD_EXPIRED; a tampered one is 403', async () => {
      const plan = await prepare(declareBoth());
      const key = `drafts/${plan.draft_id}/image`;
      const past = Math.floor(Date.now() / 1000) - 5;
      const expiredUrl = `${svc.baseUrl}/files/${key}?expires=${past}&sig=${svc.wired.deps.signer.sign('PUT', key, past)}`;
      const expired = await errorOf(await fetch(expiredUrl, { method: 'PUT', body: image, headers: { 'content-type': 'image/jpeg' } }));
      assert.equal(expired.status, 409);
      assert.equal(expired.code, 'UPLOAD_EXPIRED');
      const good = plan.uploads.find((u) => u.field === 'image')!.url;
      const tampered = await errorOf(await fetch(good.replace(/sig=[^&]+/, 'sig=AAAA'), { method: 'PUT', body: image }));
      assert.equal(tampered.status, 403);
      // A GET signature does not authorise a PUT.
      const getUrl = await svc.wired.deps.storage.signedGetUrl(key, 60);
      assert.equal((await fetch(getUrl, { method: 'PUT', body: image })).status, 403);
      assert.equal(await svc.wired.deps.storage.stat(key), null);
    });

    it('time comes from the clock port: a draft lives exactly its TTL from prepare (fixed clock)', async () => {
      const db = svc.wired.deps.db;
      // Now, to the whole second (prepare sweeps drafts long expired by the clock's time, so not a far-off date).
      const t0 = Math.floor(Date.now() / 1000) * 1000 + 123;
      let nowMs = t0;
      const fixed: Clock = { now: () => new Date(nowMs), nowIso: () => new Date(nowMs).toISOString() };
      const real = svc.wired.deps.clock;
      svc.wired.deps.clock = fixed;
      try {
        const ttlMs = svc.config.draftTtlSeconds * 1000;
        const ontime = await prepare(declareBoth());
        const late = await prepare(declareBoth());
        assert.equal(ontime.expires_at, new Date(t0 + ttlMs).toISOString(), 'prepare time + TTL, to the millisecond');
        const row = await db.selectFrom('drafts').select('created_at').where('id', '=', ontime.draft_id).executeTakeFirstOrThrow();
        assert.equal(row.created_at, new Date(t0).toISOString());
        for (const plan of [ontime, late]) {
          assert.equal((await put(plan, 'image', image)).status, 200);
          assert.equal((await put(plan, 'motion_video', video)).status, 200);
        }

        // One millisecond before the expiry the draft is good; the render is stamped with the clock's time.
        nowMs = t0 + ttlMs - 1;
        const res = await createFromDraft(ontime.draft_id, `clock-${ontime.draft_id}`);
        assert.equal(res.status, 202, await res.clone().text());
        const render = (await res.json()) as { id: string };
        const stamped = await db.selectFrom('videos').select('created_at').where('id', '=', render.id).executeTakeFirstOrThrow();
        assert.equal(stamped.created_at, new Date(t0 + ttlMs - 1).toISOString());

        // At the expiry instant it is expired: for a render and for a PUT alike.
        nowMs = t0 + ttlMs;
        const expired = await errorOf(await createFromDraft(late.draft_id, `clock-${late.draft_id}`));
        assert.deepEqual([expired.status, expired.code], [409, 'UPLOAD_EXPIRED']);
        assert.equal(expired.body.error.details.expired_at, late.expires_at);
        assert.equal((await errorOf(await put(late, 'image', image))).code, 'UPLOAD_EXPIRED');
      } finally {
        svc.wired.deps.clock = real;
      }
    });

    it('an expired draft, or an upload whose URL expired unused, is 409 UPLOAD_EXPIRED at render time', async () => {
      const db = svc.wired.deps.db;
      const past = new Date(Date.now() - 1000).toISOString();
      const late = await uploadedDraft();
      await db.updateTable('drafts').set({ expires_at: past }).where('id', '=', late.draft_id).execute();
      const err = await errorOf(await createFromDraft(late.draft_id, `exp-${late.draft_id}`));
      assert.equal(err.status, 409);
      assert.equal(err.code, 'UPLOAD_EXPIRED');
      assert.equal(err.body.error.remediation.action, 'create_new_draft');
      const putLate = await errorOf(await put(late, 'image', image));
      assert.equal(putLate.code, 'UPLOAD_EXPIRED');

      const unused = await prepare(declareBoth());
      await db.updateTable('uploads').set({ expires_at: past }).where('draft_id', '=', unused.draft_id).execute();
      const err2 = await errorOf(await createFromDraft(unused.draft_id, `exp-${unused.draft_id}`));
      assert.equal(err2.code, 'UPLOAD_EXPIRED');
      assert.deepEqual(err2.body.error.details.fields, ['image', 'motion_video']);
    });

    it("prepare sweeps the account's long-expired open drafts with their bytes and stale keys; consumed drafts stay", async () => {
      const db = svc.wired.deps.db;
      const old = new Date(Date.now() - 2 * 3600 * 1000).toISOString();
      const stale = await uploadedDraft();
      const used = await uploadedDraft();
      assert.equal((await createFromDraft(used.draft_id, `sw-${used.draft_id}`)).status, 202);
      await db.updateTable('drafts').set({ expires_at: old }).where('id', 'in', [stale.draft_id, used.draft_id]).execute();
      await db.updateTable('idempotency_keys').set({ expires_at: old }).where('key', '=', `sw-${used.draft_id}`).execute();
      await prepare({});
      assert.equal(await db.selectFrom('drafts').select('id').where('id', '=', stale.draft_id).executeTakeFirst(), undefined);
      assert.equal((await db.selectFrom('uploads').select('id').where('draft_id', '=', stale.draft_id).execute()).length, 0);
      assert.equal(await svc.wired.deps.storage.stat(`drafts/${stale.draft_id}/motion_video`), null);
      assert.ok(await db.selectFrom('drafts').select('id').where('id', '=', used.draft_id).executeTakeFirst());
      assert.ok(await svc.wired.deps.storage.stat(`drafts/${used.draft_id}/motion_video`));
      assert.equal(
        await db.selectFrom('idempotency_keys').select('key').where('key', '=', `sw-${used.draft_id}`).executeTakeFirst(),
        undefined,
      );
    });

    it("the workers' hourly sweep removes long-expired open drafts of every account, bytes included", async () => {
      const db = svc.wired.deps.db;
      const old = new Date(Date.now() - 2 * 3600 * 1000).toISOString();
      const stale = await uploadedDraft();
      const fresh = await uploadedDraft();
      await db.updateTable('drafts').set({ expires_at: old }).where('id', '=', stale.draft_id).execute();
      // No request of this account follows: only the sweep can remove it.
      assert.ok((await sweepAllExpiredDrafts(svc.wired.deps)) >= 1);
      assert.equal(await db.selectFrom('drafts').select('id').where('id', '=', stale.draft_id).executeTakeFirst(), undefined);
      assert.equal((await db.selectFrom('uploads').select('id').where('draft_id', '=', stale.draft_id).execute()).length, 0);
      assert.equal(await svc.wired.deps.storage.stat(`drafts/${stale.draft_id}/motion_video`), null);
      assert.ok(await db.selectFrom('drafts').select('id').where('id', '=', fresh.draft_id).executeTakeFirst());
      assert.ok(await svc.wired.deps.storage.stat(`drafts/${fresh.draft_id}/motion_video`));
    });

    it('a PUT after the draft was consumed is refused with DRAFT_ALREADY_CONSUMED', async () => {
      const plan = await uploadedDraft();
      assert.equal((await createFromDraft(plan.draft_id, `pc-${plan.draft_id}`)).status, 202);
      const err = await errorOf(await put(plan, 'image', image));
      assert.equal(err.status, 409);
      assert.equal(err.code, 'DRAFT_ALREADY_CONSUMED');
    });

    it('an upload URL is bound to its method, key and expiry', async () => {
      const plan = await prepare(declareBoth());
      const imageUrl = new URL(plan.uploads.find((u) => u.field === 'image')!.url);
      const videoKey = `drafts/${plan.draft_id}/motion_video`;
      // The image's signature on the video's key: refused, nothing written.
      const otherKey = new URL(imageUrl.href);
      otherKey.pathname = `/files/${videoKey}`;
      assert.equal((await fetch(otherKey, { method: 'PUT', body: video })).status, 403);
      // A later expiry with the same signature: refused.
      const later = new URL(imageUrl.href);
      later.searchParams.set('expires', String(Number(imageUrl.searchParams.get('expires')) + 3600));
      assert.equal((await fetch(later, { method: 'PUT', body: image })).status, 403);
      // A PUT signature does not authorise a GET of the same key, nor does a malformed key crash.
      assert.equal((await fetch(imageUrl, { method: 'GET' })).status, 403);
      const broken = new URL(imageUrl.href);
      broken.pathname = '/files/drafts/%E0%A4%A';
      const bad = await errorOf(await fetch(broken, { method: 'PUT', body: image }));
      assert.ok([400, 403].includes(bad.status), `malformed key: ${bad.status} ${bad.code}`);
      assert.equal(await svc.wired.deps.storage.stat(videoKey), null);
      assert.equal(await svc.wired.deps.storage.stat(`drafts/${plan.draft_id}/image`), null);
    });

    const storedSha = async (key: string) => {
      const chunks: Buffer[] = [];
      for await (const c of svc.wired.deps.storage.read(key)) chunks.push(c as Buffer);
      return sha(Buffer.concat(chunks));
    };

    /** A PUT whose body is written by the test: headers now, bytes later. */
    function slowPut(url: string, headers: Record<string, string>, length: number) {
      const req = httpRequest(url, { method: 'PUT', headers: { ...headers, 'content-length': String(length) } });
      const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
        req.once('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null }),
          );
        });
        req.once('error', reject);
      });
      response.catch(() => {});
      req.on('error', () => {});
      return { req, response };
    }

    it(
      'a PUT that began before the draft was consumed and ends after it is refused and changes no byte the render reads',
      { timeout: 15000 },
      async () => {
        const plan = await uploadedDraft();
        const key = `drafts/${plan.draft_id}/image`;
        const before = await storedSha(key);
        const u = plan.uploads.find((x) => x.field === 'image')!;
        const { req, response } = slowPut(u.url, u.headers, image.length);
        req.write(image.subarray(0, 1000));
        await new Promise((r) => setTimeout(r, 100)); // the PUT is past its checks and streaming
        const created = await createFromDraft(plan.draft_id, `late-put-${plan.draft_id}`);
        const createdText = await created.text();
        req.end(image.subarray(1000));
        assert.equal(created.status, 202, createdText);
        const late = await response;
        assert.equal(late.status, 409);
        assert.equal(late.body.error.code, 'DRAFT_ALREADY_CONSUMED');
        assert.equal(await storedSha(key), before);
        const row = await svc.wired.deps.db.selectFrom('uploads').select('status').where('storage_key', '=', key).executeTakeFirstOrThrow();
        assert.equal(row.status, 'uploaded');
      },
    );

    it(
      'repeated PUTs: an interrupted one leaves the earlier upload, concurrent ones all land whole, a mismatching one deletes it',
      { timeout: 15000 },
      async () => {
        const plan = await prepare(declareBoth({ imageSha: sha(image) }));
        const key = `drafts/${plan.draft_id}/image`;
        const u = plan.uploads.find((x) => x.field === 'image')!;
        assert.equal((await put(plan, 'image', image)).status, 200);
        const uploadRow = () =>
          svc.wired.deps.db.selectFrom('uploads').select(['status']).where('storage_key', '=', key).executeTakeFirstOrThrow();
        const tmp = join(svc.wired.deps.tmpDir, 'uploads');
        const tempPuts = () => (existsSync(tmp) ? readdirSync(tmp).filter((f) => f.startsWith('put-')) : []);

        const { req } = slowPut(u.url, u.headers, image.length);
        req.write(image.subarray(0, image.length >> 1));
        const t0 = Date.now();
        while (tempPuts().length === 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 10));
        req.destroy();
        const t1 = Date.now();
        while (tempPuts().length > 0 && Date.now() - t1 < 3000) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(tempPuts(), []);
        assert.equal(await storedSha(key), sha(image), 'the interrupted PUT did not touch the earlier upload');
        assert.equal((await uploadRow()).status, 'uploaded');

        const twins = await Promise.all(Array.from({ length: 4 }, () => put(plan, 'image', image)));
        assert.deepEqual(
          twins.map((r) => r.status),
          [200, 200, 200, 200],
        );
        assert.equal(await storedSha(key), sha(image));
        assert.deepEqual(tempPuts(), []);

        const wrong = await errorOf(await put(plan, 'image', Buffer.from(image).fill(0, 0, 64)));
        assert.equal(wrong.code, 'UPLOAD_MISMATCH');
        assert.equal(wrong.body.error.details.reason, 'sha256');
        assert.equal(await svc.wired.deps.storage.stat(key), null);
        assert.equal((await uploadRow()).status, 'pending');
      },
    );

    it('idempotency keys belong to an account: another account may use the same key string for its own render', async () => {
      const other = await svc.newAccount(100);
      const mine = await uploadedDraft();
      const key = `shared-key-${mine.draft_id}`;
      const a = await createFromDraft(mine.draft_id, key);
      assert.equal(a.status, 202);
      const res = await svc.request('/v1/renders/prepare', json(declareBoth(), {}, other.apiKey));
      assert.equal(res.status, 200);
      const theirs = (await res.json()) as Plan;
      assert.equal((await put(theirs, 'image', image)).status, 200);
      assert.equal((await put(theirs, 'motion_video', video)).status, 200);
      // Their key cannot reach my draft, and my key does not replay into their account.
      assert.equal((await errorOf(await createFromDraft(mine.draft_id, key, other.apiKey))).code, 'DRAFT_NOT_FOUND');
      const b = await createFromDraft(theirs.draft_id, key, other.apiKey);
      assert.equal(b.status, 202, await b.clone().text());
      const [ra, rb] = (await Promise.all([a.json(), b.json()])) as any[];
      assert.notEqual(ra.id, rb.id);
      const rows = await svc.wired.deps.db.selectFrom('idempotency_keys').select('account_id').where('key', '=', key).execute();
      assert.deepEqual(rows.map((r) => r.account_id).sort(), [svc.accountId, other.accountId].sort());
    });

    it('the upload object changed behind the service (presigned storage) is UPLOAD_MISMATCH at render time', async () => {
      const plan = await uploadedDraft();
      const { Readable } = await import('node:stream');
      await svc.wired.deps.storage.putStream(`drafts/${plan.draft_id}/image`, Readable.from([image.subarray(0, 100)]));
      const err = await errorOf(await createFromDraft(plan.draft_id, `chg-${plan.draft_id}`));
      assert.equal(err.status, 422);
      assert.equal(err.code, 'UPLOAD_MISMATCH');
      assert.equal(err.body.error.details.field, 'image');
    });
  });
}
