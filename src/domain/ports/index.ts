import type { Config } from '../../config/config.js';
import type { Db, DialectName } from '../../infra/db/database.js';
import type { UrlSigner } from '../../infra/storage/signer.js';
import type { Clock } from './clock.js';
import type { Engine } from './engine.js';
import type { JobQueue } from './job-queue.js';
import type { MetricsRecorder } from './metrics.js';
import type { PubSub } from './pubsub.js';
import type { Storage } from './storage.js';
import type { VideoGenerator } from './video-generator.js';

export type { Clock } from './clock.js';
export type { Engine } from './engine.js';
export type { EnqueueInput, JobContext, JobHandler, JobQueue, JobType } from './job-queue.js';
export type { PubSub } from './pubsub.js';
export type { HistogramName, MetricsRecorder } from './metrics.js';
export type { PutResult, Storage, StoredObject } from './storage.js';
export type { GenerationRequest, GenerationResult, VideoGenerator } from './video-generator.js';

/**
 * The conventional name of each port (and of the few plain values services are given), so that a
 * service or handler can spell what it takes as `Pick<Ports, 'db' | 'storage'>`. Nothing receives
 * `Ports` whole: each service and handler declares its own narrow `Deps`; the composition root
 * (src/main/wire.ts) builds the adapters and hands every consumer only what it declared.
 */
export interface Ports {
  config: Config;
  db: Db;
  dialect: DialectName;
  storage: Storage;
  signer: UrlSigner;
  pubsub: PubSub;
  queue: JobQueue;
  engine: Engine;
  /** Runs H3 generations (POST /v1/videos): embedded CPU generator or a GPU server adapter. */
  generator: VideoGenerator;
  clock: Clock;
  /** Local scratch space for uploads in flight and worker temp dirs (removed after use). */
  tmpDir: string;
  /** Measurements served at `/metrics` (job durations, render fps, HTTP latency). */
  metrics: MetricsRecorder;
}
