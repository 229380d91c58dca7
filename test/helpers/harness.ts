import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createServer as createHttpServer, get as httpGet, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createAccount } from '../../src/domain/accounts/accounts.service.js';
import { startWorkers } from '../../src/main/workers.js';
import { buildHttpApp, wire, type Wired } from '../../src/main/wire.js';

/**
 * Integration-test harness, the one way a test starts a server:
 * - `startService`: the service in this process on a random loopback port, with a fresh database
 *   per instance (a temp SQLite file, or a fresh PostgreSQL schema dropped afterwards);
 * - `startProcess`: `npm start` (src/main/server.ts) or `npm run worker` as a child process, for
 *   tests about processes (restarts, kills, several API processes, the operator's surface);
 * - `serveHttp`: a loopback HTTP origin a test scripts (a media host, a ComfyUI, a broken server).
 *
 * PostgreSQL runs when MARIONETTE_TEST_PG_URL is set and reachable; otherwise its suites are
 * marked skipped with the reason, so the report says so instead of silently passing.
 */
export type DbKind = 'sqlite' | 'postgres';

export interface DbTarget {
  kind: DbKind;
  /** Set when this target cannot run here; pass to `describe(..., { skip })`. */
  skip: string | false;
}

let pgProbe: Promise<string | false> | null = null;

function probePostgres(): Promise<string | false> {
  const url = process.env.MARIONETTE_TEST_PG_URL;
  if (!url) return Promise.resolve('MARIONETTE_TEST_PG_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)');
  pgProbe ??= (async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return false as const;
    } catch (e) {
      return `PostgreSQL at ${url} is not reachable: ${(e as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return pgProbe;
}

/** The databases every integration suite runs against. */
export async function dbTargets(): Promise<DbTarget[]> {
  const pgSkip = await probePostgres();
  if (pgSkip) process.stdout.write(`# SKIP postgres suites: ${pgSkip}\n`);
  return [
    { kind: 'sqlite', skip: false },
    { kind: 'postgres', skip: pgSkip },
  ];
}

export const SHARED_MEDIA = resolve(import.meta.dirname, '../../../shared/media');
export function mediaFile(rel: string): string {
  return join(SHARED_MEDIA, rel);
}
export function hasSharedMedia(): boolean {
  return existsSync(SHARED_MEDIA);
}
export const NO_MEDIA_REASON = `shared media not found at ${SHARED_MEDIA}`;

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (a && typeof a !== 'string' ? resolvePort(a.port) : reject(new Error('no port'))));
    });
  });
}

export interface TestService {
  baseUrl: string;
  app: FastifyInstance;
  wired: Wired;
  config: Config;
  apiKey: string;
  accountId: string;
  /** Another account (for ownership tests). */
  newAccount(credits?: number): Promise<{ apiKey: string; accountId: string }>;
  /** fetch against the service with the default key unless headers override it. */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

export interface StartOptions {
  db: DbKind;
  workers?: boolean;
  credits?: number;
  env?: Record<string, string>;
}

export async function startService(opts: StartOptions): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'marionette-test-'));
  const schema = opts.db === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const env: Record<string, string> = {
    MARIONETTE_DATA_DIR: dataDir,
    MARIONETTE_HOST: '127.0.0.1',
    MARIONETTE_LOG_LEVEL: 'silent',
    MARIONETTE_WORKERS: String(opts.workers ?? false),
    MARIONETTE_JOB_POLL_MS: '100',
    // Tests start many short-lived services; loading models they may never use only costs time.
    MARIONETTE_ENGINE_WARMUP: 'false',
    MARIONETTE_RATE_LIMITS: 'false',
    ...(opts.db === 'postgres' ? { MARIONETTE_DATABASE_URL: process.env.MARIONETTE_TEST_PG_URL! } : {}),
    ...opts.env,
  };
  // Signed URLs embed the public URL, so the port is chosen before the service is built.
  const port = await freePort();
  env.MARIONETTE_PORT = String(port);
  env.MARIONETTE_PUBLIC_URL = `http://127.0.0.1:${port}`;
  const config = loadConfig(env);
  const wired = await wire(config, { schema });
  const app = await buildHttpApp(wired.deps, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const baseUrl = config.publicUrl;
  if (config.workers.enabled) await startWorkers(wired.deps);
  const main = await createAccount(wired.deps.db, { name: 'test', credits: opts.credits ?? 100 });

  return {
    baseUrl,
    app,
    wired,
    config,
    apiKey: main.apiKey,
    accountId: main.accountId,
    async newAccount(credits = 100) {
      const a = await createAccount(wired.deps.db, { name: 'other', credits });
      return { apiKey: a.apiKey, accountId: a.accountId };
    },
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      const key = init.key === undefined ? main.apiKey : init.key;
      if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
      const send = () => fetch(baseUrl + path, { ...init, headers, redirect: 'manual' });
      // A read sent on a pooled keep-alive connection the server closed at the same moment fails
      // before any answer (the service and the test share one event loop, and engine work can hold
      // it past the keep-alive timeout). Reads are retried once, as HTTP clients do; writes never.
      const method = (init.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && method !== 'HEAD') return send();
      return send().catch((e: any) => {
        if (['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(e?.cause?.code)) return send();
        throw e;
      });
    },
    async close() {
      await app.close();
      await wired.close();
      if (schema) {
        const c = new pg.Client({ connectionString: process.env.MARIONETTE_TEST_PG_URL });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`).finally(() => c.end());
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads a JSON error envelope and returns it with the response's request ID header. */
export async function errorOf(res: Response): Promise<{ status: number; code: string; body: any; requestId: string | null }> {
  const body = (await res.json()) as any;
  return { status: res.status, code: body?.error?.code, body, requestId: res.headers.get('x-request-id') };
}

/** A loopback HTTP origin scripted by the test (for URL inputs, fake backends, broken servers). */
export interface HttpOrigin {
  server: Server;
  port: number;
  /** `http://<host>:<port>` */
  url: string;
  close(): Promise<void>;
}

export async function serveHttp(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<HttpOrigin> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolveListen());
  });
  const port = (server.address() as { port: number }).port;
  return {
    server,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

/** The environment of a child process: the parent's without MARIONETTE_* and the test runner's variables. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MARIONETTE_') && !k.startsWith('NODE_TEST')) env[k] = v;
  return { ...env, ...extra };
}

export interface ProcessOptions {
  /** MARIONETTE_* settings of the child (data dir, database, ...). */
  env: Record<string, string>;
  /** The API port (a server process only); a free one when not given, the same one for a restart. */
  port?: number;
  /** How long to wait until ready (default 120 s for a server, 240 s for a worker, which loads the engine first). */
  timeoutMs?: number;
}

export interface ChildService {
  proc: ChildProcess;
  /** The API's base URL (a server process; '' for a worker). */
  baseUrl: string;
  port: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Only its stdout so far. */
  stdout(): string;
  /** SIGTERM (or the given signal), resolved once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `src/main/server.ts` or `src/main/worker.ts` as a child process with only the given
 * MARIONETTE_* settings (plus loopback host, port and public URL, and rate limits off, for a
 * server). Ready means: a server answers `GET /v1/openapi.json` and has printed its banner (which
 * ends with the API description line), a worker has logged that it started.
 */
export async function startProcess(kind: 'server' | 'worker', opts: ProcessOptions): Promise<ChildService> {
  const port = kind === 'server' ? (opts.port ?? (await freePort())) : 0;
  const baseUrl = kind === 'server' ? `http://127.0.0.1:${port}` : '';
  const env =
    kind === 'server'
      ? {
          MARIONETTE_HOST: '127.0.0.1',
          MARIONETTE_PUBLIC_URL: baseUrl,
          MARIONETTE_RATE_LIMITS: 'false',
          MARIONETTE_LOG_LEVEL: 'warn',
          ...opts.env,
          MARIONETTE_PORT: String(port),
        }
      : { MARIONETTE_LOG_LEVEL: 'warn', ...opts.env };
  const entry = kind === 'server' ? 'src/main/server.ts' : 'src/main/worker.ts';
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  proc.stdout!.on('data', (b) => {
    out += b;
    stdout += b;
  });
  proc.stderr!.on('data', (b) => (out += b));
  const child: ChildService = {
    proc,
    baseUrl,
    port,
    output: () => out,
    stdout: () => stdout,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolveStop) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolveStop();
        proc.once('exit', () => resolveStop());
        proc.kill(signal);
      }),
  };
  const timeoutMs = opts.timeoutMs ?? (kind === 'server' ? 120_000 : 240_000);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`${kind} process exited (${proc.exitCode ?? proc.signalCode}): ${out}`);
    if (kind === 'worker' ? /marionette worker started/.test(out) : stdout.includes('openapi.json') && (await answers(baseUrl)))
      return child;
    if (Date.now() > deadline) {
      await child.stop('SIGKILL');
      throw new Error(`${kind} process did not start within ${timeoutMs} ms: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Whether the API answers, on a connection of its own that is closed afterwards: a pooled keep-alive
 * socket left by this probe could be closed by the server (keep-alive timeout) just as the test's
 * next request picks it up, which fails that request with "other side closed".
 */
function answers(baseUrl: string): Promise<boolean> {
  return new Promise((resolveProbe) => {
    const req = httpGet(`${baseUrl}/v1/openapi.json`, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolveProbe(res.statusCode === 200));
      res.on('error', () => resolveProbe(false));
    });
    req.on('error', () => resolveProbe(false));
  });
}
