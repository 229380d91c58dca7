/**
 * Worker-thread entry for parallel pose detection: each worker owns its own human/tfjs-wasm instance
 * (the WASM backend is single-threaded in Node, so parallelism has to come from separate instances).
 * Protocol: in {id, pixels: ArrayBuffer (RGBA), width, height}; out {id, result} or {id, error}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createPoseDetector, type PoseDetectorOptions } from './pose-detector.js';

interface Job {
  id: number;
  pixels: ArrayBuffer;
  width: number;
  height: number;
}

const port = parentPort;
if (port) {
  const detector = createPoseDetector((workerData ?? {}) as PoseDetectorOptions);
  port.on('message', (job: Job) => {
    detector
      .detect(Buffer.from(job.pixels), job.width, job.height)
      .then((result) => port.postMessage({ id: job.id, result }))
      .catch((err: unknown) => port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) }));
  });
  port.postMessage({ ready: true });
}
