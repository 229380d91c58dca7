/**
 * `npm run cluster`: the distributed topology of deploy/compose.yaml as local processes, for
 * development, the tests and `npm run bench -- cluster`. PostgreSQL, Redis and an S3-compatible
 * store are shared; every API process (`npm start` with MARIONETTE_WORKERS=false) and every worker
 * (`npm run worker`) has its own data dir, so nothing but those three services is shared, as
 * between machines. Configuration is by environment variables only, as in the compose file.
 *
 *   MARIONETTE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *   MARIONETTE_REDIS_URL=redis://127.0.0.1:6379 npm run cluster -- --apis 2 --workers 2
 *
 * Without MARIONETTE_S3_ENDPOINT an s3rver (dev dependency) is started on a loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface ClusterOptions {
  apis: number;
  workers: number;
  databaseUrl: string;
  /** PostgreSQL schema of this cluster (created by the first API process). */
  schema?: string;
  redisUrl: string;
  redisPrefix?: string;
  /** MARIONETTE_S3_* variables of an existing store; an s3rver is started when absent. */
  s3Env?: Record<string, string>;
  /** Extra variables for every process. */
  env?: Record<string, string>;
  workerEnv?: Record<string, string>;
  baseDir?: string;
  /** Where process output goes (default: kept in memory, see `output`). */
  echo?: boolean;
}

export interface ClusterProcess {
  name: string;
  role: 'api' | 'worker';
  port: number;
  baseUrl: string;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** Sends `signal` and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the same process again (same port, data dir and environment). */
  restart(): Promise<void>;
}

export interface Cluster {
  apis: ClusterProcess[];
  workers: ClusterProcess[];
  env: Record<string, string>;
  baseDir: string;
  addWorker(): Promise<ClusterProcess>;
  close(): Promise<void>;
}

const ROOT = resolve(import.meta.dirname, '../..');

/** The default topology, the same as deploy/compose.yaml's (2 API services, 2 worker replicas). */
export const CLUSTER_DEFAULTS = { apis: 2, workers: 2 } as const;

/**
 * The variables that make a process an API process or a worker, on top of the shared ones (the
 * same split as deploy/compose.yaml's services; test/unit/deploy-topology.test.ts compares them).
 */
export function roleEnv(role: 'api' | 'worker', port: number, workerEnv: Record<string, string> = {}): Record<string, string> {
  return role === 'api'
    ? { MARIONETTE_PORT: String(port), MARIONETTE_PUBLIC_URL: `http://127.0.0.1:${port}`, MARIONETTE_WORKERS: 'false' }
    : { MARIONETTE_WORKER_HTTP_PORT: String(port), ...workerEnv };
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (a && typeof a !== 'string' ? ok(a.port) : fail(new Error('no port'))));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, out: () => string, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before it was ready:\n${out().slice(-3000)}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${out().slice(-3000)}`);
}

/** Starts an s3rver on a loopback port; returns the MARIONETTE_S3_* variables and its closer. */
export async function startS3rver(
  dir: string,
  bucket = 'marionette',
): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  // @ts-expect-error s3rver ships no types (a dev dependency: for local clusters and tests only)
  const { default: S3rver } = await import('s3rver');
  await mkdir(dir, { recursive: true });
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const addr = (await server.run()) as { port: number };
  return {
    env: {
      MARIONETTE_STORAGE: 's3',
      MARIONETTE_S3_ENDPOINT: `http://127.0.0.1:${addr.port}`,
      MARIONETTE_S3_BUCKET: bucket,
      MARIONETTE_S3_ACCESS_KEY_ID: 'S3RVER',
      MARIONETTE_S3_SECRET_ACCESS_KEY: 'S3RVER',
      MARIONETTE_S3_FORCE_PATH_STYLE: 'true',
    },
    close: () => server.close(),
  };
}

/** What every process of the cluster shares: the three services and the signing secret. */
export function sharedEnv(
  opts: Pick<ClusterOptions, 'databaseUrl' | 'schema' | 'redisUrl' | 'redisPrefix' | 's3Env' | 'env'>,
): Record<string, string> {
  return {
    MARIONETTE_DATABASE_URL: opts.databaseUrl,
    ...(opts.schema ? { MARIONETTE_DATABASE_SCHEMA: opts.schema } : {}),
    MARIONETTE_REDIS_URL: opts.redisUrl,
    MARIONETTE_REDIS_PREFIX: opts.redisPrefix ?? 'marionette',
    MARIONETTE_SIGNING_SECRET: randomBytes(24).toString('hex'),
    MARIONETTE_HOST: '127.0.0.1',
    ...opts.s3Env,
    ...opts.env,
  };
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const baseDir = opts.baseDir ?? (await mkdtemp(join(tmpdir(), 'marionette-cluster-')));
  let s3Close: (() => Promise<void>) | null = null;
  let s3Env = opts.s3Env;
  if (!s3Env) {
    const s3 = await startS3rver(join(baseDir, 's3'));
    s3Env = s3.env;
    s3Close = s3.close;
  }
  const shared = sharedEnv({ ...opts, s3Env });
  const procs: ClusterProcess[] = [];

  async function launch(role: 'api' | 'worker', index: number): Promise<ClusterProcess> {
    const name = `${role}-${index}`;
    const dataDir = join(baseDir, name);
    await mkdir(dataDir, { recursive: true });
    const port = await freePort();
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...shared,
      MARIONETTE_DATA_DIR: dataDir,
      ...roleEnv(role, port, opts.workerEnv),
    };
    for (const k of Object.keys(env)) if (k.startsWith('MARIONETTE_TEST_')) delete env[k];
    let out = '';
    const p: ClusterProcess = {
      name,
      role,
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      dataDir,
      child: null as unknown as ChildProcess,
      output: () => out,
      async kill(signal = 'SIGTERM') {
        const c = p.child;
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill(signal);
        await exited;
      },
      async restart() {
        await p.kill('SIGKILL');
        spawnIt();
        await waitReady(`${p.baseUrl}/${role === 'api' ? 'readyz' : 'healthz'}`, p.child, p.output);
      },
    };
    const spawnIt = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', role === 'api' ? 'src/main/server.ts' : 'src/main/worker.ts'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const take = (b: Buffer) => {
        out += b.toString();
        if (out.length > 2_000_000) out = out.slice(-1_000_000);
        if (opts.echo) process.stderr.write(`[${name}] ${b.toString()}`);
      };
      child.stdout!.on('data', take);
      child.stderr!.on('data', take);
      p.child = child;
    };
    spawnIt();
    procs.push(p);
    await waitReady(`${p.baseUrl}/${role === 'api' ? 'readyz' : 'healthz'}`, p.child, p.output);
    return p;
  }

  const apis: ClusterProcess[] = [];
  const workers: ClusterProcess[] = [];
  try {
    // The first API process migrates an empty schema; the others start once it is ready.
    apis.push(await launch('api', 0));
    const rest = await Promise.all([
      ...Array.from({ length: opts.apis - 1 }, (_, i) => launch('api', i + 1)),
      ...Array.from({ length: opts.workers }, (_, i) => launch('worker', i)),
    ]);
    for (const p of rest) (p.role === 'api' ? apis : workers).push(p);
  } catch (e) {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await s3Close?.();
    throw e;
  }
  return {
    apis,
    workers,
    env: shared,
    baseDir,
    async addWorker() {
      const w = await launch('worker', workers.length);
      workers.push(w);
      return w;
    },
    async close() {
      await Promise.all(procs.map((p) => p.kill('SIGTERM')));
      await s3Close?.();
      if (!opts.baseDir) await rm(baseDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      apis: { type: 'string', default: String(CLUSTER_DEFAULTS.apis) },
      workers: { type: 'string', default: String(CLUSTER_DEFAULTS.workers) },
    },
  });
  const databaseUrl = process.env.MARIONETTE_DATABASE_URL;
  if (!databaseUrl?.startsWith('postgres')) throw new Error('set MARIONETTE_DATABASE_URL to a PostgreSQL URL (the cluster shares it)');
  const s3Env = process.env.MARIONETTE_S3_ENDPOINT
    ? (Object.fromEntries(
        Object.entries(process.env).filter(([k]) => k.startsWith('MARIONETTE_S3_') || k === 'MARIONETTE_STORAGE'),
      ) as Record<string, string>)
    : undefined;
  const cluster = await startCluster({
    apis: Number(values.apis),
    workers: Number(values.workers),
    databaseUrl,
    schema: process.env.MARIONETTE_DATABASE_SCHEMA,
    redisUrl: process.env.MARIONETTE_REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: process.env.MARIONETTE_REDIS_PREFIX,
    s3Env: s3Env ? { MARIONETTE_STORAGE: 's3', ...s3Env } : undefined,
    echo: true,
  });
  process.stdout.write(
    `cluster up: ${cluster.apis.map((a) => `${a.name} ${a.baseUrl}`).join(', ')}; ${cluster.workers.map((w) => `${w.name} (health ${w.baseUrl}/healthz)`).join(', ')}\n` +
      `storage: ${cluster.env.MARIONETTE_S3_ENDPOINT} bucket ${cluster.env.MARIONETTE_S3_BUCKET}; data dirs under ${cluster.baseDir}\n`,
  );
  const stop = async () => {
    await cluster.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
