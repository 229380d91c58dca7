/**
 * Render event streams: how many idle streams one server process holds and at what memory, and the
 * latency from a state change to the client, p50/p99, for the two delivery paths:
 * - in-process: the worker runs in the API process (`npm start`), the pub/sub hint wakes the stream;
 * - cross-process: the worker is another process (`npm run worker`), the stream's poll of stored
 *   events finds the change (MARIONETTE_JOB_POLL_MS).
 *
 *   npm run bench -- events [--streams 5000] [--changes 300]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../src/contracts/ids.js';
import { appendRenderEvent } from '../src/domain/events/render-events.js';
import { transitionRender } from '../src/domain/renders/renders.state.js';
import { loadConfig } from '../src/config/config.js';
import { createAccount } from '../src/domain/accounts/accounts.service.js';
import { buildHttpApp, wire } from '../src/main/wire.js';
import { nowIso, openDb, type Db } from '../src/infra/db/database.js';
import type { VideosTable } from '../src/infra/db/schema.js';
import { InProcessPubSub } from '../src/infra/pubsub/in-process-pubsub.js';
import type { PubSub } from '../src/domain/ports/pubsub.js';
import { cpus, loadavg } from 'node:os';
import { machineLine, writeSection } from './_report.js';

/** The machine is shared (other builds and tests run on it): say how busy it was. */
function loadNote(atStart: number): string {
  return `${cpus().length} CPUs, 1-min load average ${atStart.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end; the CPU was shared with other work, so times are upper bounds`;
}

const ROOT = resolve(import.meta.dirname, '..');

export async function insertRenders(db: Db, accountId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 500) {
    await db.transaction().execute(async (tx) => {
      for (let j = i; j < Math.min(n, i + 500); j++) {
        const now = nowIso();
        const row: VideosTable = {
          id: newId('render'),
          account_id: accountId,
          kind: 'render',
          status: 'queued',
          progress: 0,
          stage: null,
          background_mode: 'original',
          bg_color: null,
          character_source: '{"kind":"builtin"}',
          motion_source: '{"kind":"template","id":"bench"}',
          video_key: null,
          alpha_key: null,
          estimated_ms: 0,
          duration_ms: null,
          reserved_milli: 0,
          error_json: null,
          request_id: null,
          service_source: null,
          draft_id: null,
          created_at: now,
          updated_at: now,
          started_at: null,
          completed_at: null,
        };
        await tx.insertInto('videos').values(row).execute();
        await appendRenderEvent(tx, row, 'queued');
        ids.push(row.id);
      }
    });
  }
  return ids;
}

export interface Stream {
  id: string;
  onEvent: ((type: string, data: any, at: number) => void) | null;
  req: http.ClientRequest;
}

export function openStream(base: string, key: string, renderId: string): Promise<Stream> {
  return new Promise((resolveStream, reject) => {
    const s: Stream = { id: renderId, onEvent: null, req: null as unknown as http.ClientRequest };
    s.req = http.get(`${base}/v1/renders/${renderId}/events`, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      res.setEncoding('utf8');
      let buf = '';
      let first = true;
      res.on('data', (chunk: string) => {
        const at = Date.now();
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1] ?? '';
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (first && type === 'snapshot') {
            first = false;
            resolveStream(s);
          } else s.onEvent?.(type, data ? JSON.parse(data) : null, at);
        }
      });
    });
    s.req.on('error', reject);
  });
}

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/**
 * Moves each stream's render to processing at a random moment within `spreadMs` (so changes do not
 * phase-lock to the poll); latency = client receipt time - the stored event's occurred_at.
 */
export async function measureLatency(db: Db, pubsub: PubSub, streams: Stream[], changes: number, spreadMs: number): Promise<number[]> {
  return Promise.all(
    streams.slice(0, changes).map(async (s) => {
      const got = new Promise<number>((r) => {
        s.onEvent = (type, data, at) => {
          if (type === 'processing') r(at - Date.parse(data.occurred_at));
        };
      });
      await new Promise((r) => setTimeout(r, Math.random() * spreadMs));
      await transitionRender({ db, pubsub }, s.id, { to: 'processing' });
      return got;
    }),
  );
}

export function rssMb(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, 'utf8').then((t) => Number(/VmRSS:\s+(\d+)/.exec(t)![1]) / 1024);
}

export async function openMany(base: string, key: string, ids: string[]): Promise<Stream[]> {
  const out: Stream[] = [];
  for (let i = 0; i < ids.length; i += 200) out.push(...(await Promise.all(ids.slice(i, i + 200).map((id) => openStream(base, key, id)))));
  return out;
}

export async function run(argv: string[]): Promise<void> {
  const loadAtStart = loadavg()[0];
  const { values } = parseArgs({
    args: argv,
    options: { streams: { type: 'string', default: '5000' }, changes: { type: 'string', default: '300' } },
  });
  const nStreams = Number(values.streams);
  const nChanges = Number(values.changes);
  const lines: string[] = [];

  // 1. A real server process; this process is the clients and a separate "worker" process.
  const dataDir = await mkdtemp(join(tmpdir(), 'marionette-bench-events-'));
  const port = 18_090;
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  try {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main/server.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        MARIONETTE_DATA_DIR: dataDir,
        MARIONETTE_PORT: String(port),
        MARIONETTE_HOST: '127.0.0.1',
        MARIONETTE_LOG_LEVEL: 'warn',
        MARIONETTE_WORKERS: 'false',
        MARIONETTE_RATE_LIMITS: 'false',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; i < 300; i++) {
      try {
        if ((await fetch(`${base}/v1/openapi.json`)).ok) break;
      } catch {
        /* starting */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const key = (await readFile(join(dataDir, 'demo-api-key'), 'utf8')).trim();
    const handle = await openDb({ url: `sqlite:${join(dataDir, 'marionette.sqlite')}` });
    const account = (await handle.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow()).id;
    const ids = await insertRenders(handle.db, account, nStreams);
    const before = await rssMb(child.pid!);
    const t0 = Date.now();
    const streams = await openMany(base, key, ids);
    const openMs = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 2000));
    const afterOpen = await rssMb(child.pid!);
    lines.push(
      `- Idle streams held by one server process: **${streams.length}** (each on its own render, each got its snapshot; opened in ${(openMs / 1000).toFixed(1)} s).`,
      `- Server RSS: ${before.toFixed(0)} MB before, ${afterOpen.toFixed(0)} MB with ${streams.length} open streams: **${(((afterOpen - before) * 1024) / streams.length).toFixed(1)} KB per idle stream**.`,
    );
    const cross = await measureLatency(handle.db, new InProcessPubSub(), streams, nChanges, 10_000);
    lines.push(
      `- Cross-process latency (state change written by another process, found by the stream poll, default MARIONETTE_JOB_POLL_MS=500) with ${streams.length} streams open, ${cross.length} changes spread over 10 s: p50 **${pct(cross, 50)} ms**, p99 **${pct(cross, 99)} ms**.`,
    );
    for (const s of streams) s.req.destroy();
    await handle.close();
  } finally {
    child?.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true }).catch(() => {});
  }

  // 2. In-process: API and the state change in one process (npm start with in-process workers).
  const dir2 = await mkdtemp(join(tmpdir(), 'marionette-bench-events-'));
  try {
    const port2 = 18_091;
    const config = loadConfig({
      MARIONETTE_DATA_DIR: dir2,
      MARIONETTE_PORT: String(port2),
      MARIONETTE_HOST: '127.0.0.1',
      MARIONETTE_LOG_LEVEL: 'silent',
      MARIONETTE_WORKERS: 'false',
      MARIONETTE_RATE_LIMITS: 'false',
    });
    const wired = await wire(config);
    const app = await buildHttpApp(wired.deps, { logger: false });
    await app.listen({ port: port2, host: '127.0.0.1' });
    const acct = await createAccount(wired.deps.db, { name: 'bench', credits: 0 });
    const ids = await insertRenders(wired.deps.db, acct.accountId, nChanges);
    const streams = await openMany(`http://127.0.0.1:${port2}`, acct.apiKey, ids);
    const inproc = await measureLatency(wired.deps.db, wired.deps.pubsub, streams, nChanges, 10_000);
    lines.push(
      `- In-process latency (worker in the API process, pub/sub hint), ${inproc.length} changes spread over 10 s: p50 **${pct(inproc, 50)} ms**, p99 **${pct(inproc, 99)} ms** (client in the same process).`,
    );
    for (const s of streams) s.req.destroy();
    await app.close();
    await wired.close();
  } finally {
    await rm(dir2, { recursive: true, force: true }).catch(() => {});
  }

  const md = [
    `## Render event streams`,
    '',
    `\`npm run bench -- events --streams ${nStreams} --changes ${nChanges}\` (SQLite, ${machineLine()}; ${loadNote(loadAtStart)})`,
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(md + '\n');
  writeSection('events', md);
}
