import type { Config } from '../config/config.js';
import type { Db, DialectName } from '../infra/db/database.js';
import type { PubSub } from '../infra/pubsub/pubsub.js';
import type { UrlSigner } from '../infra/storage/signer.js';
import type { Storage } from '../infra/storage/storage.js';
import type { JobQueue } from '../jobs/queue.js';
import type { EnginePort } from '../domain/media/engine.port.js';
import type { VideoGenerator } from '../domain/videos/generator.port.js';

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
  engine: EnginePort;
  /** Runs H3 generations (POST /v1/videos): embedded CPU generator or a GPU server adapter. */
  generator: VideoGenerator;
  /** Local scratch space for uploads in flight and worker temp dirs (removed after use). */
  tmpDir: string;
}
