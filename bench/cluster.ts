/**
 * The distributed topology (`npm run cluster`: API processes + worker processes sharing PostgreSQL,
 * Redis and an S3-protocol server) measured:
 * - cross-process event latency p50/p99: a state change written and announced by another process
 *   (as a worker does) until an SSE client of an API process has it (target p99 < 50 ms);
 * - idle streams held across two API processes (RSS of each);
 * - renders per minute with 1 and 2 worker processes, and the scaling factor;
 * - a presigned upload of a ~150 MB video straight to the object store, with the API's RSS before
 *   and after (the bytes never pass through it; the API checks the object from scratch space).
 *
 *   MARIONETTE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test \
 *   npm run bench -- cluster [--streams 10000] [--changes 300] [--renders 4] [--upload-mb 150]
 *
 * Redis: a private redis-server on a free loopback port when installed, else
 * MARIONETTE_TEST_REDIS_URL / redis://127.0.0.1:6379 under a unique prefix (deleted afterwards).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startCluster } from '../src/main/cluster.js';
import { openDb } from '../src/infra/db/database.js';
import { createAccount } from '../src/domain/accounts/accounts.service.js';
import { RedisPubSub } from '../src/infra/pubsub/redis-pubsub.js';
import { insertRenders, measureLatency, openMany, pct, rssMb } from './events.js';
import { hasRedisServer, ownRedis, sharedRedis } from '../test/helpers/redis.js';
import { prepareMedia } from '../test/helpers/media-prep.js';
import { machineLine, writeSection } from './_report.js';

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      streams: { type: 'string', default: '10000' },
      changes: { type: 'string', default: '300' },
      renders: { type: 'string', default: '4' },
      'upload-mb': { type: 'string', default: '150' },
      skip: { type: 'string', default: '' },
    },
  });
  const skip = new Set(values.skip!.split(',').filter(Boolean));
  const pgUrl = process.env.MARIONETTE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redis = hasRedisServer() ? await ownRedis() : await sharedRedis();
  if (redis.skip) throw new Error(String(redis.skip));
  const schema = `b_${randomBytes(5).toString('hex')}`;
  const load0 = loadavg()[0];
  const lines: string[] = [];
  // Each result is printed as soon as it is measured (a later step failing does not lose it).
  const say = (line: string) => {
    const withLoad = `${line} 1-min load average when measured: ${loadavg()[0].toFixed(1)}.`;
    lines.push(withLoad);
    process.stdout.write(`${withLoad}\n`);
  };
  const cluster = await startCluster({
    apis: 2,
    workers: 0,
    databaseUrl: pgUrl,
    schema,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    env: { MARIONETTE_LOG_LEVEL: 'warn', MARIONETTE_RATE_LIMITS: 'false', MARIONETTE_ENGINE_WARMUP: 'true' },
  });
  const handle = await openDb({ url: pgUrl, schema });
  const [A, B] = cluster.apis;
  const work = await mkdtemp(join(tmpdir(), 'marionette-bench-cluster-'));
  try {
    const acct = await createAccount(handle.db, { name: 'bench', credits: 1_000_000 });
    const key = acct.apiKey;

    if (!skip.has('streams')) {
      // 1. Idle streams across both API processes, then latency of changes made by another process.
      const n = Number(values.streams);
      const ids = await insertRenders(handle.db, acct.accountId, n);
      // The "worker" here is this bench process: it writes the change and announces it on Redis.
      const bus = new RedisPubSub(redis.url, redis.prefix);
      const changes = Math.min(Number(values.changes), n);
      {
        // Baseline at the same machine load: the same changes with only 100 streams open.
        const few = await insertRenders(handle.db, acct.accountId, 100);
        const open = [...(await openMany(A.baseUrl, key, few.slice(0, 50))), ...(await openMany(B.baseUrl, key, few.slice(50)))];
        const lat = await measureLatency(handle.db, bus, open, open.length, 10_000);
        say(
          `- Cross-process event latency with 100 streams open (baseline), ${lat.length} changes over 10 s: p50 **${pct(lat, 50)} ms**, p99 **${pct(lat, 99)} ms**, max ${Math.max(...lat)} ms.`,
        );
        for (const s of open) s.req.destroy();
      }
      const rss0 = [await rssMb(A.child.pid!), await rssMb(B.child.pid!)];
      const t0 = Date.now();
      const half = Math.ceil(n / 2);
      const streams = [...(await openMany(A.baseUrl, key, ids.slice(0, half))), ...(await openMany(B.baseUrl, key, ids.slice(half)))];
      const openMs = Date.now() - t0;
      await new Promise((r) => setTimeout(r, 2000));
      const rss1 = [await rssMb(A.child.pid!), await rssMb(B.child.pid!)];
      say(
        `- ${streams.length} idle event streams across two API processes (${half} each), opened in ${(openMs / 1000).toFixed(1)} s; RSS api-0 ${rss0[0].toFixed(0)} -> ${rss1[0].toFixed(0)} MB, api-1 ${rss0[1].toFixed(0)} -> ${rss1[1].toFixed(0)} MB (${(((rss1[0] - rss0[0] + rss1[1] - rss0[1]) * 1024) / streams.length).toFixed(1)} KB per stream).`,
      );
      // Spread over both processes' streams.
      const picked = Array.from({ length: changes }, (_, i) => streams[(i * Math.floor(streams.length / changes)) % streams.length]);
      const lat = await measureLatency(handle.db, bus, picked, changes, 10_000);
      say(
        `- Cross-process event latency (change written + announced on Redis pub/sub by another process, received by an SSE client of an API process) with ${streams.length} streams open, ${lat.length} changes over 10 s: p50 **${pct(lat, 50)} ms**, p99 **${pct(lat, 99)} ms**, max ${Math.max(...lat)} ms (target p99 < 50 ms).`,
      );
      await bus.close();
      for (const s of streams) s.req.destroy();
      await new Promise((r) => setTimeout(r, 1000));
    }

    if (!skip.has('renders')) {
      // 2. Renders per minute with 1, then 2 worker processes (real renders of a 1.5 s clip).
      const media = await prepareMedia({ seconds: 1.5 });
      const nR = Number(values.renders);
      const { readFile } = await import('node:fs/promises');
      const image = await readFile(media.image);
      const video = await readFile(media.video);
      const batch = async () => {
        const ids: string[] = [];
        for (let i = 0; i < nR; i++) {
          const fd = new FormData();
          fd.append('image', new Blob([image], { type: 'image/jpeg' }), 'c.jpg');
          fd.append('motion_video', new Blob([video], { type: 'video/mp4' }), 'm.mp4');
          const r = await fetch(`${(i % 2 ? B : A).baseUrl}/v1/renders`, {
            method: 'POST',
            body: fd,
            headers: { authorization: `Bearer ${key}` },
          });
          if (r.status !== 200) throw new Error(`create: ${r.status} ${await r.text()}`);
          ids.push(((await r.json()) as { id: string }).id);
        }
        const t0 = Date.now();
        for (;;) {
          const rows = await handle.db.selectFrom('videos').select('status').where('id', 'in', ids).execute();
          if (rows.every((r) => ['ready', 'failed', 'cancelled'].includes(r.status))) {
            const bad = rows.filter((r) => r.status !== 'ready').length;
            if (bad) throw new Error(`${bad} renders did not finish ready`);
            return (Date.now() - t0) / 60_000;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      };
      await cluster.addWorker();
      // One warm-up render so model loading is not counted.
      const savedR = values.renders;
      values.renders = '1';
      await batch();
      values.renders = savedR;
      const m1 = await batch();
      await cluster.addWorker();
      await new Promise((r) => setTimeout(r, 15_000)); // the second worker warms its models
      const m2 = await batch();
      const r1 = nR / m1;
      const r2 = nR / m2;
      say(
        `- Renders of a 1.5 s clip (multipart create through both APIs, rendered by worker processes, outputs to S3): 1 worker **${r1.toFixed(2)}/min**, 2 workers **${r2.toFixed(2)}/min**, scaling factor **${(r2 / r1).toFixed(2)}** (${nR} renders each; 2 cores shared with other work).`,
      );
      await rm(media.dir, { recursive: true, force: true });
    }

    if (!skip.has('upload')) {
      // 3. A ~150 MB video uploaded with the presigned PUT straight to the object store.
      const mb = Number(values['upload-mb']);
      const file = join(work, 'big.mp4');
      const seconds = 40;
      execFileSync(
        process.env.FFMPEG_PATH ?? (await import('@ffmpeg-installer/ffmpeg')).default.path,
        [
          '-v',
          'error',
          '-y',
          '-f',
          'lavfi',
          '-i',
          `testsrc2=size=1280x720:rate=25`,
          '-f',
          'lavfi',
          '-i',
          'nullsrc=size=1280x720:rate=25',
          '-filter_complex',
          '[0][1]blend=all_mode=difference,noise=alls=60:allf=t',
          '-t',
          String(seconds),
          '-c:v',
          'mpeg4',
          '-b:v',
          `${Math.round((mb * 8) / seconds)}M`,
          '-maxrate',
          `${Math.round((mb * 8) / seconds)}M`,
          '-bufsize',
          '8M',
          '-pix_fmt',
          'yuv420p',
          file,
        ],
        { stdio: 'inherit' },
      );
      const size = (await stat(file)).size;
      const hash = createHash('sha256');
      for await (const c of createReadStream(file)) hash.update(c as Buffer);
      const img = await prepareMedia({ seconds: 1 });
      const { readFile } = await import('node:fs/promises');
      const image = await readFile(img.image);
      const rss0 = await rssMb(A.child.pid!);
      const prep = await fetch(`${A.baseUrl}/v1/renders/prepare`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          image: { content_type: 'image/jpeg', size_bytes: image.length },
          motion_video: { content_type: 'video/mp4', size_bytes: size, sha256: hash.digest('hex') },
        }),
      });
      const plan = (await prep.json()) as { draft_id: string; uploads: { field: string; url: string; headers: Record<string, string> }[] };
      const t0 = Date.now();
      let peak = rss0;
      const sampler = setInterval(() => void rssMb(A.child.pid!).then((v) => (peak = Math.max(peak, v))), 100);
      for (const u of plan.uploads) {
        const body = u.field === 'image' ? image : createReadStream(file);
        const r = await fetch(u.url, { method: 'PUT', headers: u.headers, body: body as never, duplex: 'half' } as RequestInit);
        if (r.status !== 200) throw new Error(`PUT ${u.field}: ${r.status} ${await r.text()}`);
      }
      const putS = (Date.now() - t0) / 1000;
      const t1 = Date.now();
      const created = await fetch(`${A.baseUrl}/v1/renders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') },
        body: JSON.stringify({ draft_id: plan.draft_id }),
      });
      const createS = (Date.now() - t1) / 1000;
      clearInterval(sampler);
      const rss1 = await rssMb(A.child.pid!);
      say(
        `- Presigned upload of a ${(size / 1e6).toFixed(0)} MB (${(size / 1048576).toFixed(0)} MiB) video straight to the object store: PUT ${putS.toFixed(1)} s; creating the render from the draft (the API verifies the object: size, sha256, probe, from scratch space) ${createS.toFixed(1)} s, status ${created.status}; API RSS ${rss0.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB, ${rss1.toFixed(0)} MB after.`,
      );
      await rm(img.dir, { recursive: true, force: true });
    }
  } finally {
    await cluster.close();
    await handle.close();
    await redis.close();
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`).finally(() => c.end());
    await rm(work, { recursive: true, force: true });
  }
  const note = `${cpus().length} CPUs, 1-min load ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at the end (machine shared with other work)`;
  const md = [
    `Command: \`MARIONETTE_TEST_PG_URL=${pgUrl} npm run bench -- cluster ${argv.join(' ')}\`. ${machineLine()}; ${note}.`,
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(md + '\n');
  // A partial run (--skip) writes its own section and leaves the full run's in place.
  const parts = ['streams', 'renders', 'upload'].filter((p) => !skip.has(p));
  writeSection(parts.length === 3 ? 'cluster' : `cluster-${parts.join('-')}`, md);
}
