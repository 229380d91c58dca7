/**
 * A pool of pose detectors (and person segmenters and matters) in worker threads. MoveNet on tfjs-wasm runs on one
 * core per instance, so on the 2-core target two workers roughly double frames per second while the
 * main thread only decodes.
 *
 * Tracking state (the crop around the previous body) lives per stream: `stream()` hands out a detector
 * for one video, so concurrent extractions sharing the pool never steer each other's crops, and a
 * stream's frames go round the workers in order, so the crops (and the track) do not depend on timing.
 *
 * Workers load TypeScript sources when the engine runs under tsx (development, tests, `npm start`):
 * a worker does not inherit tsx's loader, so the entry registers tsx's ESM API first. From compiled
 * .js it loads the entry directly. If workers cannot start, calls fall back to in-process models, so
 * callers never depend on threads being available.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createPoseDetector, type PoseDetector, type PoseDetectorOptions, type PoseResult } from './pose-detector.js';
import { mattePerson } from './matting.js';
import { segmentPerson } from './segmentation.js';

/** A detector bound to one video stream of the pool. */
export interface PoseStream extends PoseDetector {
  /** Frames that may be in flight at once (workers x 2), the useful read-ahead for callers. */
  readonly capacity: number;
  /** Person segmentation (see segmentPerson) on a pool worker. */
  segment(rgba: Buffer, width: number, height: number, maxSide?: number): Promise<Uint8Array | null>;
  /** Person matting (see mattePerson) on a pool worker; still usable after `end`. */
  matte(rgba: Buffer, width: number, height: number): Promise<Uint8Array>;
  /** Releases the stream's tracking state in the workers. */
  end(): void;
}

export interface PosePool {
  stream(): PoseStream;
  close(): Promise<void>;
}

interface Reply {
  id?: number;
  result?: PoseResult | null;
  mask?: ArrayBuffer | null;
  error?: string;
}

interface Pending {
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
}

function spawnWorker(options: PoseDetectorOptions): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './pose-worker.ts' : './pose-worker.js', import.meta.url).href;
  if (!entry.endsWith('.ts')) return new Worker(new URL(entry), { workerData: options });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: options });
}

/** `workers` defaults to the number of cores, capped at 4 (each instance holds ~60 MB). */
export function createPosePool(opts: PoseDetectorOptions & { workers?: number } = {}): PosePool {
  const { workers: wanted, ...options } = opts;
  const count = Math.max(1, Math.min(4, wanted ?? availableParallelism()));
  const pending = new Map<number, Pending>();
  const load = new Map<Worker, number>();
  let nextId = 1;
  let nextStream = 1;
  let broken = false;

  const fail = (err: Error) => {
    broken = true;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  for (let i = 0; i < count; i++) {
    let w: Worker;
    try {
      w = spawnWorker(options);
    } catch {
      broken = true;
      break;
    }
    load.set(w, 0);
    w.on('message', (m: Reply) => {
      if (m.id === undefined) return;
      const left = (load.get(w) ?? 1) - 1;
      load.set(w, left);
      // Busy workers keep the process alive; idle ones must not hold it open.
      if (left === 0) w.unref();
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (!p) return;
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m);
    });
    w.on('error', (err) => fail(err instanceof Error ? err : new Error(String(err))));
    w.unref();
  }

  /**
   * Sends a job to worker `to` (by index), or else to the least-loaded one; the pixels are copied into a
   * transferable buffer.
   */
  const submit = (job: Record<string, unknown>, rgba: Buffer, to?: number): Promise<Reply> => {
    let target: Worker | null = to === undefined ? null : [...load.keys()][to % load.size];
    if (!target) for (const [w, n] of load) if (!target || n < load.get(target)!) target = w;
    const id = nextId++;
    const copy = new ArrayBuffer(rgba.length);
    new Uint8Array(copy).set(rgba);
    load.set(target!, load.get(target!)! + 1);
    target!.ref();
    return new Promise<Reply>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      target!.postMessage({ ...job, id, pixels: copy }, [copy]);
    });
  };
  const usable = () => !broken && load.size > 0;

  return {
    stream() {
      const stream = nextStream++;
      // Pose frames go round the workers in call order, not to whichever is least busy: each worker's
      // tracking crop for this stream then always comes from the same earlier frames, so an extraction
      // gives the same track on every run (by load, timing decided the crops and PCK varied ±0.05).
      let frames = 0;
      let local: PoseDetector | null = null;
      const inProcess = () => (local ??= createPoseDetector(options));
      return {
        capacity: usable() ? count * 2 : 1,
        async detect(rgba, width, height, hint) {
          if (!usable()) return inProcess().detect(rgba, width, height, hint);
          try {
            // A one-off detection (hint given) carries no tracking state: the least busy worker takes it.
            const job = hint === undefined ? { kind: 'pose', stream, width, height } : { kind: 'pose', stream, width, height, hint };
            return (await submit(job, rgba, hint === undefined ? frames++ : undefined)).result ?? null;
          } catch {
            // A worker that died (e.g. could not load its modules) hands the frame to an in-process model.
            return inProcess().detect(rgba, width, height, hint);
          }
        },
        async segment(rgba, width, height, maxSide) {
          if (!usable()) return segmentPerson(rgba, width, height, maxSide);
          try {
            const { mask } = await submit({ kind: 'segment', width, height, maxSide }, rgba);
            return mask ? new Uint8Array(mask) : null;
          } catch {
            return segmentPerson(rgba, width, height, maxSide);
          }
        },
        async matte(rgba, width, height) {
          if (!usable()) return mattePerson(rgba, width, height);
          try {
            const { mask } = await submit({ kind: 'matte', width, height }, rgba);
            if (mask) return new Uint8Array(mask);
          } catch {
            // A worker that died: matte in process, as for segmentation.
          }
          return mattePerson(rgba, width, height);
        },
        end() {
          for (const w of load.keys()) w.postMessage({ kind: 'end', stream });
        },
      };
    },
    async close() {
      await Promise.all([...load.keys()].map((w) => w.terminate()));
      load.clear();
    },
  };
}
