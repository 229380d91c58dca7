/**
 * HTTP read-path load: GET /v1/credits, GET /v1/videos/{id} and GET /v1/videos against a real server process
 * (SQLite, workers off, rate limits off), next to a bare Fastify hello-world measured in the same
 * run on the same machine, each with autocannon from this process. Reports each read's share of the
 * baseline's requests per second (targets, issue #14: credits >= 50%, the two video reads >= 35%)
 * and the API process's resident memory (workers off: no model may be loaded).
 *
 *   npm run bench -- http [--seconds 10] [--connections 50] [--db sqlite|postgres]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { machineLine, writeSection } from './_report.js';
import { freePort } from './_net.js';

const ROOT = resolve(import.meta.dirname, '..');

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function serverRssMb(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return NaN;
  }
}

function startChild(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function waitFor(url: string, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(url, { headers });
      if (r.status < 500) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

async function load(name: string, url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<Row> {
  const r = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      db: { type: 'string', default: 'sqlite' },
    },
  });
  const loadAtStart = loadavg()[0];
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const dataDir = await mkdtemp(join(tmpdir(), 'marionette-bench-http-'));
  const pgUrl = process.env.MARIONETTE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pgSchema = `bench_http_${process.pid}`;
  const children: ChildProcess[] = [];
  try {
    const helloPort = await freePort();
    children.push(startChild(['bench/_hello.ts', String(helloPort)], {}));
    await waitFor(`http://127.0.0.1:${helloPort}/`);

    const port = await freePort();
    const env: Record<string, string> = {
      MARIONETTE_DATA_DIR: dataDir,
      MARIONETTE_PORT: String(port),
      MARIONETTE_HOST: '127.0.0.1',
      MARIONETTE_WORKERS: 'false',
      MARIONETTE_RATE_LIMITS: 'false',
      MARIONETTE_LOG_LEVEL: 'warn',
    };
    if (values.db === 'postgres') {
      // A schema of its own, dropped afterwards, so the bench never touches other data.
      env.MARIONETTE_DATABASE_URL = pgUrl;
      env.MARIONETTE_DATABASE_SCHEMA = pgSchema;
    }
    children.push(startChild(['src/main/server.ts'], env));
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/v1/openapi.json`);
    const key = (await readFile(join(dataDir, 'demo-api-key'), 'utf8')).trim();
    const auth = { authorization: `Bearer ${key}` };
    // No body: the default render (an empty multipart form is refused since request-body hardening).
    const created = await fetch(`${base}/v1/renders`, { method: 'POST', headers: auth });
    const render = (await created.json()) as { id?: string };
    if (!render.id) throw new Error(`could not create a render: ${JSON.stringify(render)}`);

    const rows: Row[] = [];
    rows.push(await load('bare Fastify hello-world', `http://127.0.0.1:${helloPort}/`, {}, seconds, connections));
    rows.push(await load('GET /v1/credits', `${base}/v1/credits`, auth, seconds, connections));
    rows.push(await load('GET /v1/videos/{id}', `${base}/v1/videos/${render.id}`, auth, seconds, connections));
    rows.push(await load('GET /v1/videos', `${base}/v1/videos`, auth, seconds, connections));
    // The baseline again at the end: the machine is shared, so its speed is the mean of both runs.
    const again = await load('bare Fastify hello-world', `http://127.0.0.1:${helloPort}/`, {}, seconds, connections);
    rows[0] = {
      ...rows[0],
      rps: (rows[0].rps + again.rps) / 2,
      p50: Math.max(rows[0].p50, again.p50),
      p99: Math.max(rows[0].p99, again.p99),
    };
    const rssMb = serverRssMb(children[1].pid!);
    const targets: Record<string, number> = { 'GET /v1/credits': 0.5, 'GET /v1/videos/{id}': 0.35, 'GET /v1/videos': 0.35 };

    const table = [
      `## HTTP read path`,
      '',
      `\`npm run bench -- http --seconds ${seconds} --connections ${connections} --db ${values.db}\` (${machineLine()}; autocannon in the bench process, server in its own process, 2 cores shared).`,
      '',
      '| endpoint | req/s | share of bare | target | p50 ms | p99 ms | errors | non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => {
        const share = r.rps / rows[0].rps;
        const target = targets[r.name];
        const verdict = target === undefined ? '' : `>= ${Math.round(target * 100)}% ${share >= target ? 'met' : '**missed**'}`;
        return `| ${r.name} | ${Math.round(r.rps)} | ${(share * 100).toFixed(0)}% | ${verdict} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`;
      }),
      '',
      `API process (\`MARIONETTE_WORKERS=false\`) resident memory after the load: ${rssMb} MB. 1-min load average ${loadAtStart.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at the end (${cpus().length} CPUs, shared with other work).`,
    ].join('\n');
    writeSection(`http-${values.db}`, table);
    process.stdout.write(table + '\n');
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
    if (values.db === 'postgres') {
      await new Promise((r) => setTimeout(r, 500));
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`drop schema if exists ${pgSchema} cascade`).finally(() => client.end());
    }
  }
}
