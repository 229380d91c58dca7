import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import {
  dbTargets,
  errorOf,
  hasSharedMedia,
  mediaFile,
  NO_MEDIA_REASON,
  startProcess,
  startService,
  type ChildService,
  type TestService,
} from '../helpers/harness.js';

/**
 * Idempotency-Key on every create (docs/retrying.md), through real HTTP on both databases: replay of
 * each create, a changed field and one changed file byte (409 naming it), 12 concurrent requests,
 * a connection dropped after the body was sent, a refused request then corrected with the same key,
 * two accounts, and two API processes sharing the key store.
 */
const IMAGE = mediaFile('images/animateddrawings--char1-mask.png');
const VIDEO = mediaFile('videos/liveportrait--d18.mp4');

type Part = string | { bytes: Buffer; name: string; type: string };

function form(parts: Array<[string, Part]>): FormData {
  const fd = new FormData();
  for (const [k, v] of parts) {
    if (typeof v === 'string') fd.append(k, v);
    else fd.append(k, new Blob([v.bytes], { type: v.type }), v.name);
  }
  return fd;
}

let n = 0;
const newKey = () => `key-${process.pid}-${Date.now()}-${++n}`;

for (const t of await dbTargets()) {
  describe(`Idempotency-Key on every create (${t.kind})`, { skip: t.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    let image: Buffer;
    let video: Buffer;
    const db = () => svc.wired.deps.db;
    /** Reservations (renders, videos) and charges (characters, motions): what a create takes. */
    const reservations = async (accountId: string) =>
      (
        await db()
          .selectFrom('ledger')
          .select(['kind', 'resource_id'])
          .where('account_id', '=', accountId)
          .where('kind', 'in', ['reserve', 'charge'])
          .execute()
      ).length;
    const count = async (table: 'videos' | 'characters' | 'motions', accountId: string) =>
      Number(
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const renderForm = (img = image): Array<[string, Part]> => [
      ['image', { bytes: img, name: 'c.png', type: 'image/png' }],
      ['motion_video', { bytes: video, name: 'm.mp4', type: 'video/mp4' }],
      ['background_mode', 'original'],
    ];

    before(async () => {
      svc = await startService({ db: t.kind, credits: 100_000 });
      image = await readFile(IMAGE);
      video = await readFile(VIDEO);
    });
    after(async () => svc?.close());

    const templateId = async () =>
      ((await (await svc.request('/v1/motions/templates')).json()) as { items: Array<{ id: string }> }).items[0].id;

    /** Each create, as a function of (key, account key) returning a fresh Response. */
    const creates: Record<string, (key: string, apiKey?: string) => Promise<Response>> = {
      'multipart POST /v1/renders': (k, a) =>
        svc.request('/v1/renders', { method: 'POST', body: form(renderForm()), headers: { 'idempotency-key': k }, key: a }),
      'POST /v1/renders without a body (defaults)': (k, a) =>
        svc.request('/v1/renders', { method: 'POST', headers: { 'idempotency-key': k }, key: a }),
      'JSON POST /v1/videos': (k, a) =>
        svc.request('/v1/videos', {
          method: 'POST',
          headers: { 'idempotency-key': k, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'h3', prompt: 'a puppet waves', duration_s: 3 }),
          key: a,
        }),
      'multipart POST /v1/videos': (k, a) =>
        svc.request('/v1/videos', {
          method: 'POST',
          headers: { 'idempotency-key': k },
          body: form([
            ['mode', 'animate'],
            ['character_image', { bytes: image, name: 'c.png', type: 'image/png' }],
            ['driving_video', { bytes: video, name: 'm.mp4', type: 'video/mp4' }],
          ]),
          key: a,
        }),
      'POST /v1/characters': (k, a) =>
        svc.request('/v1/characters', {
          method: 'POST',
          headers: { 'idempotency-key': k },
          body: form([
            ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
            ['name', 'Hero'],
          ]),
          key: a,
        }),
      'POST /v1/motions': (k, a) =>
        svc.request('/v1/motions', {
          method: 'POST',
          headers: { 'idempotency-key': k },
          body: form([
            ['video', { bytes: video, name: 'm.mp4', type: 'video/mp4' }],
            ['name', 'Dance'],
          ]),
          key: a,
        }),
      'POST /v1/motions/import': async (k, a) =>
        svc.request('/v1/motions/import', {
          method: 'POST',
          headers: { 'idempotency-key': k, 'content-type': 'application/json' },
          body: JSON.stringify({ template_id: await templateId() }),
          key: a,
        }),
      'Legacy POST /api/render': (k, a) =>
        svc.request('/api/render', {
          method: 'POST',
          headers: { 'idempotency-key': k },
          body: form([
            ['ref_image', { bytes: image, name: 'c.png', type: 'image/png' }],
            ['driving_video', { bytes: video, name: 'm.mp4', type: 'video/mp4' }],
          ]),
          key: a,
        }),
      'Legacy POST /api/characters/preprocess': (k, a) =>
        svc.request('/api/characters/preprocess', {
          method: 'POST',
          headers: { 'idempotency-key': k },
          body: form([['image', { bytes: image, name: 'c.png', type: 'image/png' }]]),
          key: a,
        }),
    };

    for (const [name, send] of Object.entries(creates)) {
      it(`${name}: a retry with the key answers the original resource, read fresh, nothing charged twice`, async () => {
        const acct = await svc.newAccount(10_000);
        const key = newKey();
        const first = await send(key, acct.apiKey);
        assert.ok(first.status === 200, `${first.status} ${await first.clone().text()}`);
        const idOf = (b: any) => String(b.id ?? b.job_id ?? b.character_id);
        const a = (await first.json()) as { id: string; status: string };
        a.id = idOf(a);
        const before = await reservations(acct.accountId);
        if (!name.includes('motions') && !name.includes('Legacy'))
          assert.equal(before, 1, 'the first request took its reservation or charge (render-type Motions are free)');
        const again = await send(key, acct.apiKey);
        assert.equal(again.status, first.status);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        const b = (await again.json()) as { id: string };
        assert.equal(idOf(b), a.id, 'the same resource');
        assert.equal(await reservations(acct.accountId), before, 'no second reservation');
        // Without the key the same request makes a new resource (nothing changes for keyless clients).
        const keyless = await send(newKey(), acct.apiKey);
        assert.notEqual(idOf(await keyless.json()), a.id);
      });
    }

    it('the same key with a changed field, or one changed byte in a file: 409 naming what differs', async () => {
      const key = newKey();
      const ok = await svc.request('/v1/characters', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: form([
          ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
          ['name', 'Hero'],
        ]),
      });
      assert.equal(ok.status, 200);
      const renamed = await errorOf(
        await svc.request('/v1/characters', {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: form([
            ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
            ['name', 'Villain'],
          ]),
        }),
      );
      assert.equal(renamed.status, 409);
      assert.equal(renamed.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(renamed.body.error.details.reason, 'different_request');
      assert.deepEqual(renamed.body.error.details.fields, ['name']);
      const flipped = Buffer.from(image);
      flipped[flipped.length - 20] ^= 0x01;
      const byte = await errorOf(
        await svc.request('/v1/characters', {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: form([
            ['image', { bytes: flipped, name: 'c.png', type: 'image/png' }],
            ['name', 'Hero'],
          ]),
        }),
      );
      assert.equal(byte.status, 409);
      assert.deepEqual(byte.body.error.details.fields, ['image']);
      const otherRoute = await errorOf(await svc.request('/v1/renders', { method: 'POST', headers: { 'idempotency-key': key } }));
      assert.equal(otherRoute.status, 409);
      assert.equal(otherRoute.body.error.details.reason, 'other_endpoint');
      const renderKey = newKey();
      assert.equal(
        (await svc.request('/v1/renders', { method: 'POST', body: form(renderForm()), headers: { 'idempotency-key': renderKey } })).status,
        200,
      );
      const renderByte = await errorOf(
        await svc.request('/v1/renders', { method: 'POST', body: form(renderForm(flipped)), headers: { 'idempotency-key': renderKey } }),
      );
      assert.deepEqual([renderByte.status, renderByte.body.error.details.fields], [409, ['image']]);
    });

    it('12 concurrent requests with one key: one render, one reservation, the same answer', async () => {
      const acct = await svc.newAccount(10_000);
      const key = newKey();
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          svc.request('/v1/renders', { method: 'POST', body: form(renderForm()), headers: { 'idempotency-key': key }, key: acct.apiKey }),
        ),
      );
      const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as any })));
      assert.deepEqual(
        bodies.map((b) => b.status),
        Array(12).fill(200),
        JSON.stringify(bodies.filter((b) => b.status !== 200)),
      );
      assert.equal(new Set(bodies.map((b) => b.body.id)).size, 1);
      assert.equal(await count('videos', acct.accountId), 1);
      assert.equal(await reservations(acct.accountId), 1);
    });

    it('a request whose connection drops after the body was sent, retried with its key: one resource', async () => {
      const acct = await svc.newAccount(10_000);
      const key = newKey();
      const fd = form([
        ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
        ['name', 'Dropped'],
      ]);
      const req = new Request('http://x/', { method: 'POST', body: fd });
      const body = Buffer.from(await req.arrayBuffer());
      const url = new URL(`${svc.baseUrl}/v1/characters`);
      await new Promise<void>((resolve) => {
        const r = httpRequest({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${acct.apiKey}`,
            'idempotency-key': key,
            'content-type': req.headers.get('content-type')!,
            'content-length': body.length,
          },
        });
        r.on('error', () => resolve());
        r.on('close', () => resolve());
        r.end(body, () => setTimeout(() => r.destroy(), 5));
      });
      const retry = await svc.request('/v1/characters', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: form([
          ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
          ['name', 'Dropped'],
        ]),
        key: acct.apiKey,
      });
      assert.equal(retry.status, 200, await retry.clone().text());
      assert.equal(await count('characters', acct.accountId), 1, 'one Character whether or not the first answer arrived');
      assert.equal(await reservations(acct.accountId), 1);
    });

    it('a refused request does not use up its key: the corrected request with the same key is accepted', async () => {
      const key = newKey();
      const bad = await errorOf(
        await svc.request('/v1/characters', {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: form([
            ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
            ['type', 'nonsense'],
          ]),
        }),
      );
      assert.equal(bad.status, 400);
      const poor = await svc.newAccount(0);
      const broke = await errorOf(
        await svc.request('/v1/characters', {
          method: 'POST',
          headers: { 'idempotency-key': key },
          body: form([['image', { bytes: image, name: 'c.png', type: 'image/png' }]]),
          key: poor.apiKey,
        }),
      );
      assert.equal(broke.code, 'INSUFFICIENT_CREDITS');
      const good = await svc.request('/v1/characters', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: form([
          ['image', { bytes: image, name: 'c.png', type: 'image/png' }],
          ['type', 'render'],
        ]),
      });
      assert.equal(good.status, 200, await good.clone().text());
    });

    it('the same key on two accounts: two independent resources', async () => {
      const a = await svc.newAccount(100);
      const b = await svc.newAccount(100);
      const key = newKey();
      const ra = (await (await creates['POST /v1/characters'](key, a.apiKey)).json()) as { id: string };
      const rb = (await (await creates['POST /v1/characters'](key, b.apiKey)).json()) as { id: string };
      assert.ok(ra.id && rb.id && ra.id !== rb.id);
      assert.deepEqual([await count('characters', a.accountId), await count('characters', b.accountId)], [1, 1]);
    });

    it('malformed keys are refused before anything is created', async () => {
      const acct = await svc.newAccount(100);
      for (const key of ['x'.repeat(256), 'has space']) {
        const e = await errorOf(
          await svc.request('/v1/renders', { method: 'POST', headers: { 'idempotency-key': key }, key: acct.apiKey }),
        );
        assert.deepEqual([e.status, e.body.error.details.header], [400, 'Idempotency-Key']);
      }
      assert.equal(await count('videos', acct.accountId), 0);
    });

    describe('two API processes sharing one database', () => {
      let other: ChildService | null = null;
      let otherUrl = '';
      before(async () => {
        const schema =
          t.kind === 'postgres'
            ? String(
                (await svc.wired.dbHandle.db.selectNoFrom((eb) => eb.fn<string>('current_schema', []).as('s')).executeTakeFirstOrThrow()).s,
              )
            : null;
        other = await startProcess('server', {
          env: {
            MARIONETTE_DATA_DIR: svc.config.dataDir,
            MARIONETTE_DATABASE_URL: svc.config.databaseUrl,
            ...(schema ? { MARIONETTE_DATABASE_SCHEMA: schema } : {}),
            MARIONETTE_WORKERS: 'false',
          },
        });
        otherUrl = other.baseUrl;
      });
      after(async () => {
        await other?.stop();
      });

      it('the same key sent to both processes at once makes one resource', async () => {
        const acct = await svc.newAccount(10_000);
        const key = newKey();
        const send = (base: string) =>
          fetch(`${base}/v1/renders`, {
            method: 'POST',
            body: form(renderForm()),
            headers: { 'idempotency-key': key, authorization: `Bearer ${acct.apiKey}` },
          });
        const answers = await Promise.all([send(svc.baseUrl), send(otherUrl), send(svc.baseUrl), send(otherUrl)]);
        const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as any })));
        assert.deepEqual(
          bodies.map((b) => b.status),
          [200, 200, 200, 200],
          JSON.stringify(bodies),
        );
        assert.equal(new Set(bodies.map((b) => b.body.id)).size, 1);
        assert.equal(await count('videos', acct.accountId), 1);
        assert.equal(await reservations(acct.accountId), 1);
        const later = await send(otherUrl);
        assert.equal(((await later.json()) as { id: string }).id, bodies[0].body.id);
      });
    });
  });
}
