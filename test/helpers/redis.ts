import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../src/infra/redis/connection.js';
import { freePort } from './harness.js';

/**
 * Redis for tests. `ownRedis()` starts a private `redis-server` (Debian package) on a free loopback
 * port that a test may kill and restart (never the machine's shared Redis); `sharedRedis()` uses
 * MARIONETTE_TEST_REDIS_URL (default redis://127.0.0.1:6379) under a unique key prefix that is
 * deleted afterwards. Each says why when it cannot run, for `describe(..., { skip })`.
 */
export interface TestRedis {
  url: string;
  prefix: string;
  skip: string | false;
  /** Present for a private server: SIGKILL it (its data is not persisted, as after a crash). */
  kill?(): Promise<void>;
  start?(): Promise<void>;
  close(): Promise<void>;
}

async function reachable(url: string): Promise<string | false> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.ping();
    return false;
  } catch (e) {
    return `Redis at ${url} is not reachable: ${(e as Error).message}`;
  } finally {
    r.disconnect();
  }
}

export async function sharedRedis(): Promise<TestRedis> {
  const url = process.env.MARIONETTE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `mt${randomBytes(5).toString('hex')}`;
  const skip = await reachable(url);
  if (skip) process.stdout.write(`# SKIP redis suites: ${skip}\n`);
  return {
    url,
    prefix,
    skip,
    async close() {
      if (skip) return;
      const r = new Redis(url, { maxRetriesPerRequest: 1 });
      await deleteKeysWithPrefix(r, prefix).finally(() => r.disconnect());
    },
  };
}

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export async function ownRedis(): Promise<TestRedis> {
  const prefix = `mt${randomBytes(5).toString('hex')}`;
  if (!hasRedisServer()) {
    const why = 'redis-server is not installed (apt-get install redis-server; .ci/run installs it)';
    process.stdout.write(`# SKIP private-redis suites: ${why}\n`);
    return { url: '', prefix, skip: why, close: async () => {} };
  }
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'marionette-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      if (!(await reachable(url))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on ${port} did not start`);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url,
    prefix,
    skip: false,
    kill,
    start,
    async close() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
