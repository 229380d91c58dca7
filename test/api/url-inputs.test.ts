import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../src/contracts/errors.js';
import { checkUrlAtDoor, fetchToFile, type Resolver } from '../../src/infra/net/safe-fetch.js';
import { nonPublicReason, parseIp } from '../../src/infra/net/ip-ranges.js';
import { dbTargets, errorOf, serveHttp, startService, type HttpOrigin, type TestService } from '../helpers/harness.js';

/**
 * URL inputs (image_url, motion_video_url, video_url). ALL traffic in this file goes to loopback:
 * non-public addresses are literal IPs the guard refuses before connecting, and host names are
 * answered by an injected resolver, so nothing can leave the machine even if the guard broke.
 */

interface Hit {
  url: string;
  host: string | undefined;
}

/** A loopback origin (the harness's `serveHttp`) that records each request's URL and Host header. */
async function localServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<HttpOrigin & { hits: Hit[] }> {
  const hits: Hit[] = [];
  const origin = await serveHttp((req, res) => {
    hits.push({ url: req.url ?? '', host: req.headers.host });
    handler(req, res);
  }, host);
  return { ...origin, hits };
}

const PAYLOAD = Buffer.alloc(64 * 1024, 7);

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AppError, `expected an AppError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a refusal');
}

describe('address guard', () => {
  it('classifies non-public IPv4 and IPv6 addresses, including mapped and embedded forms', () => {
    const blocked = [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '2002:c0a8:0101::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:0:a00:1',
      '2001:0:4136:e378::1',
      '3fff::1',
      '64:ff9b:1::a00:1',
      '192.0.0.170',
      '192.0.2.255',
      '198.18.5.5',
      '198.51.100.1',
      '203.0.113.254',
      '240.1.2.3',
      '0.255.255.255',
    ];
    for (const a of blocked) assert.ok(nonPublicReason(parseIp(a)!), `${a} must be refused`);
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '192.169.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '2002:0808:0808::1',
    ]) {
      assert.equal(nonPublicReason(parseIp(a)!), null, `${a} is public`);
    }
  });

  it('checkUrlAtDoor refuses bad schemes, credentials and literal non-public hosts in every spelling', () => {
    const refused: [string, string][] = [
      ['ftp://example.com/a.png', 'scheme'],
      ['file:///etc/passwd', 'scheme'],
      ['gopher://example.com/', 'scheme'],
      ['http://user:pw@example.com/a.png', 'credentials'],
      ['not a url', 'malformed'],
      ['http://127.0.0.1/a.png', 'blocked_address'],
      ['http://2130706433/a.png', 'blocked_address'], // 127.0.0.1 as one number
      ['http://0x7f.1/a.png', 'blocked_address'],
      ['http://[::1]/a.png', 'blocked_address'],
      ['http://[::ffff:169.254.169.254]/latest/meta-data', 'blocked_address'],
      ['http://169.254.169.254/latest/meta-data', 'blocked_address'],
      ['http://10.0.0.1/a.png', 'blocked_address'],
      ['http://localhost/a.png', 'blocked_address'],
      ['http://app.localhost/a.png', 'blocked_address'],
      // Odd IPv4 spellings the WHATWG parser folds into 127.0.0.1 / private addresses.
      ['http://0177.0.0.1/a.png', 'blocked_address'],
      ['http://127.1/a.png', 'blocked_address'],
      ['http://0x7f000001/a.png', 'blocked_address'],
      ['http://017700000001/a.png', 'blocked_address'],
      ['http://0xa.0.0.1/a.png', 'blocked_address'],
      ['http://127.0.0.1./a.png', 'blocked_address'],
      // Every non-public IPv4 range.
      ...[
        '0.0.0.0',
        '0.1.2.3',
        '100.64.0.1',
        '100.127.255.254',
        '172.16.0.1',
        '192.0.0.8',
        '192.0.2.1',
        '192.168.255.1',
        '198.18.0.1',
        '198.19.255.1',
        '198.51.100.7',
        '203.0.113.9',
        '224.0.0.1',
        '239.255.255.250',
        '240.0.0.1',
        '255.255.255.255',
      ].map((a): [string, string] => [`http://${a}/x`, 'blocked_address']),
      // IPv6 literals, and IPv6 forms that carry a private IPv4 address.
      ...[
        '::',
        '::1',
        '0:0:0:0:0:0:0:1',
        '::ffff:7f00:1',
        '::ffff:0:a00:1',
        '64:ff9b::7f00:1',
        '64:ff9b::a9fe:a9fe',
        '2002:7f00:1::',
        '2002:c0a8:1::1',
        'fc00::1',
        'fd12:3456::1',
        'fe80::1',
        'febf::1',
        'ff02::1',
        'ff0e::1',
        '2001::1',
        '2001:db8::1',
        '::127.0.0.1',
      ].map((a): [string, string] => [`http://[${a}]/x`, 'blocked_address']),
      // Metadata services by name, in any case, with or without the final dot.
      ['http://metadata.google.internal/computeMetadata/v1/', 'blocked_address'],
      ['http://METADATA.Google.Internal./computeMetadata/v1/', 'blocked_address'],
      ['http://metadata/computeMetadata/v1/', 'blocked_address'],
      ['http://instance-data/latest/', 'blocked_address'],
      ['http://user@example.com/a.png', 'credentials'],
      ['http://:pw@example.com/a.png', 'credentials'],
      ['javascript:alert(1)', 'scheme'],
      ['data:image/png;base64,AAAA', 'scheme'],
    ];
    for (const [url, reason] of refused) {
      let err: unknown;
      try {
        checkUrlAtDoor(url, []);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AppError && err.code === 'INVALID_REQUEST', url);
      assert.equal(err.details.reason, reason, url);
    }
    assert.equal(checkUrlAtDoor('https://example.com/a b.png', []), 'https://example.com/a%20b.png');
    assert.equal(checkUrlAtDoor('http://127.0.0.1:9/x', ['127.0.0.0/8']), 'http://127.0.0.1:9/x');
    assert.equal(checkUrlAtDoor('http://localhost:9/x', ['localhost']), 'http://localhost:9/x');
    assert.equal(checkUrlAtDoor('http://[::1]:9/x', ['::1']), 'http://[::1]:9/x');
  });
});

describe('fetchToFile', () => {
  let dir: string;
  let srv: Awaited<ReturnType<typeof localServer>>;
  const base = () => `http://127.0.0.1:${srv.port}`;
  const allow = ['127.0.0.1'];
  const opts = (extra: Partial<Parameters<typeof fetchToFile>[2]> = {}) => ({
    maxBytes: 1024 * 1024,
    timeoutMs: 5000,
    allowList: allow,
    ...extra,
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'marionette-fetch-'));
    srv = await localServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const hops = Number(u.searchParams.get('n') ?? 0);
      switch (u.pathname) {
        case '/file':
          res.writeHead(200, { 'content-type': 'image/png; charset=binary', 'content-length': PAYLOAD.length });
          return res.end(PAYLOAD);
        case '/redirect':
          res.writeHead(302, { location: hops > 0 ? `/redirect?n=${hops - 1}` : '/file' });
          return res.end();
        case '/to':
          res.writeHead(301, { location: u.searchParams.get('u')! });
          return res.end();
        case '/big':
          res.writeHead(200, { 'content-length': 4 * 1024 * 1024 });
          return res.end(Buffer.alloc(4 * 1024 * 1024));
        case '/big-chunked':
          res.writeHead(200, { 'content-type': 'video/mp4' });
          for (let i = 0; i < 64; i++) res.write(Buffer.alloc(64 * 1024));
          return res.end();
        case '/trickle': {
          // Slowloris: a byte every 50 ms, forever; an idle timeout alone would never fire.
          res.writeHead(200, { 'content-type': 'video/mp4' });
          const t = setInterval(() => res.write(Buffer.alloc(1)), 50);
          res.on('close', () => clearInterval(t));
          return;
        }
        case '/no-location':
          res.writeHead(302);
          return res.end();
        case '/stall':
          res.writeHead(200, { 'content-type': 'video/mp4' });
          res.write(Buffer.alloc(10));
          return; // never ends
        default:
          res.writeHead(404);
          return res.end('nope');
      }
    });
  });
  after(async () => {
    srv.server.closeAllConnections();
    await new Promise((r) => srv.server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses loopback without the allow-list, before any connection', async () => {
    const before = srv.hits.length;
    for (const url of [`${base()}/file`, `http://localhost:${srv.port}/file`, `http://[::1]:${srv.port}/file`]) {
      const err = await refusal(fetchToFile(url, join(dir, 'x'), opts({ allowList: [] })));
      assert.equal(err.code, 'INVALID_REQUEST');
      assert.equal(err.details.reason, 'blocked_address');
    }
    assert.equal(srv.hits.length, before, 'the server was never contacted');
    assert.equal(existsSync(join(dir, 'x')), false);
  });

  it('downloads an allow-listed URL, following redirects, and reports size and type', async () => {
    const dest = join(dir, 'ok');
    const got = await fetchToFile(`${base()}/redirect?n=3`, dest, opts());
    assert.deepEqual(got, { size: PAYLOAD.length, contentType: 'image/png' });
    assert.deepEqual(await readFile(dest), PAYLOAD);
  });

  it('stops after 5 redirects', async () => {
    const err = await refusal(fetchToFile(`${base()}/redirect?n=6`, join(dir, 'loop'), opts()));
    assert.equal(err.details.reason, 'too_many_redirects');
  });

  it('checks every redirect again: a hop to a metadata or private address is refused without connecting', async () => {
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://[::ffff:192.168.0.1]/',
      'file:///etc/passwd',
    ]) {
      const err = await refusal(fetchToFile(`${base()}/to?u=${encodeURIComponent(target)}`, join(dir, 'hop'), opts()));
      assert.equal(err.code, 'INVALID_REQUEST', target);
      assert.ok(['blocked_address', 'scheme'].includes(err.details.reason as string), target);
    }
  });

  it('resolves a name once, refuses non-public answers, and pins the socket to the checked address', async () => {
    const calls: string[] = [];
    const resolverOf =
      (addrs: string[]): Resolver =>
      async (host) => {
        calls.push(host);
        return addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      };
    for (const answer of [['10.0.0.5'], ['169.254.169.254'], ['93.184.216.34', '127.0.0.1'], ['fd00::1']]) {
      const err = await refusal(
        fetchToFile(`http://media.example.test:${srv.port}/file`, join(dir, 'dns'), opts({ allowList: [], resolver: resolverOf(answer) })),
      );
      assert.equal(err.details.reason, 'blocked_address', answer.join(','));
    }
    // Allowed by address: the connection goes to the resolved address with the original Host.
    calls.length = 0;
    const hitsBefore = srv.hits.length;
    const got = await fetchToFile(
      `http://media.example.test:${srv.port}/file`,
      join(dir, 'pinned'),
      opts({ resolver: resolverOf(['127.0.0.1']) }),
    );
    assert.equal(got.size, PAYLOAD.length);
    assert.deepEqual(calls, ['media.example.test'], 'resolved exactly once');
    assert.equal(srv.hits.length, hitsBefore + 1);
    assert.equal(srv.hits.at(-1)!.host, `media.example.test:${srv.port}`);
    // Allowed by name: whatever it resolves to.
    const byName = await fetchToFile(
      `http://media.internal.test:${srv.port}/file`,
      join(dir, 'byname'),
      opts({ allowList: ['.internal.test'], resolver: resolverOf(['127.0.0.1']) }),
    );
    assert.equal(byName.size, PAYLOAD.length);
  });

  it('caps bytes: a declared or streamed body over the limit is refused and leaves no file', async () => {
    for (const path of ['/big', '/big-chunked']) {
      const dest = join(dir, `cap-${path.slice(1)}`);
      const err = await refusal(fetchToFile(`${base()}${path}`, dest, opts({ maxBytes: 1024 * 1024 })));
      assert.equal(err.code, 'UNSUPPORTED_MEDIA', path);
      assert.equal(err.details.limit_bytes, 1024 * 1024);
      assert.equal(existsSync(dest), false, path);
    }
  });

  it('caps time: a server that stalls is cut off at the timeout and leaves no file', async () => {
    const dest = join(dir, 'stall');
    const t0 = Date.now();
    const err = await refusal(fetchToFile(`${base()}/stall`, dest, opts({ timeoutMs: 400 })));
    const took = Date.now() - t0;
    assert.equal(err.details.reason, 'timeout');
    assert.ok(took >= 350 && took < 3000, `took ${took} ms`);
    assert.equal(existsSync(dest), false);
  });

  it('caps time as a total deadline: a server trickling bytes is cut off, not kept alive by each byte', { timeout: 5000 }, async () => {
    const dest = join(dir, 'trickle');
    const t0 = Date.now();
    const err = await refusal(fetchToFile(`${base()}/trickle`, dest, opts({ timeoutMs: 400 })));
    const took = Date.now() - t0;
    assert.equal(err.details.reason, 'timeout');
    assert.ok(took >= 350 && took < 2000, `took ${took} ms`);
    assert.equal(existsSync(dest), false);
  });

  it('a stalling resolver counts against the deadline', { timeout: 5000 }, async () => {
    const t0 = Date.now();
    const err = await refusal(
      fetchToFile(
        'http://slow-dns.test/x',
        join(dir, 'slowdns'),
        opts({ timeoutMs: 300, allowList: [], resolver: () => new Promise(() => {}) }),
      ),
    );
    assert.equal(err.details.reason, 'timeout');
    assert.ok(Date.now() - t0 < 2000);
  });

  it('metadata names are refused without asking the resolver, even when it would answer a public address', async () => {
    let asked = 0;
    const resolver: Resolver = async () => (asked++, [{ address: '127.0.0.1', family: 4 }]);
    for (const host of ['metadata.google.internal', 'metadata.goog', 'instance-data']) {
      const err = await refusal(fetchToFile(`http://${host}:${srv.port}/file`, join(dir, 'md'), opts({ resolver })));
      assert.equal(err.details.reason, 'blocked_address', host);
    }
    assert.equal(asked, 0);
  });

  it('a redirect from an allow-listed name to an address the list does not name is refused without connecting', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const hits = srv.hits.length;
    const err = await refusal(
      fetchToFile(
        `http://good.test:${srv.port}/to?u=${encodeURIComponent(`http://127.0.0.1:${srv.port}/file`)}`,
        join(dir, 'hop2'),
        opts({ allowList: ['good.test'], resolver }),
      ),
    );
    assert.equal(err.details.reason, 'blocked_address');
    assert.equal(srv.hits.length, hits + 1, 'only the allow-listed first hop was contacted');
    assert.equal(srv.hits.at(-1)!.url.startsWith('/to?'), true);
    // A redirect without a Location is an HTTP error, not a loop.
    const noLoc = await refusal(fetchToFile(`${base()}/no-location`, join(dir, 'noloc'), opts()));
    assert.equal(noLoc.details.reason, 'http_status');
    assert.equal(noLoc.details.http_status, 302);
  });

  it('a body longer than its Content-Length never adds bytes beyond the declared length or the cap', async () => {
    // A raw server: declares 1000 bytes, then sends 3 MB on the same connection.
    const liar = createNetServer((sock) => {
      sock.once('data', () => {
        sock.write('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n');
        sock.end(Buffer.alloc(3 * 1024 * 1024, 1));
      });
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => liar.listen(0, '127.0.0.1', r));
    const port = (liar.address() as { port: number }).port;
    try {
      const dest = join(dir, 'liar');
      try {
        const got = await fetchToFile(`http://127.0.0.1:${port}/x`, dest, opts({ maxBytes: 1024 * 1024 }));
        assert.equal(got.size, 1000);
        assert.equal((await readFile(dest)).length, 1000);
      } catch (e) {
        assert.ok(e instanceof AppError, String(e));
        assert.equal(existsSync(dest), false);
      }
    } finally {
      await new Promise((r) => liar.close(r));
    }
  });

  it('HTTP_PROXY and friends are not honoured: the request goes straight to the pinned address', async () => {
    const proxy = await localServer((_req, res) => res.writeHead(502).end());
    const saved = {
      HTTP_PROXY: process.env.HTTP_PROXY,
      http_proxy: process.env.http_proxy,
      HTTPS_PROXY: process.env.HTTPS_PROXY,
      NO_PROXY: process.env.NO_PROXY,
    };
    const proxyUrl = `http://127.0.0.1:${proxy.port}`;
    Object.assign(process.env, { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, HTTPS_PROXY: proxyUrl });
    delete process.env.NO_PROXY;
    try {
      const hits = srv.hits.length;
      const got = await fetchToFile(`${base()}/file`, join(dir, 'noproxy'), opts());
      assert.equal(got.size, PAYLOAD.length);
      assert.equal(srv.hits.length, hits + 1);
      assert.equal(proxy.hits.length, 0, 'the proxy saw nothing');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      proxy.server.closeAllConnections();
      await new Promise((r) => proxy.server.close(r));
    }
  });

  it('an IPv6 literal on loopback is fetched only when allow-listed, over ::1', async () => {
    const v6 = await localServer((_req, res) => res.writeHead(200, { 'content-length': 3 }).end('abc'), '::1').catch(() => null);
    if (!v6) return; // no IPv6 loopback on this machine
    try {
      const url = `http://[::1]:${v6.port}/v6`;
      const refusedErr = await refusal(fetchToFile(url, join(dir, 'v6'), opts({ allowList: ['127.0.0.1'] })));
      assert.equal(refusedErr.details.reason, 'blocked_address');
      assert.equal(v6.hits.length, 0);
      const got = await fetchToFile(url, join(dir, 'v6'), opts({ allowList: ['::1'] }));
      assert.equal(got.size, 3);
      assert.equal(v6.hits.length, 1);
    } finally {
      v6.server.closeAllConnections();
      await new Promise((r) => v6.server.close(r));
    }
  });

  it("the caller's abort (a worker stopping) surfaces as an AbortError, not as the URL's fault", async () => {
    const dest = join(dir, 'aborted');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    let err: unknown;
    try {
      await fetchToFile(`${base()}/stall`, dest, opts({ signal: ac.signal }));
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof Error && !(err instanceof AppError), String(err));
    assert.equal(err.name, 'AbortError');
    assert.equal(existsSync(dest), false);
  });

  it('reports HTTP errors and refused connections clearly', async () => {
    const notFound = await refusal(fetchToFile(`${base()}/missing`, join(dir, 'nf'), opts()));
    assert.equal(notFound.details.reason, 'http_status');
    assert.equal(notFound.details.http_status, 404);
    const closed = await refusal(fetchToFile('http://127.0.0.1:1/x', join(dir, 'cl'), opts()));
    assert.equal(closed.details.reason, 'network');
    assert.equal(closed.details.cause, 'ECONNREFUSED');
  });
});

for (const target of await dbTargets()) {
  describe(`URL inputs through the API (${target.kind})`, { skip: target.skip }, () => {
    // The allow-list names 127.0.0.2 only: 127.0.0.1 stands for "loopback without the allow-list",
    // and the media server the workers may reach listens on 127.0.0.2.
    let svc: TestService;
    let blocked: Awaited<ReturnType<typeof localServer>>;
    let media: Awaited<ReturnType<typeof localServer>>;
    const VIDEO_LIMIT = 200 * 1024;

    before(async () => {
      blocked = await localServer((_req, res) => res.end('x'));
      media = await localServer((req, res) => {
        if (req.url === '/not-a-video.mp4') {
          res.writeHead(200, { 'content-type': 'video/mp4' });
          return res.end('<html>this is not a video</html>');
        }
        if (req.url === '/huge.mp4') {
          res.writeHead(200, { 'content-type': 'video/mp4' });
          return res.end(Buffer.alloc(VIDEO_LIMIT + 1));
        }
        res.writeHead(404);
        res.end();
      }, '127.0.0.2');
      svc = await startService({
        db: target.kind,
        workers: true,
        env: { MARIONETTE_URL_ALLOW_LIST: '127.0.0.2', MARIONETTE_MAX_VIDEO_BYTES: String(VIDEO_LIMIT) },
      });
    });
    after(async () => {
      await svc?.close();
      for (const s of [blocked, media]) {
        s.server.closeAllConnections();
        await new Promise((r) => s.server.close(r));
      }
    });

    const prepareWith = (fields: Record<string, unknown>) =>
      svc.request('/v1/renders/prepare', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) });

    const renderFromUrls = async (imageUrl: string, motionUrl: string) => {
      const form = new FormData();
      form.set('image_url', imageUrl);
      form.set('motion_video_url', motionUrl);
      return svc.request('/v1/renders', { method: 'POST', body: form });
    };

    async function settled(id: string): Promise<any> {
      for (let i = 0; i < 200; i++) {
        const v = (await (await svc.request(`/v1/videos/${id}`)).json()) as any;
        if (['ready', 'failed', 'cancelled'].includes(v.status)) return v;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail(`render ${id} did not settle`);
    }

    it('refuses loopback, private and metadata URLs at the door (prepare and the direct form)', async () => {
      const urls = [
        `http://127.0.0.1:${blocked.port}/a.png`,
        `http://localhost:${blocked.port}/a.png`,
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/a.png',
        'ftp://example.com/a.png',
      ];
      for (const url of urls) {
        const viaPrepare = await errorOf(await prepareWith({ image_url: url, motion_video_url: 'https://example.com/m.mp4' }));
        assert.equal(viaPrepare.status, 400, url);
        assert.equal(viaPrepare.code, 'INVALID_REQUEST');
        assert.ok(['blocked_address', 'scheme'].includes(viaPrepare.body.error.details.reason), url);
        const viaForm = await errorOf(await renderFromUrls('https://example.com/a.png', url));
        assert.equal(viaForm.status, 400, url);
        assert.equal(viaForm.code, 'INVALID_REQUEST');
      }
      assert.equal(blocked.hits.length, 0, 'nothing was fetched');
      assert.equal((await svc.wired.deps.db.selectFrom('videos').select('id').execute()).length, 0);
      assert.equal((await svc.wired.deps.db.selectFrom('drafts').select('id').execute()).length, 0);
    });

    it('admits a loopback address the operator allow-list names', async () => {
      const res = await prepareWith({
        image_url: `http://127.0.0.2:${media.port}/a.png`,
        motion_video_url: `http://127.0.0.2:${media.port}/m.mp4`,
      });
      assert.equal(res.status, 200, await res.clone().text());
      const draft = (await res.json()) as { draft_id: string; uploads: unknown[] };
      assert.deepEqual(draft.uploads, []);
      const row = await svc.wired.deps.db.selectFrom('drafts').selectAll().where('id', '=', draft.draft_id).executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(row.spec_json).character, { kind: 'url', url: `http://127.0.0.2:${media.port}/a.png` });
    });

    it('a URL that fails when fetched fails the render with a clear error, and no credit is kept', async () => {
      const image = `http://127.0.0.2:${media.port}/a.png`;
      const cases: [string, string, string][] = [
        ['/missing.mp4', 'INVALID_REQUEST', 'http_status'],
        ['/not-a-video.mp4', 'UNSUPPORTED_MEDIA', ''],
        ['/huge.mp4', 'UNSUPPORTED_MEDIA', 'too_large'],
      ];
      for (const [path, code, reason] of cases) {
        const created = await renderFromUrls(image, `http://127.0.0.2:${media.port}${path}`);
        assert.equal(created.status, 200, await created.clone().text());
        const { id } = (await created.json()) as { id: string };
        const done = await settled(id);
        assert.equal(done.status, 'failed', path);
        assert.equal(done.error.code, code, `${path}: ${JSON.stringify(done.error)}`);
        if (reason) assert.equal(done.error.details.reason, reason, path);
        assert.ok(done.error.message.length > 10);
        const held = await svc.wired.deps.db.selectFrom('ledger').select(['kind', 'amount_milli']).where('resource_id', '=', id).execute();
        assert.equal(
          held.reduce((sum, m) => sum + Number(m.amount_milli), 0),
          0,
          `${path}: nothing charged`,
        );
      }
      assert.ok(media.hits.some((h) => h.url === '/missing.mp4'));
    });
  });
}
