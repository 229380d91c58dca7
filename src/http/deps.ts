import type { Config } from '../config/config.js';
import type { Db, DialectName } from '../infra/db/database.js';
import type { PubSub } from '../domain/ports/pubsub.js';
import type { UrlSigner } from '../infra/storage/signer.js';
import type { Storage } from '../domain/ports/storage.js';
import type { JobQueue } from '../domain/ports/job-queue.js';
import type { Engine } from '../domain/ports/engine.js';
import type { VideoGenerator } from '../domain/ports/video-generator.js';

/**
 * What the composition root (src/main/wire.ts) hands to routes and services. Services take the
 * parts they need from it; nothing reaches for globals or `process.env`.
 */
export interface AppDeps {
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
  /** Local scratch space for uploads in flight and worker temp dirs (removed after use). */
  tmpDir: string;
}
