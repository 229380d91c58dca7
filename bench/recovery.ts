/**
 * Dead-worker recovery: an API process (this one, no workers) and two `npm run worker` processes on
 * one database, default lease and heartbeat. Each round creates a render, waits until it is being
 * worked on (first `progress` event), SIGKILLs the worker process that owns its job, and measures:
 * - kill -> the first event on the render's stream after the kill (the surviving worker's hand-over
 *   `progress` event; the killed process cannot send anything);
 * - kill -> `ready`, and POST -> `ready` (end to end);
 * and checks the ledger holds one reservation and one settlement. The killed worker is replaced
 * before the next round, so two workers always run.
 *
 *   npm run bench -- recovery [--rounds 5] [--seconds 4] [--db sqlite|postgres] [--pg-url URL]
 */
import { spawn, type ChildProcess, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { createAccount } from '../src/domain/accounts/accounts.service.js';
import { resolveTools } from '../src/engine/media/ffmpeg.js';
import { buildHttpApp, wire } from '../src/main/wire.js';
import { machineLine, writeSection } from './_report.js';

const exec = promisify(execFile);
const MEDIA = resolve(import.meta.dirname, '../../shared/media');
const ROOT = resolve(import.meta.dirname, '..');

interface Worker {
  p: ChildProcess;
  out: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '5' },
      seconds: { type: 'string', default: '4' },
      db: { type: 'string', default: 'sqlite' },
      'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    },
  });
  const rounds = Number(values.rounds);
  const loadAtStart = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'marionette-bench-recovery-'));
  const tools = resolveTools(process.env);
  const video = join(dir, 'driving.mp4');
  const image = join(dir, 'character.jpg');
  await exec(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    join(MEDIA, 'videos/animate-x--dance_1.mp4'),
    '-t',
    values.seconds!,
    '-vf',
    'scale=384:-2',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    video,
  ]);
  await exec(tools.ffmpeg, ['-v', 'error', '-y', '-i', join(MEDIA, 'images/mimicmotion--demo1.jpg'), '-vf', 'scale=360:-2', image]);
  const dataDir = join(dir, 'data');
  const schema = values.db === 'postgres' ? `bench_${randomBytes(5).toString('hex')}` : null;
  const env: Record<string, string> = {
    MARIONETTE_DATA_DIR: dataDir,
    MARIONETTE_HOST: '127.0.0.1',
    MARIONETTE_PORT: '18097',
    MARIONETTE_LOG_LEVEL: 'silent',
    MARIONETTE_RATE_LIMITS: 'false',
    MARIONETTE_WORKERS: 'false',
    ...(schema ? { MARIONETTE_DATABASE_URL: values['pg-url']!, MARIONETTE_DATABASE_SCHEMA: schema } : {}),
  };
  const config = loadConfig(env);
  const wired = await wire(config);
  const app = await buildHttpApp(wired.deps, { logger: false });
  await app.listen({ port: config.port, host: '127.0.0.1' });
  const base = config.publicUrl;
  const acct = await createAccount(wired.deps.db, { name: 'bench', credits: 10_000 });
  const auth = { authorization: `Bearer ${acct.apiKey}` };
  const workers: Worker[] = [];
  const startWorker = async (): Promise<Worker> => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env, MARIONETTE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const w: Worker = { p, out: '' };
    p.stdout!.on('data', (b) => (w.out += b));
    p.stderr!.on('data', (b) => (w.out += b));
    const deadline = Date.now() + 240_000;
    while (!/marionette worker started/.test(w.out)) {
      if (p.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start: ${w.out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return w;
  };
  const results: Array<{ handoverMs: number; killToReadyMs: number; endToEndMs: number; billed: string }> = [];
  try {
    workers.push(await startWorker(), await startWorker());
    // Let both finish loading their models, as long-running workers would have.
    await new Promise((r) => setTimeout(r, 5000));
    for (let i = 0; i < rounds; i++) {
      const fd = new FormData();
      fd.append('image', new Blob([await readFile(image)], { type: 'image/jpeg' }), 'c.jpg');
      fd.append('motion_video', new Blob([await readFile(video)], { type: 'video/mp4' }), 'm.mp4');
      const t0 = Date.now();
      const res = await fetch(`${base}/v1/renders`, { method: 'POST', headers: auth, body: fd });
      const { id } = (await res.json()) as { id: string };
      const stream = await fetch(`${base}/v1/renders/${id}/events`, { headers: auth });
      let killedAt = 0;
      let handoverAt = 0;
      let readyAt = 0;
      let text = '';
      const reader = (stream.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      while (!readyAt) {
        const { value, done } = await reader.next();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
        let cut: number;
        while ((cut = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, cut);
          text = text.slice(cut + 2);
          const event = /^event: (\w+)$/m.exec(frame)?.[1];
          if (!event || event === 'heartbeat' || event === 'snapshot') continue;
          if (event === 'ready' || event === 'failed') {
            if (event === 'failed') throw new Error(`render ${id} failed: ${frame}`);
            readyAt = Date.now();
            break;
          }
          if (event === 'progress' && !killedAt) {
            const job = await wired.deps.db
              .selectFrom('jobs')
              .select('lease_owner')
              .where('resource_id', '=', id)
              .executeTakeFirstOrThrow();
            const pid = Number(String(job.lease_owner).split(':')[1]);
            const victim = workers.find((w) => w.p.pid === pid);
            if (!victim) throw new Error(`job owner ${job.lease_owner} is not one of the bench's workers`);
            victim.p.kill('SIGKILL');
            await new Promise((r) => victim.p.once('exit', r));
            killedAt = Date.now();
            workers.splice(workers.indexOf(victim), 1);
          } else if (killedAt && !handoverAt) {
            handoverAt = Date.now();
          }
        }
      }
      await reader.return?.();
      const ledger = await wired.deps.db.selectFrom('ledger').select('kind').where('resource_id', '=', id).orderBy('id').execute();
      const billed = ledger.map((l) => l.kind).join('+');
      if (billed !== 'reserve+settle') throw new Error(`render ${id} billed ${billed}`);
      results.push({ handoverMs: handoverAt - killedAt, killToReadyMs: readyAt - killedAt, endToEndMs: readyAt - t0, billed });
      process.stdout.write(
        `round ${i + 1}: kill -> hand-over ${handoverAt - killedAt} ms, kill -> ready ${readyAt - killedAt} ms, POST -> ready ${readyAt - t0} ms (${billed})\n`,
      );
      workers.push(await startWorker());
      await new Promise((r) => setTimeout(r, 3000));
    }
  } finally {
    for (const w of workers) w.p.kill('SIGTERM');
    await Promise.all(workers.map((w) => (w.p.exitCode === null ? new Promise((r) => w.p.once('exit', r)) : null)));
    await app.close();
    await wired.close();
    if (schema) {
      const c = new pg.Client({ connectionString: values['pg-url'] });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`).finally(() => c.end());
    }
    await rm(dir, { recursive: true, force: true });
  }
  const h = results.map((r) => r.handoverMs);
  const k = results.map((r) => r.killToReadyMs);
  const e = results.map((r) => r.endToEndMs);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const md = [
    `## Recovery from a killed worker (\`npm run bench -- recovery --db ${values.db} --rounds ${rounds} --seconds ${values.seconds}\`)`,
    '',
    `${machineLine()}; ${cpus().length} CPUs, 1-min load average ${loadAtStart.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end (shared machine: times are upper bounds).`,
    `API in the bench process, two \`npm run worker\` processes, ${values.db === 'postgres' ? 'PostgreSQL' : 'SQLite'}, default lease ${config.workers.leaseMs} ms / heartbeat ${config.workers.heartbeatMs} ms / poll ${config.workers.pollMs} ms; a ${values.seconds} s clip per round; the worker owning the job is SIGKILLed at the render's first progress event.`,
    '',
    `- **kill -> first event from the other worker (hand-over): median ${s(median(h))}, worst ${s(Math.max(...h))}** (${h.map(s).join(', ')})`,
    `- kill -> ready: median ${s(median(k))}, worst ${s(Math.max(...k))}`,
    `- POST -> ready (end to end, kill included): median ${s(median(e))}, worst ${s(Math.max(...e))}`,
    `- billing: every render reserve + settle, once.`,
  ].join('\n');
  writeSection(`recovery-${values.db}`, md);
  process.stdout.write(`\n${md}\n`);
}
