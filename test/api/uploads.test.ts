import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dbTargets, errorOf, hasSharedMedia, mediaFile, NO_MEDIA_REASON, startService, type TestService } from '../helpers/harness.js';

/**
 * Uploads stream to disk with per-field limits: an over-limit upload is answered 400 while the
 * client is still sending and leaves no temp file; a client that disconnects mid-upload (multipart
 * form or draft PUT) leaves nothing behind, neither in the temp dir nor in storage.
 */

const IMAGE_LIMIT = 64 * 1024;
const BOUNDARY = 'marionette-test-boundary';

/** Resolves when the request can take more, or when it is gone; either way both listeners are removed. */
function drainOrClose(req: ReturnType<typeof httpRequest>): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

function tempEntries(svc: TestService): string[] {
  const dir = join(svc.wired.deps.tmpDir, 'uploads');
  return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]) : [];
}

async function until(cond: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

/** Opens a raw upload: headers sent, the body still to be written by the test. */
function openUpload(url: string, method: string, headers: Record<string, string>) {
  const req = httpRequest(url, { method, headers });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  response.catch(() => {});
  return { req, response };
}

const fileHead = (field: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;

for (const target of await dbTargets()) {
  describe(`uploads (${target.kind})`, { skip: target.skip || (!hasSharedMedia() && NO_MEDIA_REASON) }, () => {
    let svc: TestService;
    before(async () => {
      svc = await startService({ db: target.kind, env: { MARIONETTE_MAX_IMAGE_BYTES: String(IMAGE_LIMIT) } });
    });
    after(() => svc?.close());

    const auth = () => ({ authorization: `Bearer ${svc.apiKey}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` });

    it('a multipart file over its limit is cut off with 422 UNSUPPORTED_MEDIA while the client is still sending, leaving no temp file', async () => {
      const total = 40 * 1024 * 1024;
      const { req, response } = openUpload(`${svc.baseUrl}/v1/renders`, 'POST', { ...auth(), 'content-length': String(total) });
      req.on('error', () => {});
      req.write(fileHead('image'));
      let sent = 0;
      let answeredAt = -1;
      const chunk = Buffer.alloc(64 * 1024, 1);
      response.then(
        () => (answeredAt = sent),
        () => {},
      );
      while (sent < total - 1024 && answeredAt < 0 && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) await drainOrClose(req);
      }
      const res = await response;
      const body = JSON.parse(
        await new Promise<string>((r) => {
          let s = '';
          res.on('data', (d) => (s += d));
          res.on('end', () => r(s));
        }),
      );
      req.destroy();
      assert.equal(res.statusCode, 422);
      assert.equal(body.error.code, 'UNSUPPORTED_MEDIA');
      assert.deepEqual(body.error.details, { field: 'image', limit_bytes: IMAGE_LIMIT });
      assert.equal(res.headers.connection, 'close', 'the rest of the body is not read');
      assert.ok(answeredAt >= 0 && answeredAt < total / 2, `answered after ${answeredAt} of ${total} bytes`);
      assert.deepEqual(tempEntries(svc), []);
      assert.equal((await svc.wired.deps.db.selectFrom('videos').select('id').execute()).length, 0);
    });

    it('the same over-limit upload through fetch gets the 422 envelope', async () => {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(IMAGE_LIMIT + 1)]), 'a.png');
      form.set('motion_id', 'mot_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      const err = await errorOf(await svc.request('/v1/renders', { method: 'POST', body: form }));
      assert.deepEqual([err.status, err.code], [422, 'UNSUPPORTED_MEDIA']);
      assert.equal(err.body.error.details.limit_bytes, IMAGE_LIMIT);
      assert.equal(err.requestId, err.body.error.request_id);
      assert.deepEqual(tempEntries(svc), []);
    });

    it('a declared length no form could fit is refused before anything is read or created', async () => {
      const huge = 10 * 1024 * 1024 * 1024;
      const { req, response } = openUpload(`${svc.baseUrl}/v1/renders`, 'POST', { ...auth(), 'content-length': String(huge) });
      req.on('error', () => {});
      req.write(fileHead('motion_video'));
      const res = await response;
      const body = JSON.parse(
        await new Promise<string>((r) => {
          let s = '';
          res.on('data', (d) => (s += d));
          res.on('end', () => r(s));
        }),
      );
      req.destroy();
      assert.deepEqual([res.statusCode, body.error.code], [422, 'UNSUPPORTED_MEDIA']);
      assert.equal(body.error.details.content_length, huge);
      assert.ok(body.error.details.limit_bytes < huge);
      assert.deepEqual(tempEntries(svc), []);
    });

    it('form shape: a file field sent as text and vice versa, unknown or repeated fields, path-like names: 400, nothing on disk', async () => {
      const png = new Uint8Array(2000);
      const cases: [string, (f: FormData) => void, string][] = [
        ['image as text', (f) => f.set('image', 'not a file'), 'image'],
        [
          'background_mode as file',
          (f) => {
            f.set('background_mode', new Blob([png]), 'b.txt');
            f.set('motion_id', 'mot_01ARZ3NDEKTSV4RRFFQ69G5FAV');
          },
          'background_mode',
        ],
        ['traversal field name', (f) => f.set('../../image', new Blob([png]), 'x.png'), '../../image'],
        [
          'unknown text field',
          (f) => {
            f.set('image', new Blob([png]), 'a.png');
            f.set('evil', '1');
          },
          'evil',
        ],
        [
          'repeated file',
          (f) => {
            f.append('image', new Blob([png]), 'a.png');
            f.append('image', new Blob([png]), 'b.png');
          },
          'image',
        ],
      ];
      for (const [what, fill, field] of cases) {
        const form = new FormData();
        fill(form);
        const err = await errorOf(await svc.request('/v1/renders', { method: 'POST', body: form }));
        assert.deepEqual([err.status, err.code], [400, 'INVALID_REQUEST'], what);
        assert.equal(err.body.error.details.field, field, what);
        assert.deepEqual(tempEntries(svc), [], what);
      }
      // Prototype property names are refused by the form parser itself (and looked up as own properties only in ours).
      for (const name of ['__proto__', 'constructor', 'toString']) {
        const proto = new FormData();
        proto.set(name, new Blob([png]), 'x.png');
        assert.equal((await errorOf(await svc.request('/v1/renders', { method: 'POST', body: proto }))).status, 400, name);
        assert.deepEqual(tempEntries(svc), []);
      }
      // The client's filename never names a path: a traversal in it cannot place a file anywhere.
      const form = new FormData();
      form.set('image', new Blob([png]), '../../../../escaped.png');
      form.set('evil', '1');
      assert.equal((await svc.request('/v1/renders', { method: 'POST', body: form })).status, 400);
      const root = svc.wired.deps.tmpDir;
      for (const dir of [root, join(root, '..'), join(root, 'uploads')]) assert.equal(existsSync(join(dir, 'escaped.png')), false, dir);
      assert.equal((await svc.wired.deps.db.selectFrom('videos').select('id').execute()).length, 0);
    });

    it('a large file under a field the form does not take is refused at once with Connection: close', async () => {
      const total = 40 * 1024 * 1024;
      const { req, response } = openUpload(`${svc.baseUrl}/v1/renders`, 'POST', { ...auth(), 'content-length': String(total) });
      req.on('error', () => {});
      req.setMaxListeners(0);
      req.write(fileHead('attachment'));
      let sent = 0;
      let stoppedAt = -1; // when the server answered or dropped the connection
      const chunk = Buffer.alloc(64 * 1024, 1);
      response.then(
        () => (stoppedAt = sent),
        () => (stoppedAt = sent),
      );
      while (sent < total - 1024 && stoppedAt < 0 && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) await drainOrClose(req);
      }
      if (stoppedAt < 0) stoppedAt = sent;
      const res = await response.catch(() => null);
      res?.resume();
      req.destroy();
      // Without the early close the server reads (and discards) all 40 MB before answering.
      assert.ok(stoppedAt < total / 2, `the server stopped the upload after ${stoppedAt} of ${total} bytes`);
      if (res) {
        assert.equal(res.statusCode, 400);
        assert.equal(res.headers.connection, 'close');
      }
      assert.deepEqual(tempEntries(svc), []);
    });

    it('a client that disconnects mid multipart upload leaves nothing behind', async () => {
      const { req } = openUpload(`${svc.baseUrl}/v1/renders`, 'POST', { ...auth(), 'content-length': String(60_000) });
      req.on('error', () => {});
      req.write(fileHead('image'));
      req.write(Buffer.alloc(30_000, 2));
      // The half body reached the disk (so the test can see it vanish)...
      assert.ok(await until(() => tempEntries(svc).some((e) => e.endsWith('image.bin'))), 'the upload started streaming to disk');
      req.destroy();
      // ...and is gone once the server noticed the disconnect.
      assert.ok(await until(() => tempEntries(svc).length === 0), `left behind: ${tempEntries(svc).join(', ')}`);
      const ok = await svc.request('/v1/credits');
      assert.equal(ok.status, 200, 'the server carries on');
    });

    it('a draft PUT streams past the JSON body limit, and a PUT cut off mid-way leaves no temp file and no object', async () => {
      const video = await readFile(mediaFile('videos/animate-x--dance_1.mp4')); // 2.1 MB > 1 MB JSON body limit
      const prep = await svc.request('/v1/renders/prepare', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          image: { content_type: 'image/jpeg', size_bytes: 1000 },
          motion_video: { content_type: 'video/mp4', size_bytes: video.length },
        }),
      });
      assert.equal(prep.status, 200);
      const plan = (await prep.json()) as { draft_id: string; uploads: { url: string; headers: Record<string, string> }[] };
      const key = `drafts/${plan.draft_id}/motion_video`;
      const { url, headers } = plan.uploads.find((u) => (u as { field?: string }).field === 'motion_video')!;

      const { req } = openUpload(url, 'PUT', { ...headers, 'content-length': String(video.length) });
      req.on('error', () => {});
      req.write(video.subarray(0, 1024 * 1024));
      assert.ok(await until(() => tempEntries(svc).some((e) => e.startsWith('put-'))), 'the PUT started streaming to disk');
      req.destroy();
      assert.ok(await until(() => tempEntries(svc).length === 0), `left behind: ${tempEntries(svc).join(', ')}`);
      assert.equal(await svc.wired.deps.storage.stat(key), null);
      const row = await svc.wired.deps.db.selectFrom('uploads').select('status').where('storage_key', '=', key).executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending');

      // More bytes than declared, sent without a length (chunked): cut off at the declared size.
      const { req: over, response } = openUpload(url, 'PUT', { ...headers, 'transfer-encoding': 'chunked' });
      over.on('error', () => {});
      over.write(video);
      over.end(Buffer.alloc(1024));
      const res = await response;
      res.resume();
      assert.equal(res.statusCode, 422);
      assert.deepEqual(tempEntries(svc), []);
      assert.equal(await svc.wired.deps.storage.stat(key), null);

      const done = await fetch(url, { method: 'PUT', body: video, headers });
      assert.equal(done.status, 200, await done.clone().text());
      const receipt = (await done.json()) as { size_bytes: number; status: string };
      assert.equal(receipt.size_bytes, video.length);
      assert.equal((await svc.wired.deps.storage.stat(key))?.size, video.length);
      assert.deepEqual(tempEntries(svc), []);
    });
  });
}
