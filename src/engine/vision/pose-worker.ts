/**
 * Worker-thread entry for parallel vision work: each worker owns its own tfjs-wasm instance (the WASM
 * backend is single-threaded in Node, so parallelism has to come from separate instances).
 * Protocol, in: {id, kind: 'pose', stream, pixels: ArrayBuffer (RGBA), width, height, hint?} |
 * {id, kind: 'segment', pixels, width, height, maxSide?} | {id, kind: 'matte', pixels, width, height} |
 * {kind: 'end', stream} (no reply).
 * Out: {id, result} (pose), {id, mask: ArrayBuffer | null} (segment, matte) or {id, error}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Keypoint } from '../types.js';
import { createPoseDetector, type PoseDetector, type PoseDetectorOptions } from './pose-detector.js';
import { mattePerson } from './matting.js';
import { segmentPerson } from './segmentation.js';

interface Job {
  id: number;
  kind: 'pose' | 'segment' | 'matte' | 'end';
  stream?: number;
  pixels: ArrayBuffer;
  width: number;
  height: number;
  maxSide?: number;
  /** Pose only: a one-off detection around this body (see PoseDetector.detect). */
  hint?: Keypoint[] | null;
}

const port = parentPort;
if (port) {
  const options = (workerData ?? {}) as PoseDetectorOptions;
  // One detector per video stream: tracking crops must follow one video's frames only.
  const streams = new Map<number, PoseDetector>();
  const detectorFor = (stream = 0) => {
    let d = streams.get(stream);
    if (!d) streams.set(stream, (d = createPoseDetector(options)));
    return d;
  };
  const run = async (job: Job) => {
    const rgba = Buffer.from(job.pixels);
    if (job.kind === 'segment') {
      const mask = await segmentPerson(rgba, job.width, job.height, job.maxSide);
      const out = mask ? mask.slice().buffer : null;
      port.postMessage({ id: job.id, mask: out }, out ? [out] : []);
      return;
    }
    if (job.kind === 'matte') {
      const out = (await mattePerson(rgba, job.width, job.height)).buffer as ArrayBuffer;
      port.postMessage({ id: job.id, mask: out }, [out]);
      return;
    }
    port.postMessage({ id: job.id, result: await detectorFor(job.stream).detect(rgba, job.width, job.height, job.hint) });
  };
  // A stream's pose jobs run one after another, in arrival order: one started while the previous one
  // awaits would track from an older crop, making the track depend on timing. Segmentation jobs carry
  // no state and run alongside, and so do matting jobs.
  const queues = new Map<number, Promise<void>>();
  const fail = (job: Job) => (err: unknown) => port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
  port.on('message', (job: Job) => {
    if (job.kind === 'segment' || job.kind === 'matte') {
      run(job).catch(fail(job));
      return;
    }
    const key = job.stream ?? 0;
    const next = (queues.get(key) ?? Promise.resolve()).then(async () => {
      if (job.kind === 'end') {
        streams.delete(key);
        queues.delete(key);
        return;
      }
      await run(job).catch(fail(job));
    });
    queues.set(key, next);
  });
  // Load and compile the model now, while the caller is still probing and starting ffmpeg.
  createPoseDetector(options)
    .detect(Buffer.alloc(32 * 32 * 4), 32, 32)
    .catch(() => undefined);
  port.postMessage({ ready: true });
}
