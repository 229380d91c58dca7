import { removeOrphanWorkDirs } from '../jobs/asset-transfer.js';
import { characterProcessHandler } from '../jobs/handlers/character-process.handler.js';
import { characterVsplatHandler } from '../jobs/handlers/character-vsplat.handler.js';
import { motionExtractHandler } from '../jobs/handlers/motion-extract.handler.js';
import { motionGlbHandler } from '../jobs/handlers/motion-glb.handler.js';
import { renderRunHandler } from '../jobs/handlers/render-run.handler.js';
import { videoGenerateHandler } from '../jobs/handlers/video-generate.handler.js';
import { startMaintenance } from '../jobs/maintenance.js';
import type { JobHandler, JobType, MetricsRecorder, Ports } from '../domain/ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'config' | 'db' | 'engine' | 'generator' | 'metrics' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

/**
 * Starts the job handlers (`character.process`, `character.vsplat`, `motion.extract`, `motion.glb`, `render.run`, `video.generate`) on the queue.
 * `npm start` calls it next to the API, `npm run worker` alone; any number of worker processes may
 * share one database. Work dirs left by a killed process are removed first; old event history and
 * expired drafts are purged hourly.
 */
export async function startWorkers(deps: Deps): Promise<void> {
  await removeOrphanWorkDirs(deps);
  if (deps.config.workers.warmUp) {
    // In the background: the first job waits for the models anyway, the process start does not.
    deps.engine
      .warmUp()
      .catch((e) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'engine warm-up failed', err: String(e) })}\n`));
  }
  // Unref'd timer: it never keeps a stopping process alive.
  startMaintenance(deps, (msg, e) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg, err: String(e) })}\n`));
  const handlers: Partial<Record<JobType, JobHandler>> = {
    'character.process': characterProcessHandler(deps),
    'character.vsplat': characterVsplatHandler(deps),
    'motion.extract': motionExtractHandler(deps),
    'motion.glb': motionGlbHandler(deps),
    'render.run': renderRunHandler(deps),
    'video.generate': videoGenerateHandler(deps),
  };
  await deps.queue.start(timed(handlers, deps.metrics), { concurrency: deps.config.workers.concurrency });
}

/** Records each run's duration by type and outcome (`marionette_job_duration_seconds`). */
function timed(handlers: Partial<Record<JobType, JobHandler>>, metrics: MetricsRecorder): Partial<Record<JobType, JobHandler>> {
  const out: Partial<Record<JobType, JobHandler>> = {};
  for (const [type, h] of Object.entries(handlers) as [JobType, JobHandler][]) {
    out[type] = {
      fail: (job, error) => h.fail(job, error),
      async run(job) {
        const t0 = performance.now();
        let outcome = 'error';
        try {
          await h.run(job);
          outcome = 'ok';
        } finally {
          if (job.signal.aborted) outcome = String(job.signal.reason ?? 'aborted');
          metrics.observe('marionette_job_duration_seconds', { type, outcome }, (performance.now() - t0) / 1000);
        }
      },
    };
  }
  return out;
}
