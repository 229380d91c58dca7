import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob } from 'node:fs';
import { Readable } from 'node:stream';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';
import { transitionCharacter } from '../../src/domain/characters/characters.state.js';

/**
 * Characters through real HTTP on both databases (spec 4.3, 2.2): every form rule, prices and 402,
 * ownership 404s, list order and limit, delete, export, and the state transitions' billing.
 */
const SMALL_PNG = mediaFile('images/animateddrawings--char1-mask.png');

async function form(fields: Record<string, string>, image: string | null = SMALL_PNG): Promise<FormData> {
  const f = new FormData();
  if (image) f.append('image', await openAsBlob(image), 'character.png');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

async function balance(svc: TestService, key?: string): Promise<number> {
  const res = await svc.request('/v1/credits', key ? { key } : {});
  return ((await res.json()) as { balance: number }).balance;
}

async function ledgerOf(svc: TestService, resourceId: string) {
  return svc.wired.deps.db
    .selectFrom('ledger')
    .select(['kind', 'amount_milli'])
    .where('resource_id', '=', resourceId)
    .orderBy('id')
    .execute();
}

for (const t of await dbTargets()) {
  describe(`characters (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 1000 });
    });
    after(async () => svc?.close());

    const create = (fields: Record<string, string>, opts: { image?: string | null; key?: string; headers?: Record<string, string> } = {}) =>
      form(fields, opts.image === undefined ? SMALL_PNG : opts.image).then((body) =>
        svc.request('/v1/characters', { method: 'POST', body, key: opts.key, headers: opts.headers }),
      );

    it('creates a queued Character with the spec 2.2 shape, stores the source, charges and enqueues in one go', async () => {
      const acct = await svc.newAccount(10);
      const res = await create(
        { name: 'Hero' },
        { key: acct.apiKey, headers: { 'x-request-id': 'req-char-1', 'x-service-source': 'sdk-test' } },
      );
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-request-id'), 'req-char-1');
      const body = (await res.json()) as Record<string, unknown>;
      assert.match(String(body.id), /^char_[0-9A-HJKMNP-TV-Z]{26}$/);
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
      assert.equal(body.status, 'queued');
      assert.equal(body.name, 'Hero');
      assert.equal(body.type, 'render');
      assert.equal(body.progress, 0);
      assert.deepEqual(body.capabilities, []);
      assert.equal(body.error, null);
      assert.equal(body.vsplat, null);
      assert.equal(body.glb, null);
      assert.equal(body.completed_at, null);
      assert.ok(!Number.isNaN(Date.parse(String(body.created_at))));
      const id = String(body.id);
      const row = await svc.wired.deps.db.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.request_id, 'req-char-1');
      assert.equal(row.service_source, 'sdk-test');
      assert.equal(row.source_kind, 'upload');
      assert.equal(row.source_key, `characters/${id}/source`);
      assert.equal(row.joint_set, 'body');
      assert.equal(Number(row.charge_milli), 1000);
      const stored = await svc.wired.deps.storage.stat(`characters/${id}/source`);
      assert.equal(stored?.size, (await openAsBlob(SMALL_PNG)).size);
      const jobs = await svc.wired.deps.db.selectFrom('jobs').select(['type', 'status']).where('resource_id', '=', id).execute();
      assert.deepEqual(jobs, [{ type: 'character.process', status: 'queued' }]);
      assert.deepEqual(await ledgerOf(svc, id), [{ kind: 'charge', amount_milli: -1000 }]);
      assert.equal(await balance(svc, acct.apiKey), 9);
    });

    it('charges the spec price for each type and enhance combination', async () => {
      const cases: [Record<string, string>, number][] = [
        [{ type: 'render' }, 1],
        [{ type: 'render', enhance: 'true' }, 1],
        [{ type: 'vsplat' }, 25],
        [{ type: 'vsplat', enhance: 'true' }, 30],
        [{ type: 'all' }, 26],
        [{ type: 'all', enhance: '1' }, 31],
      ];
      const acct = await svc.newAccount(200);
      let expected = 200;
      for (const [fields, price] of cases) {
        const res = await create(fields, { key: acct.apiKey });
        assert.equal(res.status, 200, JSON.stringify(fields));
        const body = (await res.json()) as { id: string; type: string; vsplat: unknown };
        assert.equal(body.type, fields.type);
        assert.deepEqual(body.vsplat, fields.type === 'render' ? null : { status: 'queued' });
        assert.deepEqual(await ledgerOf(svc, body.id), [{ kind: 'charge', amount_milli: -price * 1000 }], JSON.stringify(fields));
        expected -= price;
        assert.equal(await balance(svc, acct.apiKey), expected);
      }
    });

    it('refuses with 402 when short, writing nothing and keeping no file', async () => {
      const acct = await svc.newAccount(25);
      const before = await svc.wired.deps.db.selectFrom('characters').select('id').where('account_id', '=', acct.accountId).execute();
      const res = await create({ type: 'all' }, { key: acct.apiKey });
      const err = await errorOf(res);
      assert.equal(err.status, 402);
      assert.equal(err.code, 'INSUFFICIENT_CREDITS');
      assert.equal(err.body.error.details.required, 26);
      assert.equal(err.body.error.details.balance, 25);
      assert.equal(err.body.error.request_id, err.requestId);
      const rows = await svc.wired.deps.db.selectFrom('characters').select('id').where('account_id', '=', acct.accountId).execute();
      assert.equal(rows.length, before.length);
      assert.equal(await balance(svc, acct.apiKey), 25);
      const { readdir } = await import('node:fs/promises');
      const charDir = await readdir(`${svc.config.storage.root}/characters`).catch(() => [] as string[]);
      const known = new Set((await svc.wired.deps.db.selectFrom('characters').select('id').execute()).map((r) => r.id));
      assert.deepEqual(
        charDir.filter((d) => !known.has(d)),
        [],
        'no orphan source in storage',
      );
      assert.deepEqual(await readdir(`${svc.config.dataDir}/tmp/uploads`).catch(() => []), []);
      // The same account can still afford a render Character: nothing was held back.
      assert.equal((await create({}, { key: acct.apiKey })).status, 200);
    });

    it('accepts every field with valid values and stores them', async () => {
      const res = await create({
        name: '',
        type: 'all',
        enhance: 'false',
        joint_set: 'full',
        model_precision: '0.25',
        filter_low_quality: '1',
        render_thumbnail: 'TRUE',
        task_id: 'task-all-fields',
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { id: string; name: string };
      assert.equal(body.name, '');
      const row = await svc.wired.deps.db.selectFrom('characters').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      assert.equal(row.joint_set, 'full');
      assert.equal(Number(row.model_precision), 0.25);
      assert.equal(row.filter_low_quality, 1);
      assert.equal(row.render_thumbnail, 1);
      assert.equal(row.enhance, 0);
      assert.equal(row.task_id, 'task-all-fields');
      assert.equal(row.vsplat_status, 'queued');
      assert.equal((await create({ model_precision: '1' })).status, 200, 'model_precision 1 is the inclusive maximum');
    });

    const invalid: [string, Record<string, string>, string | null][] = [
      ['type', { type: 'glb' }, 'type'],
      ['joint_set', { joint_set: 'arms' }, 'joint_set'],
      ['enhance', { enhance: 'yes' }, 'enhance'],
      ['filter_low_quality', { filter_low_quality: '2' }, 'filter_low_quality'],
      ['render_thumbnail', { render_thumbnail: 'on' }, 'render_thumbnail'],
      ['model_precision 0', { model_precision: '0' }, 'model_precision'],
      ['model_precision above 1', { model_precision: '1.5' }, 'model_precision'],
      ['model_precision text', { model_precision: 'high' }, 'model_precision'],
      ['model_precision negative', { model_precision: '-0.5' }, 'model_precision'],
      ['long task_id', { task_id: 'x'.repeat(129) }, 'task_id'],
      ['long name', { name: 'n'.repeat(257) }, 'name'],
      ['unknown field', { colour: 'red' }, 'colour'],
    ];
    for (const [label, fields, field] of invalid) {
      it(`refuses ${label} with 400 INVALID_REQUEST naming the field, charging nothing`, async () => {
        const acct = await svc.newAccount(100);
        const err = await errorOf(await create(fields, { key: acct.apiKey }));
        assert.equal(err.status, 400);
        assert.equal(err.code, 'INVALID_REQUEST');
        assert.equal(err.body.error.details.field, field);
        assert.ok(err.body.error.message.includes(field!), err.body.error.message);
        assert.equal(await balance(svc, acct.apiKey), 100);
        const rows = await svc.wired.deps.db.selectFrom('characters').select('id').where('account_id', '=', acct.accountId).execute();
        assert.equal(rows.length, 0);
      });
    }

    it('treats empty text fields and empty unnamed file parts as not sent, like an HTML form', async () => {
      const res = await create({ image_url: '', name: '', type: '', enhance: '', task_id: '', render_thumbnail: '', model_precision: '' });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { id: string; type: string };
      assert.equal(body.type, 'render');
      const row = await svc.wired.deps.db.selectFrom('characters').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      assert.deepEqual([row.task_id, row.render_thumbnail, row.model_precision, row.source_kind], [null, 0, null, 'upload']);
      // What a browser sends for a file input left empty (FormData cannot produce filename="").
      const b = 'formboundaryS1';
      const raw =
        `--${b}\r\nContent-Disposition: form-data; name="image"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="image_url"\r\n\r\nhttps://example.com/a.png\r\n--${b}--\r\n`;
      const viaUrl = await svc.request('/v1/characters', {
        method: 'POST',
        body: raw,
        headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      });
      assert.equal(viaUrl.status, 200);
      const emptyNamed = new FormData();
      emptyNamed.append('image', new Blob([]), 'empty.png');
      const err = await errorOf(await svc.request('/v1/characters', { method: 'POST', body: emptyNamed }));
      assert.equal(err.status, 422, 'a named empty file was sent, and is not an image');
      assert.equal(err.code, 'UNSUPPORTED_MEDIA');
    });

    it('requires exactly one of image and image_url', async () => {
      const none = await errorOf(await create({ name: 'x' }, { image: null }));
      assert.equal(none.status, 400);
      assert.equal(none.code, 'INVALID_REQUEST');
      assert.deepEqual(none.body.error.details.fields, ['image', 'image_url']);
      const both = await errorOf(await create({ image_url: 'https://example.com/a.png' }));
      assert.equal(both.status, 400);
      assert.deepEqual(both.body.error.details.fields, ['image', 'image_url']);
      const json = await errorOf(
        await svc.request('/v1/characters', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
      assert.equal(json.status, 400);
      assert.equal(json.code, 'INVALID_REQUEST');
    });

    it('accepts a public image_url without downloading it, and refuses unsafe URLs', async () => {
      const res = await create({ image_url: 'https://example.com/people/hero.png' }, { image: null });
      assert.equal(res.status, 200);
      const { id } = (await res.json()) as { id: string };
      const row = await svc.wired.deps.db.selectFrom('characters').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.source_kind, 'url');
      assert.equal(row.source_url, 'https://example.com/people/hero.png');
      assert.equal(row.source_key, null);
      for (const url of [
        'ftp://example.com/a.png',
        'not a url',
        'http://127.0.0.1/a.png',
        'http://169.254.169.254/latest/meta-data',
        'https://user:pw@example.com/a.png',
      ]) {
        const err = await errorOf(await create({ image_url: url }, { image: null }));
        assert.equal(err.status, 400, url);
        assert.equal(err.code, 'INVALID_REQUEST', url);
        assert.equal(err.body.error.details.field, 'image_url', url);
      }
    });

    it('task_id: the same request returns the same Character (charged once); another request with it is 409', async () => {
      const acct = await svc.newAccount(100);
      const first = await create({ type: 'vsplat', task_id: 'job-42' }, { key: acct.apiKey });
      assert.equal(first.status, 200);
      const firstId = ((await first.json()) as { id: string }).id;
      // Field order does not make a request different; the values and the image's bytes do.
      const again = await create({ task_id: 'job-42', type: 'vsplat' }, { key: acct.apiKey });
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as { id: string }).id, firstId, 'the replay answers the existing Character');
      assert.equal(await balance(svc, acct.apiKey), 75, 'charged once');
      for (const [what, fields, image] of [
        ['another type', { type: 'all', task_id: 'job-42' }, undefined],
        ['enhance', { type: 'vsplat', enhance: 'true', task_id: 'job-42' }, undefined],
        ['another picture', { type: 'vsplat', task_id: 'job-42' }, mediaFile('images/animateddrawings--char2-mask.png')],
      ] as const) {
        const err = await errorOf(await create({ ...fields }, { key: acct.apiKey, image }));
        assert.equal(err.status, 409, what);
        assert.equal(err.code, 'IDEMPOTENCY_KEY_REUSED', what);
        assert.equal(err.body.error.details.field, 'task_id', what);
      }
      assert.equal(await balance(svc, acct.apiKey), 75, 'conflicts cost nothing');
      const ledger = await ledgerOf(svc, firstId);
      assert.deepEqual(ledger, [{ kind: 'charge', amount_milli: -25000 }], 'one charge of 25 on the ledger');
      const other = await svc.newAccount(100);
      const theirs = await create({ type: 'vsplat', task_id: 'job-42' }, { key: other.apiKey });
      assert.equal(theirs.status, 200, 'task_ids are per account');
      assert.notEqual(((await theirs.json()) as { id: string }).id, firstId);
      const racing = await Promise.all([1, 2, 3].map(() => create({ task_id: 'job-race' }, { key: acct.apiKey })));
      assert.deepEqual(
        racing.map((r) => r.status),
        [200, 200, 200],
      );
      const ids = new Set(await Promise.all(racing.map(async (r) => ((await r.json()) as { id: string }).id)));
      assert.equal(ids.size, 1, 'concurrent replays: one Character');
      assert.equal(await balance(svc, acct.apiKey), 74, 'charged once');
      const racingOther = await Promise.all(
        ([{ task_id: 'job-race-2' }, { task_id: 'job-race-2', name: 'other' }] as Record<string, string>[]).map((f) =>
          create(f, { key: acct.apiKey }),
        ),
      );
      assert.deepEqual(racingOther.map((r) => r.status).sort(), [200, 409], 'concurrent different requests: one wins');
      await svc.request(`/v1/characters/${firstId}`, { method: 'DELETE', key: acct.apiKey });
      const afterDelete = await errorOf(await create({ type: 'vsplat', task_id: 'job-42' }, { key: acct.apiKey }));
      assert.equal(afterDelete.status, 409, 'a deleted Character keeps its task_id');
    });

    it('lists at most 100 active Characters, newest first, with progress null', async () => {
      const acct = await svc.newAccount(1000);
      const ids: string[] = [];
      for (let i = 0; i < 103; i++) {
        const res = await create({ name: `c${i}` }, { key: acct.apiKey });
        assert.equal(res.status, 200);
        ids.push(((await res.json()) as { id: string }).id);
      }
      const del = await svc.request(`/v1/characters/${ids[102]}`, { method: 'DELETE', key: acct.apiKey });
      assert.equal(del.status, 200);
      const res = await svc.request('/v1/characters', { key: acct.apiKey });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { items: { id: string; progress: unknown; name: string }[] };
      assert.deepEqual(Object.keys(body), ['items']);
      assert.equal(body.items.length, 100);
      assert.deepEqual(
        body.items.map((c) => c.id),
        ids.slice(0, 102).reverse().slice(0, 100),
      );
      assert.ok(body.items.every((c) => c.progress === null));
      const mine = (await (await svc.request('/v1/characters')).json()) as { items: { id: string }[] };
      assert.ok(
        mine.items.every((c) => !ids.includes(c.id)),
        'another account sees none of them',
      );
    });

    it('gets a Character; another account, a wrong family and a malformed ID all get 404 CHARACTER_NOT_FOUND', async () => {
      const { id } = (await (await create({ name: 'mine' })).json()) as { id: string };
      const got = await svc.request(`/v1/characters/${id}`);
      assert.equal(got.status, 200);
      assert.equal(((await got.json()) as { name: string }).name, 'mine');
      const other = await svc.newAccount();
      const probes = [
        [id, other.apiKey],
        [id.replace('char_', 'mot_'), svc.apiKey],
        ['char_123', svc.apiKey],
        ['render_01J0000000000000000000000', svc.apiKey],
        ['char_' + '0'.repeat(26), svc.apiKey],
      ] as const;
      for (const [probe, key] of probes) {
        for (const path of [`/v1/characters/${probe}`, `/v1/characters/${probe}/export`]) {
          const err = await errorOf(await svc.request(path, { key }));
          assert.equal(err.status, 404, path);
          assert.equal(err.code, 'CHARACTER_NOT_FOUND', path);
        }
        const del = await errorOf(await svc.request(`/v1/characters/${probe}`, { method: 'DELETE', key }));
        assert.equal(del.status, 404);
        assert.equal(del.code, 'CHARACTER_NOT_FOUND');
      }
      assert.equal((await svc.request(`/v1/characters/${id}`)).status, 200, 'the failed deletes changed nothing');
    });

    it('deletes softly: {id, status: deleted}, then 404 everywhere, and the charge stays', async () => {
      const { id } = (await (await create({})).json()) as { id: string };
      const res = await svc.request(`/v1/characters/${id}`, { method: 'DELETE' });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { id, status: 'deleted' });
      assert.equal((await errorOf(await svc.request(`/v1/characters/${id}`))).code, 'CHARACTER_NOT_FOUND');
      assert.equal((await errorOf(await svc.request(`/v1/characters/${id}`, { method: 'DELETE' }))).status, 404);
      const row = await svc.wired.deps.db.selectFrom('characters').select(['deleted_at']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.ok(row.deleted_at);
      assert.deepEqual(await ledgerOf(svc, id), [{ kind: 'charge', amount_milli: -1000 }]);
      const jobs = await svc.wired.deps.db.selectFrom('jobs').select('status').where('resource_id', '=', id).execute();
      assert.deepEqual(jobs, [{ status: 'cancelled' }], 'its queued job will not run');
      assert.equal(
        await transitionCharacter(svc.wired.deps.db, id, { to: 'processing' }),
        null,
        'a worker cannot move a deleted Character',
      );
    });

    it('documents the Character and Motion endpoints in the OpenAPI document', async () => {
      const doc = (await (await svc.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
      const form = doc.paths['/v1/characters'].post.requestBody.content['multipart/form-data'].schema;
      assert.deepEqual(Object.keys(form.properties).sort(), [
        'enhance',
        'filter_low_quality',
        'image',
        'image_url',
        'joint_set',
        'model_precision',
        'name',
        'render_thumbnail',
        'task_id',
        'type',
      ]);
      assert.equal(form.properties.image.format, 'binary');
      assert.ok(
        doc.paths['/v1/characters/{character_id}/export'].get.parameters.some((p: any) => p.name === 'download_type' && p.in === 'query'),
      );
      assert.ok(doc.paths['/v1/motions'].post.requestBody.content['multipart/form-data'].schema.properties.motion_video_url);
      assert.deepEqual(doc.paths['/v1/motions/import'].post.requestBody.content['application/json'].schema.required, ['template_id']);
      assert.deepEqual(doc.paths['/v1/motions'].get.parameters.map((p: any) => p.name).sort(), ['cursor', 'limit']);
      for (const path of [
        '/v1/characters/{character_id}',
        '/v1/motions/{motion_id}',
        '/v1/motions/templates',
        '/v1/motions/{motion_id}/export',
      ]) {
        assert.ok(doc.paths[path]?.get?.responses?.['200'], path);
      }
      assert.ok(doc.paths['/v1/characters/{character_id}'].delete.responses['200']);
    });

    it('export: download_type rules, EXTRACTION_UNAVAILABLE until the vsplat is ready, thumbnail when asked for', async () => {
      const db = svc.wired.deps.db;
      const storage = svc.wired.deps.storage;
      const plain = ((await (await create({})).json()) as { id: string }).id;
      assert.deepEqual(await (await svc.request(`/v1/characters/${plain}/export`)).json(), {
        id: plain,
        vsplat_url: null,
        thumbnail_url: null,
      });
      const bad = await errorOf(await svc.request(`/v1/characters/${plain}/export?download_type=glb`));
      assert.equal(bad.status, 400);
      assert.equal(bad.code, 'INVALID_REQUEST');
      const none = await errorOf(await svc.request(`/v1/characters/${plain}/export?download_type=vsplat`));
      assert.equal(none.status, 409);
      assert.equal(none.code, 'EXTRACTION_UNAVAILABLE');
      assert.equal(none.body.error.details.type, 'render');

      const id = ((await (await create({ type: 'all', render_thumbnail: 'true' })).json()) as { id: string }).id;
      const pending = await errorOf(await svc.request(`/v1/characters/${id}/export?download_type=vsplat`));
      assert.equal(pending.code, 'EXTRACTION_UNAVAILABLE');
      assert.equal(pending.body.error.details.vsplat_status, 'queued');
      // The 2D part finishes with a thumbnail: the thumbnail is exportable, the vsplat is not yet.
      await storage.putStream(`characters/${id}/assets/thumbnail.png`, Readable.from([Buffer.from('thumb-bytes')]));
      await storage.putStream(`characters/${id}/assets/character.vsplat`, Readable.from([Buffer.from('splat-bytes')]));
      const half = await transitionCharacter(db, id, { to: 'ready', assetsKey: `characters/${id}/assets` });
      assert.equal(half?.status, 'processing');
      const e1 = (await (await svc.request(`/v1/characters/${id}/export`)).json()) as { thumbnail_url: string; vsplat_url: null };
      assert.equal(e1.vsplat_url, null);
      const thumb = await fetch(e1.thumbnail_url);
      assert.equal(thumb.status, 200);
      assert.equal(await thumb.text(), 'thumb-bytes');
      assert.equal((await errorOf(await svc.request(`/v1/characters/${id}/export?download_type=vsplat`))).code, 'EXTRACTION_UNAVAILABLE');
      const done = await transitionCharacter(db, id, { to: 'vsplat', status: 'ready' });
      assert.equal(done?.status, 'ready');
      const e2 = (await (await svc.request(`/v1/characters/${id}/export?download_type=vsplat`)).json()) as {
        vsplat_url: string;
        thumbnail_url: string;
      };
      assert.equal(await (await fetch(e2.vsplat_url)).text(), 'splat-bytes');
      assert.ok(e2.thumbnail_url);
      const got = (await (await svc.request(`/v1/characters/${id}`)).json()) as Record<string, unknown>;
      assert.equal(got.status, 'ready');
      assert.deepEqual(got.vsplat, { status: 'ready' });
      assert.deepEqual(got.capabilities, ['video_render']);
    });
  });
}

for (const t of await dbTargets()) {
  describe(`character state transitions (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: t.kind, credits: 1000 });
    });
    after(async () => svc?.close());

    async function newCharacter(fields: Record<string, string>, key: string): Promise<string> {
      const res = await svc.request('/v1/characters', { method: 'POST', body: await form(fields), key });
      assert.equal(res.status, 200);
      return ((await res.json()) as { id: string }).id;
    }
    const read = async (id: string, key?: string) =>
      (await (await svc.request(`/v1/characters/${id}`, key ? { key } : {})).json()) as Record<string, any>;

    it('queued → processing → progress → ready: progress, capabilities and completed_at follow; terminal is final', async () => {
      const db = svc.wired.deps.db;
      const id = await newCharacter({}, svc.apiKey);
      assert.equal(
        (await transitionCharacter(db, id, { to: 'progress', progress: 40 }))?.status,
        'processing',
        'progress implies processing',
      );
      assert.equal((await read(id)).progress, 40);
      await transitionCharacter(db, id, { to: 'progress', progress: 20 });
      assert.equal((await read(id)).progress, 40, 'progress never goes backwards');
      await transitionCharacter(db, id, { to: 'progress', progress: 250 });
      assert.equal((await read(id)).progress, 99, '100 is kept for ready');
      const ready = await transitionCharacter(db, id, { to: 'ready', assetsKey: `characters/${id}/assets` });
      assert.equal(ready?.status, 'ready');
      const got = await read(id);
      assert.equal(got.status, 'ready');
      assert.equal(got.progress, 100);
      assert.deepEqual(got.capabilities, ['video_render']);
      assert.ok(Date.parse(got.completed_at) >= Date.parse(got.created_at));
      assert.equal(await transitionCharacter(db, id, { to: 'failed', reason: 'late' }), null);
      assert.equal(await transitionCharacter(db, id, { to: 'processing' }), null);
      assert.equal((await read(id)).status, 'ready');
      assert.equal(await transitionCharacter(db, 'char_01J00000000000000000000000', { to: 'processing' }), null, 'unknown ID');
    });

    it('a failure refunds the charge exactly once, even when reported twice or concurrently', async () => {
      const db = svc.wired.deps.db;
      const acct = await svc.newAccount(40);
      const id = await newCharacter({ type: 'all', enhance: 'true' }, acct.apiKey);
      assert.equal(await balance(svc, acct.apiKey), 9);
      const results = await Promise.all([
        transitionCharacter(db, id, { to: 'failed', reason: 'no figure found' }),
        transitionCharacter(db, id, { to: 'failed', reason: 'no figure found' }),
      ]);
      assert.equal(results.filter((r) => r !== null).length, 1);
      assert.equal(await transitionCharacter(db, id, { to: 'failed', reason: 'again' }), null);
      assert.deepEqual(await ledgerOf(svc, id), [
        { kind: 'charge', amount_milli: -31000 },
        { kind: 'refund', amount_milli: 31000 },
      ]);
      assert.equal(await balance(svc, acct.apiKey), 40);
      const got = await read(id, acct.apiKey);
      assert.equal(got.status, 'failed');
      assert.equal(got.error, null, 'the asset error is always null');
      assert.deepEqual(got.capabilities, []);
      assert.deepEqual(got.vsplat, { status: 'cancelled' }, 'the 2D part failed, the vsplat was abandoned');
      assert.ok(got.completed_at);
    });

    it('a failed vsplat fails the Character, shows in the sub-object and refunds the 3D part; cancellation refunds all', async () => {
      const db = svc.wired.deps.db;
      const acct = await svc.newAccount(60);
      const id = await newCharacter({ type: 'all' }, acct.apiKey);
      await transitionCharacter(db, id, { to: 'ready', assetsKey: `characters/${id}/assets` });
      const waiting = await read(id, acct.apiKey);
      assert.equal(waiting.status, 'processing', 'type all waits for its vsplat');
      assert.deepEqual(waiting.capabilities, ['video_render'], 'usable for renders once its 2D part is ready');
      await transitionCharacter(db, id, { to: 'failed', reason: 'splat diverged', part: 'vsplat' });
      const got = await read(id, acct.apiKey);
      assert.equal(got.status, 'failed');
      assert.deepEqual(got.vsplat, { status: 'failed' });
      assert.deepEqual(got.capabilities, ['video_render'], 'the delivered 2D part stays usable');
      assert.deepEqual(await ledgerOf(svc, id), [
        { kind: 'charge', amount_milli: -26000 },
        { kind: 'refund', amount_milli: 25000 },
      ]);
      assert.equal(await balance(svc, acct.apiKey), 59, 'the 3D part (25) back, the 2D part (1) kept');
      const vsplatOnly = await newCharacter({ type: 'vsplat', enhance: 'true' }, acct.apiKey);
      await transitionCharacter(db, vsplatOnly, { to: 'ready', assetsKey: `characters/${vsplatOnly}/assets` });
      await transitionCharacter(db, vsplatOnly, { to: 'failed', reason: 'splat diverged', part: 'vsplat' });
      assert.deepEqual(await ledgerOf(svc, vsplatOnly), [
        { kind: 'charge', amount_milli: -30000 },
        { kind: 'refund', amount_milli: 30000 },
      ]);
      assert.deepEqual((await read(vsplatOnly, acct.apiKey)).capabilities, [], 'a failed vsplat-only Character is not usable');
      const failedExport = await errorOf(await svc.request(`/v1/characters/${id}/export?download_type=vsplat`, { key: acct.apiKey }));
      assert.equal(failedExport.status, 422);
      assert.equal(failedExport.code, 'EXTRACTION_FAILED');
      const cancelled = await newCharacter({}, acct.apiKey);
      assert.equal((await transitionCharacter(db, cancelled, { to: 'cancelled' }))?.status, 'cancelled');
      assert.deepEqual(
        (await ledgerOf(svc, cancelled)).map((r) => r.kind),
        ['charge', 'refund'],
      );
      assert.equal(await balance(svc, acct.apiKey), 59);
    });
  });
}
