import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { dbTargets, startService, type TestService } from '../helpers/harness.js';
import { sweepStaleUploads } from '../../src/infra/tmp-sweep.js';

/**
 * Request bodies that go wrong (issue 14): a multipart body with no well-formed part or without its
 * closing delimiter is a 400 (never a default render), a compressed body a 415, and every way a body
 * can stop (truncated, stalled, trickled, dropped) ends in an answer or a closed connection within the
 * configured bounds, with nothing left in tmp/ and nothing charged.
 */
const IDLE_MS = 1500;
const REQUEST_MS = 4000;

interface RawResult {
  status: number | null;
  code: string | null;
  ms: number;
  closed: boolean;
}

/** Sends a head and body pieces on a raw socket; resolves when the server answers and closes, or closes. */
function raw(port: number, head: string, pieces: Array<{ data: string; afterMs?: number }>, giveUpMs = 20_000): Promise<RawResult> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const s = connect(port, '127.0.0.1');
    let out = '';
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      s.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(out);
      const code = /"code":"([A-Z_]+)"/.exec(out);
      resolve({ status: status ? Number(status[1]) : null, code: code ? code[1] : null, ms: Date.now() - t0, closed });
    };
    s.on('data', (d) => (out += d));
    s.on('error', () => finish(true));
    s.on('close', () => finish(true));
    s.write(`${head}\r\n\r\n`);
    let at = 0;
    for (const p of pieces) {
      at += p.afterMs ?? 0;
      timers.push(setTimeout(() => !s.destroyed && s.write(p.data), at));
    }
    timers.push(setTimeout(() => finish(false), giveUpMs));
  });
}

for (const t of await dbTargets()) {
  describe(`request bodies that go wrong (${t.kind})`, { skip: t.skip }, () => {
    let svc: TestService;
    let port: number;
    before(async () => {
      svc = await startService({
        db: t.kind,
        credits: 100,
        env: { MARIONETTE_IDLE_TIMEOUT_MS: String(IDLE_MS), MARIONETTE_REQUEST_TIMEOUT_MS: String(REQUEST_MS) },
      });
      port = Number(new URL(svc.baseUrl).port);
    });
    after(async () => svc?.close());

    const head = (path: string, length: number, extra: string[] = []) =>
      [
        `POST ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${svc.apiKey}`,
        'Content-Type: multipart/form-data; boundary=XYZ',
        `Content-Length: ${length}`,
        ...extra,
      ].join('\r\n');
    const fileField: Record<string, string> = {
      '/v1/renders': 'motion_video',
      '/v1/motions': 'video',
      '/v1/characters': 'image',
      '/v1/videos': 'driving_video',
    };
    const openPart = (path: string) =>
      `--XYZ\r\nContent-Disposition: form-data; name="${fileField[path]}"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${'x'.repeat(2000)}`;
    const nothingLeft = async () => {
      // The request's own cleanup runs as its connection closes; give it a moment.
      for (let i = 0; i < 50; i++) {
        const left = await readdir(join(svc.wired.deps.tmpDir, 'uploads')).catch(() => [] as string[]);
        if (left.length === 0) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(await readdir(join(svc.wired.deps.tmpDir, 'uploads')), [], 'nothing left in tmp/uploads');
    };
    const created = async () =>
      Number(
        (
          await svc.wired.deps.db
            .selectFrom('videos')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', svc.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const balance = async () => ((await (await svc.request('/v1/credits')).json()) as { balance: number }).balance;

    for (const path of Object.keys(fileField)) {
      it(`${path}: a body without the boundary it names is 400, not a default render; nothing charged`, async () => {
        const before = await balance();
        const body = 'this body never mentions its boundary\r\n';
        const r = await raw(port, head(path, Buffer.byteLength(body)), [{ data: body }]);
        assert.deepEqual([r.status, r.code], [400, 'INVALID_REQUEST']);
        assert.equal(await created(), 0);
        assert.equal(await balance(), before);
        await nothingLeft();
      });

      it(`${path}: a body that stops without its closing delimiter (Content-Length honest) is answered 400 and leaves nothing`, async () => {
        const body = openPart(path);
        const r = await raw(port, head(path, Buffer.byteLength(body)), [{ data: body }]);
        assert.deepEqual([r.status, r.code], [400, 'INVALID_REQUEST']);
        assert.ok(r.ms < 10_000, `answered after ${r.ms} ms`);
        await nothingLeft();
      });

      it(`${path}: a compressed body is 415 in the envelope, read no further`, async () => {
        const body = 'gzip bytes would be here';
        const r = await raw(port, head(path, 100_000, ['Content-Encoding: gzip']), [{ data: body }]);
        assert.deepEqual([r.status, r.code], [415, 'UNSUPPORTED_CONTENT_ENCODING']);
        await nothingLeft();
      });
    }

    it('a body that stalls (fewer bytes than Content-Length, then silence) is closed after the idle timeout', async () => {
      const body = openPart('/v1/motions');
      const r = await raw(port, head('/v1/motions', 50_000), [{ data: body }]);
      assert.equal(r.closed, true);
      assert.ok(r.ms >= IDLE_MS - 100 && r.ms < IDLE_MS + 5000, `closed after ${r.ms} ms`);
      await nothingLeft();
    });

    it('a body trickled a byte at a time (never idle) is ended by the request timeout', async () => {
      const body = openPart('/v1/characters');
      const pieces = [{ data: body.slice(0, 200) }, ...Array.from({ length: 60 }, (_, i) => ({ data: body[200 + i], afterMs: 250 }))];
      const r = await raw(port, head('/v1/characters', 50_000), pieces);
      assert.equal(r.closed, true);
      assert.ok(r.status === null || r.status === 408, `status ${r.status}`);
      assert.ok(r.ms >= REQUEST_MS - 100 && r.ms < REQUEST_MS + 5000, `ended after ${r.ms} ms`);
      await nothingLeft();
    });

    it('a client that drops the connection mid-body leaves nothing behind', async () => {
      const body = openPart('/v1/renders');
      const r = await raw(port, head('/v1/renders', 50_000), [{ data: body }], 300);
      assert.equal(r.closed, false, 'we hung up first');
      await nothingLeft();
      assert.equal(await created(), 0);
    });

    it('a request whose body has arrived is answered however long the service works on it (longer than the idle timeout)', async () => {
      // The service, not the client, is slow here: storing the upload takes longer than the idle cut.
      const storage = svc.wired.deps.storage;
      const putFile = storage.putFile;
      storage.putFile = async (key, file) => {
        await new Promise((r) => setTimeout(r, IDLE_MS + 1500));
        return putFile.call(storage, key, file);
      };
      try {
        const png = await sharp({ create: { width: 64, height: 96, channels: 3, background: { r: 200, g: 80, b: 40 } } })
          .png()
          .toBuffer();
        const form = new FormData();
        form.append('image', new Blob([png], { type: 'image/png' }), 'figure.png');
        const t0 = Date.now();
        const res = await svc.request('/v1/characters', { method: 'POST', body: form });
        assert.equal(res.status, 200, await res.clone().text());
        assert.ok(Date.now() - t0 > IDLE_MS, 'the answer came after the idle timeout had passed');
      } finally {
        storage.putFile = putFile;
      }
    });

    it('only no body at all, or an empty JSON object, is the default render', async () => {
      const none = await svc.request('/v1/renders', { method: 'POST' });
      assert.equal(none.status, 200, await none.clone().text());
      const empty = await svc.request('/v1/renders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(empty.status, 200, await empty.clone().text());
      const emptyForm = await svc.request('/v1/renders', {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
        body: '--XYZ--\r\n',
      });
      assert.equal(emptyForm.status, 400);
      assert.equal(await created(), 2);
    });

    it('the temp sweep removes upload dirs older than any request, and only those', async () => {
      const root = join(svc.wired.deps.tmpDir, 'uploads');
      await mkdir(join(root, 'crashed'), { recursive: true });
      await writeFile(join(root, 'crashed', 'video.bin'), 'left by a killed process');
      const old = new Date(Date.now() - 2 * 3600_000);
      await utimes(join(root, 'crashed'), old, old);
      await mkdir(join(root, 'in-flight'), { recursive: true });
      assert.deepEqual(await sweepStaleUploads(svc.wired.deps.tmpDir, 3600_000), ['crashed']);
      assert.deepEqual(await readdir(root), ['in-flight']);
      await sweepStaleUploads(svc.wired.deps.tmpDir, 0, Date.now() + 1000);
    });
  });
}
