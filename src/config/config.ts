import { resolve } from 'node:path';
import { signalFileOf } from './database-url.js';

/**
 * Every setting of the service, parsed once from `MARIONETTE_*` environment variables at process
 * start, validated, frozen and passed in. No module below `src/main` reads `process.env`.
 */
export interface Config {
  port: number;
  host: string;
  /** Public base URL used in links and signed URLs (default http://localhost:<port>). */
  publicUrl: string;
  dataDir: string;
  databaseUrl: string;
  /**
   * PostgreSQL schema holding the service's tables (created if missing), or null for the
   * connection's default search path. Lets several installations share one database.
   */
  databaseSchema: string | null;
  /**
   * `disk` (under dataDir/storage, URLs served and signed by the API) or `s3` (any S3-compatible
   * object store; URLs are presigned by the store, nothing but per-job scratch stays on local disk).
   */
  storage: { driver: 'disk' | 's3'; root: string; s3: S3Config | null };
  /**
   * Redis, when the deployment has one (`MARIONETTE_REDIS_URL`). Each of queue, pub/sub and rate
   * limits picks its adapter separately; all keys and channels start with `prefix`.
   */
  redis: { url: string | null; prefix: string };
  /** Job queue: `embedded` (claims from the database) or `bullmq` (Redis). */
  queue: { driver: 'embedded' | 'bullmq'; lockMs: number; stalledIntervalMs: number; relayMs: number };
  /** Live notifications between processes: `memory` (one process) or `redis` (pub/sub). */
  pubsub: { driver: 'memory' | 'redis' };
  /** Where rate-limit buckets live: `memory` (per process) or `redis` (shared by every API process). */
  rateLimitStore: { driver: 'memory' | 'redis' };
  /** The `/metrics` endpoint (Prometheus text); off when false. */
  metrics: boolean;
  /** Secret used to sign output and upload URLs. */
  signingSecret: string;
  /** Whether this process runs workers (`npm start`: yes, unless disabled). */
  workers: {
    enabled: boolean;
    warmUp: boolean;
    concurrency: number;
    /** `npm run worker`'s health/metrics port (null: none). */ httpPort: number | null;
    leaseMs: number;
    heartbeatMs: number;
    maxAttempts: number;
    pollMs: number;
  };
  events: { heartbeatMs: number; historyHours: number };
  /**
   * Idempotency-Key handling (docs/retrying.md): how long a request waits for a concurrent one with
   * its key before answering 409 in_progress, and how long a pending key stays locked when the
   * process handling it died.
   */
  idempotency: { waitMs: number; lockMs: number };
  /**
   * Bounds on every request whatever its body does: `requestTimeoutMs` for the whole request (body
   * included), `idleTimeoutMs` for a connection on which no byte moves.
   */
  http: { requestTimeoutMs: number; idleTimeoutMs: number };
  limits: {
    bodyBytes: number;
    imageBytes: number;
    imageMaxSide: number;
    videoBytes: number;
    videoMinMs: number;
    videoMaxMs: number;
    videoMinSide: number;
    videoMaxSide: number;
    urlFetchTimeoutMs: number;
    /** Time budget of the decode check of a video at the door (start, middle, end); 0 turns it off. */
    videoDecodeCheckMs: number;
  };
  /**
   * API-key cache (#14): TTL of a looked-up key. `confirmEachUse`: each use of a cached key reads its
   * revocation state; the default only for PostgreSQL without Redis pub/sub. With Redis, or on a
   * SQLite file (whose processes share a machine: infra/pubsub/file-signal-bus.ts), revocations are
   * pushed to every process instead (src/domain/accounts/key-revocations.ts) and the default is off.
   */
  apiKeyCache: { ttlMs: number; confirmEachUse: boolean };
  rateLimits: { createPerSecond: number; createBurst: number; readPerSecond: number; enabled: boolean };
  /** Hosts/CIDRs an operator allows URL inputs to reach although they are not public. */
  urlAllowList: string[];
  outputUrlTtlSeconds: number;
  uploadUrlTtlSeconds: number;
  draftTtlSeconds: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  tools: { ffmpeg: string | undefined; ffprobe: string | undefined };
  /**
   * Which video generator the workers run for POST /v1/videos (H3 mode): the embedded CPU one, or a
   * ComfyUI server (GPU) at `comfyuiUrl` running the workflow files in `comfyuiWorkflowDir`.
   */
  generator: { driver: 'embedded' | 'comfyui'; comfyuiUrl: string | null; comfyuiWorkflowDir: string; timeoutMs: number };
  /**
   * The deprecated Legacy interface under /api (docs/legacy.md). `openStatus`: GET /api/render/{job_id}
   * answers without a credential (the job ID is the capability). Direct driving-video uploads through
   * /api have their own limits (spec 8: 10 minutes, 100 MB) instead of the V1 ones.
   */
  legacy: { openStatus: boolean; videoBytes: number; videoMaxMs: number };
}

export interface S3Config {
  bucket: string;
  /** Endpoint URL for non-AWS stores (MinIO, R2, Ceph, s3rver); null for AWS itself. */
  endpoint: string | null;
  /** Endpoint put into presigned URLs when clients reach the store by another name than the API does. */
  publicEndpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  /** Prepended to every object key (several installations can share a bucket). */
  prefix: string;
  /** Outputs at least this big are sent with multipart upload, in parts of this size. */
  partBytes: number;
  /** Creates the bucket at start when missing (development servers). */
  createBucket: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

class Reader {
  readonly problems: string[] = [];
  /** Every setting name the schema knows, so a misspelt one can be reported instead of ignored. */
  readonly known = new Set<string>();
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    this.known.add(name);
    return this.env[name];
  }

  /** MARIONETTE_* names nobody reads: almost always a typo that would silently leave a default. */
  unknownNames(): string[] {
    return Object.keys(this.env).filter((k) => k.startsWith('MARIONETTE_') && !k.startsWith('MARIONETTE_TEST_') && !this.known.has(k));
  }

  str(name: string, def: string): string {
    const v = this.raw(name);
    if (v === undefined || v === '') return def;
    return v;
  }

  int(name: string, def: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return def;
    }
    return n;
  }

  bool(name: string, def: boolean): boolean {
    const raw = this.raw(name);
    if (raw === undefined || raw === '') return def;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return def;
  }

  oneOf<T extends string>(name: string, def: T, allowed: readonly T[]): T {
    const raw = this.raw(name);
    if (raw === undefined || raw === '') return def;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return def;
    }
    return raw as T;
  }
}

const MB = 1024 * 1024;

function readS3(r: Reader): S3Config {
  const bucket = r.str('MARIONETTE_S3_BUCKET', '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    r.problems.push(`MARIONETTE_STORAGE=s3 needs MARIONETTE_S3_BUCKET, a valid bucket name (got "${bucket}")`);
  const endpoint = r.str('MARIONETTE_S3_ENDPOINT', '') || null;
  const publicEndpoint = r.str('MARIONETTE_S3_PUBLIC_ENDPOINT', '') || null;
  for (const [name, v] of [
    ['MARIONETTE_S3_ENDPOINT', endpoint],
    ['MARIONETTE_S3_PUBLIC_ENDPOINT', publicEndpoint],
  ] as const) {
    if (v !== null && !/^https?:\/\/[^/]+/.test(v)) r.problems.push(`${name} must be an http(s) URL (got "${v}")`);
  }
  const prefix = r.str('MARIONETTE_S3_PREFIX', '').replace(/^\/+|\/+$/g, '');
  return {
    bucket,
    endpoint,
    publicEndpoint,
    region: r.str('MARIONETTE_S3_REGION', 'us-east-1'),
    accessKeyId: r.str('MARIONETTE_S3_ACCESS_KEY_ID', '') || null,
    secretAccessKey: r.str('MARIONETTE_S3_SECRET_ACCESS_KEY', '') || null,
    forcePathStyle: r.bool('MARIONETTE_S3_FORCE_PATH_STYLE', endpoint !== null),
    prefix: prefix === '' ? '' : `${prefix}/`,
    // S3's smallest part is 5 MiB (except the last).
    partBytes: r.int('MARIONETTE_S3_PART_BYTES', 16 * MB, 5 * MB, 5 * 1024 * MB),
    createBucket: r.bool('MARIONETTE_S3_CREATE_BUCKET', false),
  };
}

export function loadConfig(env: Env, overrides: Partial<Config> = {}): Config {
  const r = new Reader(env);
  const port = r.int('MARIONETTE_PORT', 8080, 0, 65535);
  const host = r.str('MARIONETTE_HOST', '0.0.0.0');
  const dataDir = resolve(r.str('MARIONETTE_DATA_DIR', './data'));
  const databaseUrl = r.str('MARIONETTE_DATABASE_URL', `sqlite:${resolve(dataDir, 'marionette.sqlite')}`);
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    r.problems.push(`MARIONETTE_DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
  }
  const databaseSchema = r.str('MARIONETTE_DATABASE_SCHEMA', '') || null;
  if (databaseSchema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    r.problems.push(`MARIONETTE_DATABASE_SCHEMA must be a lower-case SQL identifier (got "${databaseSchema}")`);
  }
  if (databaseSchema !== null && databaseUrl.startsWith('sqlite:'))
    r.problems.push('MARIONETTE_DATABASE_SCHEMA applies to PostgreSQL only');
  const publicUrl = r.str('MARIONETTE_PUBLIC_URL', `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(publicUrl)) r.problems.push(`MARIONETTE_PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  const signingSecret = r.str('MARIONETTE_SIGNING_SECRET', '');
  if (signingSecret !== '' && signingSecret.length < 16) r.problems.push('MARIONETTE_SIGNING_SECRET must be at least 16 characters');

  const storageDriver = r.oneOf('MARIONETTE_STORAGE', 'disk', ['disk', 's3'] as const);
  const redisUrl = r.str('MARIONETTE_REDIS_URL', '') || null;
  if (redisUrl !== null && !/^rediss?:\/\/[^/]/.test(redisUrl))
    r.problems.push(`MARIONETTE_REDIS_URL must be a redis:// or rediss:// URL (got "${redisUrl}")`);
  const redisPrefix = r.str('MARIONETTE_REDIS_PREFIX', 'marionette');
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(redisPrefix))
    r.problems.push(`MARIONETTE_REDIS_PREFIX must be 1-64 of A-Z a-z 0-9 _ . : - (got "${redisPrefix}")`);
  // With a Redis URL, Redis is the default for all three; each can be set back to the embedded one.
  const withRedis = redisUrl !== null;
  const queueDriver = r.oneOf('MARIONETTE_QUEUE', withRedis ? 'bullmq' : 'embedded', ['embedded', 'bullmq'] as const);
  const pubsubDriver = r.oneOf('MARIONETTE_PUBSUB', withRedis ? 'redis' : 'memory', ['memory', 'redis'] as const);
  const rateDriver = r.oneOf('MARIONETTE_RATE_LIMIT_STORE', withRedis ? 'redis' : 'memory', ['memory', 'redis'] as const);
  for (const [name, v] of [
    ['MARIONETTE_QUEUE', queueDriver],
    ['MARIONETTE_PUBSUB', pubsubDriver],
    ['MARIONETTE_RATE_LIMIT_STORE', rateDriver],
  ] as const) {
    if ((v === 'bullmq' || v === 'redis') && !withRedis)
      r.problems.push(`${name}=${v} needs MARIONETTE_REDIS_URL (e.g. redis://127.0.0.1:6379)`);
  }
  if (queueDriver === 'bullmq' && pubsubDriver !== 'redis')
    r.problems.push('MARIONETTE_QUEUE=bullmq needs MARIONETTE_PUBSUB=redis (cancellation reaches workers over it)');

  const config: Config = {
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    databaseSchema,
    storage: {
      driver: storageDriver,
      root: resolve(r.str('MARIONETTE_STORAGE_DIR', resolve(dataDir, 'storage'))),
      s3: storageDriver === 's3' ? readS3(r) : null,
    },
    redis: { url: redisUrl, prefix: redisPrefix },
    queue: {
      driver: queueDriver,
      // A SIGKILLed worker's lock lapses after lockMs; another worker's stalled check (every
      // stalledIntervalMs) hands the job on: lockMs + stalledIntervalMs must stay under 10 s.
      lockMs: r.int('MARIONETTE_QUEUE_LOCK_MS', 6_000, 1_000, 600_000),
      stalledIntervalMs: r.int('MARIONETTE_QUEUE_STALLED_INTERVAL_MS', 2_000, 500, 600_000),
      relayMs: r.int('MARIONETTE_QUEUE_RELAY_MS', 2_000, 50, 600_000),
    },
    pubsub: { driver: pubsubDriver },
    rateLimitStore: { driver: rateDriver },
    metrics: r.bool('MARIONETTE_METRICS', true),
    // Empty means "generate and persist one in the data dir" (done by the entrypoint).
    signingSecret,
    workers: {
      enabled: r.bool('MARIONETTE_WORKERS', true),
      warmUp: r.bool('MARIONETTE_ENGINE_WARMUP', true),
      concurrency: r.int('MARIONETTE_WORKER_CONCURRENCY', 1, 1, 64),
      httpPort: r.int('MARIONETTE_WORKER_HTTP_PORT', -1, -1, 65535) < 0 ? null : r.int('MARIONETTE_WORKER_HTTP_PORT', -1, -1, 65535),
      // A dead worker's job is claimed again within lease + poll (docs/retrying.md "Worker death").
      leaseMs: r.int('MARIONETTE_JOB_LEASE_MS', 6_000, 1_000, 3_600_000),
      heartbeatMs: r.int('MARIONETTE_JOB_HEARTBEAT_MS', 1_500, 100, 600_000),
      maxAttempts: r.int('MARIONETTE_JOB_MAX_ATTEMPTS', 3, 1, 100),
      pollMs: r.int('MARIONETTE_JOB_POLL_MS', 500, 10, 60_000),
    },
    events: {
      heartbeatMs: r.int('MARIONETTE_EVENT_HEARTBEAT_MS', 12_000, 10, 60_000),
      historyHours: r.int('MARIONETTE_EVENT_HISTORY_HOURS', 24, 1, 24 * 365),
    },
    idempotency: {
      waitMs: r.int('MARIONETTE_IDEMPOTENCY_WAIT_MS', 15_000, 0, 600_000),
      lockMs: r.int('MARIONETTE_IDEMPOTENCY_LOCK_MS', 120_000, 1_000, 3_600_000),
    },
    http: {
      requestTimeoutMs: r.int('MARIONETTE_REQUEST_TIMEOUT_MS', 600_000, 1_000, 24 * 3_600_000),
      idleTimeoutMs: r.int('MARIONETTE_IDLE_TIMEOUT_MS', 30_000, 500, 3_600_000),
    },
    limits: {
      bodyBytes: r.int('MARIONETTE_MAX_JSON_BYTES', 1 * MB, 1024, 100 * MB),
      imageBytes: r.int('MARIONETTE_MAX_IMAGE_BYTES', 20 * MB, 1024, 1024 * MB),
      imageMaxSide: r.int('MARIONETTE_MAX_IMAGE_SIDE', 4096, 16, 16384),
      videoBytes: r.int('MARIONETTE_MAX_VIDEO_BYTES', 200 * MB, 1024, 10 * 1024 * MB),
      videoMinMs: r.int('MARIONETTE_MIN_VIDEO_MS', 500, 1, 3_600_000),
      videoMaxMs: r.int('MARIONETTE_MAX_VIDEO_MS', 300_000, 1, 36_000_000),
      videoMinSide: r.int('MARIONETTE_MIN_VIDEO_SIDE', 64, 1, 16384),
      videoMaxSide: r.int('MARIONETTE_MAX_VIDEO_SIDE', 4096, 16, 16384),
      urlFetchTimeoutMs: r.int('MARIONETTE_URL_FETCH_TIMEOUT_MS', 30_000, 100, 600_000),
      videoDecodeCheckMs: r.int('MARIONETTE_VIDEO_DECODE_CHECK_MS', 10_000, 0, 600_000),
    },
    apiKeyCache: {
      ttlMs: r.int('MARIONETTE_API_KEY_CACHE_MS', 30_000, 0, 3_600_000),
      confirmEachUse: r.bool('MARIONETTE_API_KEY_CONFIRM_EACH_USE', pubsubDriver !== 'redis' && signalFileOf(databaseUrl) === null),
    },
    rateLimits: {
      enabled: r.bool('MARIONETTE_RATE_LIMITS', true),
      createPerSecond: r.int('MARIONETTE_RATE_CREATE_PER_S', 20, 1, 1_000_000),
      createBurst: r.int('MARIONETTE_RATE_CREATE_BURST', 40, 1, 1_000_000),
      readPerSecond: r.int('MARIONETTE_RATE_READ_PER_S', 100, 1, 1_000_000),
    },
    urlAllowList: r
      .str('MARIONETTE_URL_ALLOW_LIST', '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    outputUrlTtlSeconds: r.int('MARIONETTE_OUTPUT_URL_TTL_S', 3600, 1, 7 * 86400),
    uploadUrlTtlSeconds: r.int('MARIONETTE_UPLOAD_URL_TTL_S', 900, 1, 86400),
    draftTtlSeconds: r.int('MARIONETTE_DRAFT_TTL_S', 3600, 1, 7 * 86400),
    logLevel: r.oneOf('MARIONETTE_LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    tools: { ffmpeg: env.FFMPEG_PATH || undefined, ffprobe: env.FFPROBE_PATH || undefined },
    generator: {
      driver: r.oneOf('MARIONETTE_GENERATOR', 'embedded', ['embedded', 'comfyui'] as const),
      comfyuiUrl: r.str('MARIONETTE_COMFYUI_URL', '') || null,
      comfyuiWorkflowDir: resolve(r.str('MARIONETTE_COMFYUI_WORKFLOWS', resolve(import.meta.dirname, '../../workflows/comfyui'))),
      timeoutMs: r.int('MARIONETTE_GENERATOR_TIMEOUT_MS', 900_000, 1_000, 24 * 3_600_000),
    },
    legacy: {
      openStatus: r.bool('MARIONETTE_LEGACY_OPEN_STATUS', true),
      videoBytes: r.int('MARIONETTE_LEGACY_MAX_VIDEO_BYTES', 100 * MB, 1024, 10 * 1024 * MB),
      videoMaxMs: r.int('MARIONETTE_LEGACY_MAX_VIDEO_MS', 600_000, 1, 36_000_000),
    },
  };
  if (config.workers.heartbeatMs * 2 > config.workers.leaseMs)
    r.problems.push(
      'MARIONETTE_JOB_HEARTBEAT_MS must be at most half of MARIONETTE_JOB_LEASE_MS (a live worker must renew its lease at least twice per lease)',
    );
  if (config.generator.driver === 'comfyui' && !config.generator.comfyuiUrl)
    r.problems.push('MARIONETTE_GENERATOR=comfyui needs MARIONETTE_COMFYUI_URL (e.g. http://127.0.0.1:8188)');
  // MARIONETTE_TEST_* belong to the test suite (e.g. MARIONETTE_TEST_PG_URL), not to the service.
  for (const name of r.unknownNames())
    r.problems.push(`${name} is not a setting (see README "Configuration"; settings are MARIONETTE_ + a known name)`);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({ ...config, ...overrides });
}
