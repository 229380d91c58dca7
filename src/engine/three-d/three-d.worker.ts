/**
 * The worker-thread side of three-d-thread.ts: runs one 3D extraction with the data it was started
 * with and posts the result (or the error, EngineErrors with their code) back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineError } from '../types.js';
import { writeVsplat } from './export-character.js';
import { motionClips, writeMotion3d } from './export-motion.js';
import type { ThreeDTask, ThreeDReply } from './three-d-thread.js';
import { measureVideo3d } from './world-track.js';

async function run(task: ThreeDTask): Promise<unknown> {
  if (task.kind === 'vsplat') return writeVsplat(task.input);
  const measured = task.video
    ? await measureVideo3d({
        tools: task.video.tools,
        videoFile: task.video.file,
        track: task.track,
        stride: task.video.stride,
        // Face controls exist in the expression and full sets only.
        face: task.options.jointSet !== 'body',
        hands: task.options.jointSet === 'full',
        onProgress: (share) => parentPort!.postMessage({ progress: share * 0.9 } satisfies ThreeDReply),
      })
    : null;
  return writeMotion3d(motionClips(task.track, task.options, measured?.depth, measured?.faces, measured?.hands), task.outDir);
}

run(workerData as ThreeDTask).then(
  (result) => parentPort!.postMessage({ ok: true, result } satisfies ThreeDReply),
  (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    parentPort!.postMessage({
      ok: false,
      name: err.name,
      message: err.message,
      code: e instanceof EngineError ? e.code : undefined,
      details: e instanceof EngineError ? e.details : undefined,
    } satisfies ThreeDReply);
  },
);
