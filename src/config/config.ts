import { resolve } from 'node:path';

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
  /** `disk` (under dataDir/storage) or `s3` (later). */
  storage: { driver: 'disk'; root: string };
  /** Secret used to sign output and upload URLs. */
  signingSecret: string;
  /** Whether this process runs workers (`npm start`: yes, unless disabled). */
  workers: { enabled: boolean; warmUp: boolean; concurrency: number; leaseMs: number; heartbeatMs: number; maxAttempts: number; pollMs: number };
  events: { heartbeatMs: number; historyHours: number };
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
  /** API-key cache (#14): TTL of a looked-up key; each use still confirms it is not revoked unless `confirmEachUse` is off. */
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
  if (databaseSchema !== null && databaseUrl.startsWith('sqlite:')) r.problems.push('MARIONETTE_DATABASE_SCHEMA applies to PostgreSQL only');
  const publicUrl = r.str('MARIONETTE_PUBLIC_URL', `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(publicUrl)) r.problems.push(`MARIONETTE_PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  const signingSecret = r.str('MARIONETTE_SIGNING_SECRET', '');
  if (signingSecret !== '' && signingSecret.length < 16) r.problems.push('MARIONETTE_SIGNING_SECRET must be at least 16 characters');

  const config: Config = {
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    databaseSchema,
    storage: { driver: r.oneOf('MARIONETTE_STORAGE', 'disk', ['disk'] as const), root: resolve(r.str('MARIONETTE_STORAGE_DIR', resolve(dataDir, 'storage'))) },
    // Empty means "generate and persist one in the data dir" (done by the entrypoint).
    signingSecret,
    workers: {
      enabled: r.bool('MARIONETTE_WORKERS', true),
      warmUp: r.bool('MARIONETTE_ENGINE_WARMUP', true),
      concurrency: r.int('MARIONETTE_WORKER_CONCURRENCY', 1, 1, 64),
      leaseMs: r.int('MARIONETTE_JOB_LEASE_MS', 30_000, 1_000, 3_600_000),
      heartbeatMs: r.int('MARIONETTE_JOB_HEARTBEAT_MS', 5_000, 100, 600_000),
      maxAttempts: r.int('MARIONETTE_JOB_MAX_ATTEMPTS', 3, 1, 100),
      pollMs: r.int('MARIONETTE_JOB_POLL_MS', 500, 10, 60_000),
    },
    events: {
      heartbeatMs: r.int('MARIONETTE_EVENT_HEARTBEAT_MS', 12_000, 10, 60_000),
      historyHours: r.int('MARIONETTE_EVENT_HISTORY_HOURS', 24, 1, 24 * 365),
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
      confirmEachUse: r.bool('MARIONETTE_API_KEY_CONFIRM_EACH_USE', true),
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
  if (config.generator.driver === 'comfyui' && !config.generator.comfyuiUrl) r.problems.push('MARIONETTE_GENERATOR=comfyui needs MARIONETTE_COMFYUI_URL (e.g. http://127.0.0.1:8188)');
  // MARIONETTE_TEST_* belong to the test suite (e.g. MARIONETTE_TEST_PG_URL), not to the service.
  for (const name of r.unknownNames()) r.problems.push(`${name} is not a setting (see README "Configuration"; settings are MARIONETTE_ + a known name)`);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze({ ...config, ...overrides });
}
