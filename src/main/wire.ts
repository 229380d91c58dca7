import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/config.js';
import type { FastifyInstance } from 'fastify';
import type { Ports } from '../domain/ports/index.js';
import {
  idempotencyService,
  accountsService,
  charactersService,
  creditsService,
  draftsService,
  filesService,
  motionsService,
  rendersService,
  streamsService,
  videosService,
  type ServiceSet,
  type Services,
} from '../domain/services.js';
import { buildApp } from '../http/app.js';
import type { ConsoleSettings } from '../http/routes/console.routes.js';
import { sdkBundle } from '../infra/console/sdk-bundle.js';
import { systemClock } from '../infra/clock/system-clock.js';
import { migrate, openDb, type DbHandle } from '../infra/db/database.js';
import { InProcessPubSub } from '../infra/pubsub/in-process-pubsub.js';
import { DiskStorage } from '../infra/storage/disk-storage.js';
import { UrlSigner } from '../infra/storage/signer.js';
import { EmbeddedQueue } from '../infra/queue/embedded-queue.js';
import { createEngine, writeSoundtrack } from '../engine/index.js';
import { comfyUiGenerator } from '../infra/generators/comfyui.js';
import { embeddedGenerator } from '../jobs/generators/embedded.js';
import { resolveTools } from '../engine/media/ffmpeg.js';
import { RedisPubSub } from '../infra/pubsub/redis-pubsub.js';
import { BullMqQueue } from '../infra/queue/bullmq-queue.js';
import { RedisRateLimitStore } from '../infra/ratelimit/redis-rate-limit-store.js';
import { closeRedis, redisConnection } from '../infra/redis/connection.js';
import { S3Storage } from '../infra/storage/s3-storage.js';
import { serviceMetrics, type Metrics } from '../infra/metrics/metrics.js';
import { queuedCounts } from '../infra/queue/jobs.repository.js';
import { sql } from 'kysely';
import type { JobQueue, PubSub, Storage } from '../domain/ports/index.js';
import type { RateLimitStore } from '../infra/ratelimit/rate-limiter.js';
import type { Redis } from 'ioredis';
import { followKeyRevocations, type KeyRevocationFeed } from '../domain/accounts/key-revocations.js';
import { FileSignalBus } from '../infra/pubsub/file-signal-bus.js';
import { signalFileOf } from '../config/database-url.js';

/**
 * The composition root: builds every adapter from the config. Entrypoints (server, worker, admin)
 * call this and nothing else builds infrastructure. `deps` is the composition root's own record of
 * what it built; nothing outside src/main (and tests) receives it whole: services, handlers and
 * routes each get the part they declare (see `buildHttpApp` and `startWorkers`).
 */
export type Adapters = Ports & {
  /** Shared rate-limit buckets (Redis) when configured. */
  rateLimitStore?: RateLimitStore;
  /** This process's Prometheus registry. */
  metrics: Metrics;
  /** Readiness checks (`/readyz`). */
  probes: Record<string, () => Promise<boolean>>;
  /** API-key revocations pushed by other processes (Redis pub/sub), followed by the key caches. */
  keyRevocations?: KeyRevocationFeed;
};

export interface Wired {
  deps: Adapters;
  dbHandle: DbHandle;
  close(): Promise<void>;
}

/** The signing secret: from config, else generated once and kept in the data dir (mode 0600). */
function signingSecret(config: Config): string {
  if (config.signingSecret) return config.signingSecret;
  const file = join(config.dataDir, 'signing-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

export async function wire(config: Config, opts: { schema?: string } = {}): Promise<Wired> {
  mkdirSync(config.dataDir, { recursive: true });
  const tmpDir = join(config.dataDir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  // A test's own schema wins over the configured one (each test file gets a fresh schema).
  const schema = opts.schema ?? config.databaseSchema ?? undefined;
  const dbHandle = await openDb({ url: config.databaseUrl, schema });
  await migrate(dbHandle.db, { schema: dbHandle.dialect === 'postgres' ? schema : undefined });
  const signer = new UrlSigner(signingSecret(config));
  const closers: (() => Promise<void> | void)[] = [];
  const probes: Record<string, () => Promise<boolean>> = {
    database: async () => {
      await sql`select 1`.execute(dbHandle.db);
      return true;
    },
  };

  let storage: Storage;
  if (config.storage.driver === 's3' && config.storage.s3) {
    const s3 = new S3Storage(config.storage.s3);
    await s3.ensureBucket();
    storage = s3;
    probes.storage = () => s3.ping();
    closers.push(() => s3.close());
  } else {
    storage = new DiskStorage(config.storage.root, config.publicUrl, signer);
  }

  const redisUrl = config.redis.url;
  const prefix = config.redis.prefix;
  let pubsub: PubSub;
  let keyRevocations: KeyRevocationFeed | undefined;
  if (config.pubsub.driver === 'redis' && redisUrl) {
    const bus = new RedisPubSub(redisUrl, prefix);
    pubsub = bus;
    probes.redis = () => bus.ping();
    keyRevocations = await followKeyRevocations(bus);
  } else {
    pubsub = new InProcessPubSub();
    // SQLite: the processes sharing the database file share a machine, so revocations announced by
    // the admin command reach every process through a file beside the database.
    const signals = signalFileOf(config.databaseUrl);
    if (signals !== null) {
      const bus = FileSignalBus.open(signals);
      keyRevocations = await followKeyRevocations(bus);
      closers.push(() => bus.close());
    }
  }

  let rateLimitStore: RateLimitStore | undefined;
  let rateRedis: Redis | null = null;
  if (config.rateLimitStore.driver === 'redis' && redisUrl) {
    rateRedis = redisConnection(redisUrl, { name: `${prefix}:ratelimit`, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    rateLimitStore = new RedisRateLimitStore(rateRedis, prefix);
    const conn = rateRedis;
    closers.push(() => closeRedis(conn));
  }

  const tools = resolveTools({ FFMPEG_PATH: config.tools.ffmpeg, FFPROBE_PATH: config.tools.ffprobe });
  const engine = createEngine({ tools, tmpDir });
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  let queue: JobQueue;
  const metrics = serviceMetrics();
  if (config.queue.driver === 'bullmq' && redisUrl) {
    const bull = new BullMqQueue(dbHandle.db, pubsub, {
      redisUrl,
      prefix,
      workerId,
      lockMs: config.queue.lockMs,
      stalledIntervalMs: config.queue.stalledIntervalMs,
      relayMs: config.queue.relayMs,
      leaseMs: config.workers.leaseMs,
      heartbeatMs: config.workers.heartbeatMs,
    });
    queue = bull;
    probes.queue = () => bull.ping();
    metrics.gauge('marionette_bullmq_jobs', 'Jobs in Redis by BullMQ state.', async () =>
      Object.entries(await bull.depth()).map(([state, value]) => ({ labels: { state }, value })),
    );
  } else {
    queue = new EmbeddedQueue(dbHandle.db, pubsub, {
      workerId,
      leaseMs: config.workers.leaseMs,
      heartbeatMs: config.workers.heartbeatMs,
      pollMs: config.workers.pollMs,
      dialect: dbHandle.dialect,
      leaseKeeper: { url: config.databaseUrl, schema: dbHandle.dialect === 'postgres' ? (schema ?? null) : null },
    });
  }
  metrics.gauge('marionette_queue_depth', 'Jobs in the record (database) that are queued or running, by type and status.', async () =>
    (await queuedCounts(dbHandle.db)).map((r) => ({ labels: { type: r.type, status: r.status }, value: r.n })),
  );
  const g = config.generator;
  const generator =
    g.driver === 'comfyui' && g.comfyuiUrl
      ? comfyUiGenerator({
          baseUrl: g.comfyuiUrl,
          workflowDir: g.comfyuiWorkflowDir,
          ffmpeg: tools.ffmpeg,
          timeoutMs: g.timeoutMs,
          soundtrack: (req, durationS, file) =>
            writeSoundtrack(
              { prompt: req.prompt, tags: req.tags, seed: req.seed, durationS, workDir: req.workDir, signal: req.signal },
              file,
            ),
        })
      : embeddedGenerator({ engine, storage });
  const deps: Adapters = {
    config,
    db: dbHandle.db,
    dialect: dbHandle.dialect,
    storage,
    signer,
    pubsub,
    queue,
    engine,
    generator,
    clock: systemClock,
    tmpDir,
    rateLimitStore,
    metrics,
    probes,
    keyRevocations,
  };
  return {
    deps,
    dbHandle,
    async close() {
      await queue.stop();
      await keyRevocations?.close();
      await pubsub.close();
      for (const c of closers) await c();
      await dbHandle.close();
    },
  };
}

/**
 * The web console's files (console/ in the checkout) and the SDK bundled for it from
 * packages/sdk/src, built once per process: at start by server.ts, else at its first request.
 */
let consoleOnce: ConsoleSettings | null = null;
export function consoleSettings(): ConsoleSettings {
  consoleOnce ??= {
    dir: fileURLToPath(new URL('../../console', import.meta.url)),
    sdk: sdkBundle(fileURLToPath(new URL('../../packages/sdk/src/index.ts', import.meta.url))),
  };
  return consoleOnce;
}

/** The HTTP application: routes receive the services built from the adapters, and the HTTP settings. */
export function buildHttpApp(deps: Adapters, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  return buildApp(
    buildServices(deps),
    {
      config: deps.config,
      tmpDir: deps.tmpDir,
      rateLimitStore: deps.rateLimitStore,
      metrics: deps.metrics,
      probes: deps.probes,
      console: consoleSettings(),
      keyRevocations: deps.keyRevocations,
    },
    opts,
  );
}

/**
 * The configuration the Legacy routes' services see: V1's, with the Legacy limits on direct
 * driving-video uploads (spec 8: 10 minutes, 100 MB) in place of V1's.
 */
export function legacyConfig(config: Config): Config {
  const l = config.legacy;
  return Object.freeze({ ...config, limits: Object.freeze({ ...config.limits, videoBytes: l.videoBytes, videoMaxMs: l.videoMaxMs }) });
}

/** Each service gets the ports it declares (TypeScript checks the narrow types). */
export function buildServices(deps: Adapters): Services {
  // Everything but `config` is read through to the one set of adapters (not a copy of it).
  const legacyDeps = Object.create(deps, { config: { value: legacyConfig(deps.config), enumerable: true } }) as Adapters;
  return { ...buildV1Services(deps), legacy: buildV1Services(legacyDeps) };
}

function buildV1Services(deps: Adapters): ServiceSet {
  return {
    accounts: accountsService(deps.db),
    credits: creditsService(deps.db),
    characters: charactersService(deps),
    motions: motionsService(deps),
    renders: rendersService(deps),
    drafts: draftsService(deps),
    videos: videosService(deps),
    files: filesService(deps),
    streams: streamsService(deps),
    idempotency: idempotencyService(deps),
  };
}
