/**
 * Soak: mixed traffic at a steady rate against one `npm start` process (API + in-process workers,
 * SQLite) for a configurable time, sampling the server's RSS, open file descriptors and the p99 of
 * the minute's request latencies every sample period. At the end it waits for the work it created
 * to finish and checks that nothing was lost (every created render, character and motion reached a
 * terminal state, every event stream saw its terminal event) and that the ledger balances (per
 * account the sum of ledger movements equals the balance row, and no reservation stays open).
 *
 *   npm run bench -- soak [--minutes 30] [--rate 20] [--sample-s 60] [--render-every-s 30]
 *                         [--upload-every-s 10] [--asset-every-s 120]
 *
 * Traffic: `--rate` reads per second (credits, video list, one video), a default render every
 * `--render-every-s` with its event stream followed to the end, a draft prepare + two signed PUT
 * uploads every `--upload-every-s`, and a character upload and a motion upload every
 * `--asset-every-s`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
import { openDb } from '../src/infra/db/database.js';
import { grantCredits } from '../src/domain/accounts/accounts.service.js';
import { DEMO_ACCOUNT_ID } from '../src/main/bootstrap.js';
import { resolveTools } from '../src/engine/media/ffmpeg.js';
import { machineLine, writeSection } from './_report.js';
import { freePort } from './_net.js';

const ROOT = resolve(import.meta.dirname, '..');
const MEDIA = resolve(ROOT, '../shared/media');
const exec = promisify(execFile);

interface Sample {
  minute: number;
  rssMb: number;
  fds: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  load: number;
}

function rssMb(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);
}
function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}
/** fetch's "fetch failed" hides why: the cause (socket closed by the server, reset, refused) is what tells. */
function describe(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const cause = err.cause ? ` (${[err.cause.code, err.cause.message].filter(Boolean).join(': ')})` : '';
  return `${err.message}${cause}`;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: 'string', default: '30' },
      rate: { type: 'string', default: '20' },
      'sample-s': { type: 'string', default: '60' },
      'render-every-s': { type: 'string', default: '30' },
      'upload-every-s': { type: 'string', default: '10' },
      'asset-every-s': { type: 'string', default: '120' },
    },
  });
  const minutes = Number(values.minutes);
  const rate = Number(values.rate);
  const sampleMs = Number(values['sample-s']) * 1000;
  const loadAtStart = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'marionette-bench-soak-'));
  const dataDir = join(dir, 'data');
  const tools = resolveTools(process.env);
  const clip = join(dir, 'clip.mp4');
  await exec(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    join(MEDIA, 'videos/animate-x--dance_3.mp4'),
    '-t',
    '3',
    '-vf',
    'scale=384:-2',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    '-an',
    clip,
  ]);
  const image = await readFile(join(MEDIA, 'images/mimicmotion--demo1.jpg'));
  const video = await readFile(clip);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      MARIONETTE_DATA_DIR: dataDir,
      MARIONETTE_PORT: String(port),
      MARIONETTE_HOST: '127.0.0.1',
      MARIONETTE_RATE_LIMITS: 'false',
      MARIONETTE_LOG_LEVEL: 'warn',
      MARIONETTE_JOB_POLL_MS: '200',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const lines: string[] = [];
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/v1/openapi.json`)).ok) break;
      } catch {
        /* not up yet */
      }
      if (i > 600) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const key = (await readFile(join(dataDir, 'demo-api-key'), 'utf8')).trim();
    const auth = { authorization: `Bearer ${key}` };
    // Enough credits for the whole soak, granted as an operator would (a ledger grant).
    const admin = await openDb({ url: `sqlite:${join(dataDir, 'marionette.sqlite')}` });
    await grantCredits(admin.db, DEMO_ACCOUNT_ID, 100_000).finally(() => admin.close());

    let latencies: number[] = [];
    let errors = 0;
    const failures: string[] = [];
    const created = { renders: [] as string[], characters: [] as string[], motions: [] as string[] };
    const streams = { opened: 0, terminal: 0, broken: 0 };
    const pending = new Set<Promise<unknown>>();
    const track = <T>(p: Promise<T>) => {
      pending.add(p);
      void p.finally(() => pending.delete(p));
      return p;
    };

    const timed = async (path: string, init: RequestInit = {}): Promise<Response | null> => {
      const t0 = performance.now();
      try {
        const res = await fetch(base + path, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
        const body = await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status >= 500 || (res.status >= 400 && res.status !== 402)) {
          errors++;
          if (failures.length < 20)
            failures.push(`${init.method ?? 'GET'} ${path} -> ${res.status} ${Buffer.from(body).toString('utf8').slice(0, 200)}`);
        }
        return new Response(body, { status: res.status, headers: res.headers });
      } catch (e) {
        errors++;
        if (failures.length < 20) failures.push(`${init.method ?? 'GET'} ${path} -> ${describe(e)}`);
        return null;
      }
    };

    const follow = async (id: string): Promise<void> => {
      streams.opened++;
      try {
        const res = await fetch(`${base}/v1/renders/${id}/events`, { headers: auth, signal: AbortSignal.timeout(30 * 60_000) });
        let text = '';
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          text += Buffer.from(chunk).toString('utf8');
          if (/event: (ready|failed|cancelled)\n/.test(text)) break;
        }
        if (/event: (ready|failed|cancelled)\n/.test(text)) streams.terminal++;
        else streams.broken++;
      } catch {
        streams.broken++;
      }
    };

    const createRender = async () => {
      // No body: the project's default character and motion (the default render).
      const res = await timed('/v1/renders', { method: 'POST', headers: { 'idempotency-key': `soak-${Date.now()}-${Math.random()}` } });
      if (res?.ok) {
        const { id } = (await res.json()) as { id: string };
        created.renders.push(id);
        void track(follow(id));
      }
    };
    const uploadDraft = async () => {
      const res = await timed('/v1/renders/prepare', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `soak-draft-${Date.now()}-${Math.random()}` },
        body: JSON.stringify({
          image: { content_type: 'image/jpeg', size_bytes: image.length },
          motion_video: { content_type: 'video/mp4', size_bytes: video.length },
        }),
      });
      if (!res?.ok) return;
      const plan = (await res.json()) as { uploads: { field: string; url: string; headers: Record<string, string> }[] };
      for (const u of plan.uploads) {
        const t0 = performance.now();
        try {
          const r = await fetch(u.url, { method: 'PUT', body: u.field === 'image' ? image : video, headers: u.headers });
          await r.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (!r.ok) {
            errors++;
            if (failures.length < 20) failures.push(`PUT upload -> ${r.status}`);
          }
        } catch (e) {
          errors++;
          if (failures.length < 20) failures.push(`PUT upload -> ${describe(e)}`);
        }
      }
    };
    const createAssets = async () => {
      const c = new FormData();
      c.append('image', new Blob([image], { type: 'image/jpeg' }), 'c.jpg');
      const rc = await timed('/v1/characters', {
        method: 'POST',
        body: c,
        headers: { 'idempotency-key': `soak-c-${Date.now()}-${Math.random()}` },
      });
      if (rc?.ok) created.characters.push(((await rc.json()) as { id: string }).id);
      const m = new FormData();
      m.append('video', new Blob([video], { type: 'video/mp4' }), 'm.mp4');
      const rm_ = await timed('/v1/motions', {
        method: 'POST',
        body: m,
        headers: { 'idempotency-key': `soak-m-${Date.now()}-${Math.random()}` },
      });
      if (rm_?.ok) created.motions.push(((await rm_.json()) as { id: string }).id);
    };

    await createRender();
    const samples: Sample[] = [];
    const start = Date.now();
    const end = start + minutes * 60_000;
    let nextSample = start + sampleMs;
    let nextRender = start + Number(values['render-every-s']) * 1000;
    let nextUpload = start;
    let nextAssets = start;
    let reads = 0;
    const readPaths = () =>
      ['/v1/credits', '/v1/videos', created.renders.length ? `/v1/videos/${created.renders[created.renders.length - 1]}` : '/v1/credits'][
        reads++ % 3
      ];
    while (Date.now() < end) {
      const tick = Date.now();
      for (let i = 0; i < rate; i++) void track(timed(readPaths()));
      if (tick >= nextRender) {
        void track(createRender());
        nextRender += Number(values['render-every-s']) * 1000;
      }
      if (tick >= nextUpload) {
        void track(uploadDraft());
        nextUpload += Number(values['upload-every-s']) * 1000;
      }
      if (tick >= nextAssets) {
        void track(createAssets());
        nextAssets += Number(values['asset-every-s']) * 1000;
      }
      if (tick >= nextSample) {
        const sorted = latencies.sort((a, b) => a - b);
        samples.push({
          minute: samples.length + 1,
          rssMb: rssMb(child.pid!),
          fds: openFds(child.pid!),
          requests: sorted.length,
          p50: quantile(sorted, 0.5),
          p99: quantile(sorted, 0.99),
          errors,
          load: loadavg()[0],
        });
        process.stdout.write(`sample ${JSON.stringify(samples[samples.length - 1])}\n`);
        latencies = [];
        errors = 0;
        nextSample += sampleMs;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, tick + 1000 - Date.now())));
    }

    // Drain: let the work finish (bounded), then check nothing was lost and the ledger balances.
    const drainUntil = Date.now() + 10 * 60_000;
    while (pending.size > 0 && Date.now() < drainUntil) await Promise.race([...pending, new Promise((r) => setTimeout(r, 1000))]);
    const h = await openDb({ url: `sqlite:${join(dataDir, 'marionette.sqlite')}` });
    let lost: string[] = [];
    let ledgerLines: string[] = [];
    try {
      const db = h.db;
      const waitTerminal = async (table: 'videos' | 'characters' | 'motions', ids: string[]) => {
        if (ids.length === 0) return [];
        for (;;) {
          const rows = await db.selectFrom(table).select(['id', 'status']).where('id', 'in', ids).execute();
          const open = rows.filter((r) => r.status === 'queued' || r.status === 'processing');
          const missing = ids.filter((id) => !rows.some((r) => r.id === id));
          if ((open.length === 0 && missing.length === 0) || Date.now() > drainUntil)
            return [...missing.map((id) => `${id} missing`), ...open.map((r) => `${r.id} still ${r.status}`)];
          await new Promise((r) => setTimeout(r, 1000));
        }
      };
      lost = [
        ...(await waitTerminal('videos', created.renders)),
        ...(await waitTerminal('characters', created.characters)),
        ...(await waitTerminal('motions', created.motions)),
      ];
      const statusCount = async (table: 'videos' | 'characters' | 'motions', ids: string[]) =>
        ids.length === 0
          ? {}
          : Object.fromEntries(
              (
                await db
                  .selectFrom(table)
                  .select(['status'])
                  .select((eb) => eb.fn.countAll<number>().as('n'))
                  .where('id', 'in', ids)
                  .groupBy('status')
                  .execute()
              ).map((r) => [r.status, Number(r.n)]),
            );
      const balances = await db.selectFrom('balances').selectAll().execute();
      for (const b of balances) {
        const sums = await db
          .selectFrom('ledger')
          .select((eb) => [eb.fn.sum<number>('amount_milli').as('a'), eb.fn.sum<number>('reserved_delta_milli').as('r')])
          .where('account_id', '=', b.account_id)
          .executeTakeFirstOrThrow();
        const ok =
          Number(sums.a) === Number(b.available_milli) && Number(sums.r) === Number(b.reserved_milli) && Number(b.reserved_milli) === 0;
        // A reservation still open for work that did not finish within the drain is not an imbalance:
        // the sums are compared first, the open reservation is said apart.
        if (!ok && Number(sums.a) === Number(b.available_milli) && Number(sums.r) === Number(b.reserved_milli)) {
          ledgerLines.push(
            `${b.account_id}: ledger sums ${Number(sums.a)}/${Number(sums.r)} milli = balance ${b.available_milli}/${b.reserved_milli} (available/reserved) — balanced; ${b.reserved_milli} milli still reserved by work not finished at the end of the drain (listed above)`,
          );
          continue;
        }
        ledgerLines.push(
          `${b.account_id}: ledger sums ${Number(sums.a)}/${Number(sums.r)} milli vs balance ${b.available_milli}/${b.reserved_milli} (available/reserved) — ${ok ? 'balanced, no open reservation' : '**NOT balanced**'}`,
        );
      }
      lines.push(
        `renders: ${created.renders.length} created ${JSON.stringify(await statusCount('videos', created.renders))}; characters: ${created.characters.length} ${JSON.stringify(await statusCount('characters', created.characters))}; motions: ${created.motions.length} ${JSON.stringify(await statusCount('motions', created.motions))}`,
      );
    } finally {
      await h.close();
    }
    const first = samples[0];
    const last = samples[samples.length - 1];
    const md = [
      '## Soak (mixed traffic)',
      '',
      `\`npm run bench -- soak --minutes ${minutes} --rate ${rate}\` (${machineLine()}; one \`npm start\` process with in-process workers, SQLite; ${cpus().length} CPUs shared with other work, 1-min load average ${loadAtStart.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end). Traffic: ${rate} reads/s (credits, video list, one video), a default render every ${values['render-every-s']} s with its event stream followed to the end, a draft prepare + 2 signed uploads every ${values['upload-every-s']} s, a character and a motion upload every ${values['asset-every-s']} s.`,
      '',
      '| sample | RSS MB | open fds | requests | p50 ms | p99 ms | errors | load |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...samples.map(
        (s) =>
          `| ${s.minute} | ${s.rssMb} | ${s.fds} | ${s.requests} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.errors} | ${s.load.toFixed(1)} |`,
      ),
      '',
      first && last
        ? `RSS ${first.rssMb} → ${last.rssMb} MB, open fds ${first.fds} → ${last.fds}, p99 ${first.p99.toFixed(0)} → ${last.p99.toFixed(0)} ms (first → last sample).`
        : '',
      `- ${lines.join('\n- ')}`,
      `- event streams: ${streams.opened} opened, ${streams.terminal} saw their terminal event, ${streams.broken} ended without it.`,
      `- lost (not terminal after the drain, or missing): ${lost.length === 0 ? 'none' : lost.join(', ')}`,
      ...ledgerLines.map((l) => `- ${l}`),
      ...(failures.length ? ['- first failures:', ...failures.map((f) => `  - ${f}`)] : ['- no request failed']),
    ].join('\n');
    process.stdout.write(md + '\n');
    writeSection('soak', md);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await rm(dir, { recursive: true, force: true });
  }
}
