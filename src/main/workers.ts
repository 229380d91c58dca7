import { removeOrphanWorkDirs } from '../jobs/asset-transfer.js';
import { characterProcessHandler } from '../jobs/handlers/character-process.handler.js';
import { motionExtractHandler } from '../jobs/handlers/motion-extract.handler.js';
import { renderRunHandler } from '../jobs/handlers/render-run.handler.js';
import { videoGenerateHandler } from '../jobs/handlers/video-generate.handler.js';
import { startMaintenance } from '../jobs/maintenance.js';
import type { Ports } from '../domain/ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'generator' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

/**
 * Starts the job handlers (`character.process`, `motion.extract`, `render.run`) on the queue.
 * `npm start` calls it next to the API, `npm run worker` alone; any number of worker processes may
 * share one database. Work dirs left by a killed process are removed first; old event history and
 * expired drafts are purged hourly.
 */
export async function startWorkers(deps: Deps): Promise<void> {
  await removeOrphanWorkDirs(deps);
  if (deps.config.workers.warmUp) {
    // In the background: the first job waits for the models anyway, the process start does not.
    deps.engine.warmUp().catch((e) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'engine warm-up failed', err: String(e) })}\n`));
  }
  // Unref'd timer: it never keeps a stopping process alive.
  startMaintenance(deps, (msg, e) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg, err: String(e) })}\n`));
  await deps.queue.start(
    {
      'character.process': characterProcessHandler(deps),
      'motion.extract': motionExtractHandler(deps),
      'render.run': renderRunHandler(deps),
      'video.generate': videoGenerateHandler(deps),
    },
    { concurrency: deps.config.workers.concurrency },
  );
}
