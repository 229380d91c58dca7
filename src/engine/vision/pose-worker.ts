/**
 * Worker-thread entry for parallel vision work: each worker owns its own human/tfjs-wasm instance
 * (the WASM backend is single-threaded in Node, so parallelism has to come from separate instances).
 * Protocol: in {id, kind: 'pose' | 'segment', pixels: ArrayBuffer (RGBA), width, height, maxSide?};
 * out {id, result} (pose) or {id, mask: ArrayBuffer | null} (segment) or {id, error}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createPoseDetector, type PoseDetectorOptions } from './pose-detector.js';
import { segmentPerson } from './segmentation.js';

interface Job {
  id: number;
  kind: 'pose' | 'segment';
  pixels: ArrayBuffer;
  width: number;
  height: number;
  maxSide?: number;
}

const port = parentPort;
if (port) {
  const detector = createPoseDetector((workerData ?? {}) as PoseDetectorOptions);
  const run = async (job: Job) => {
    const rgba = Buffer.from(job.pixels);
    if (job.kind === 'segment') {
      const mask = await segmentPerson(rgba, job.width, job.height, job.maxSide);
      const out = mask ? mask.slice().buffer : null;
      port.postMessage({ id: job.id, mask: out }, out ? [out] : []);
      return;
    }
    port.postMessage({ id: job.id, result: await detector.detect(rgba, job.width, job.height) });
  };
  port.on('message', (job: Job) => {
    run(job).catch((err: unknown) => port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) }));
  });
  // Load and compile the model now, while the caller is still probing and starting ffmpeg.
  detector.detect(Buffer.alloc(32 * 32 * 4), 32, 32).catch(() => undefined);
  port.postMessage({ ready: true });
}
