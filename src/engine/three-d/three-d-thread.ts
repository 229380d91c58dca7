/**
 * Runs a 3D extraction (the splat build, the motion lift and exports) on a worker thread. These are
 * seconds of synchronous arithmetic; on the main thread they would hold the event loop of a process
 * that also answers HTTP (`npm start` runs API and workers together): requests would wait and kept-
 * alive connections be cut. A thread per extraction; an aborted signal terminates it.
 */
import { Worker } from 'node:worker_threads';
import { EngineError, type EngineErrorCode, type MotionTrack } from '../types.js';
import type { VsplatInput } from './export-character.js';
import type { Motion3dOptions } from './export-motion.js';
import type { MediaTools } from '../media/ffmpeg.js';

export type ThreeDTask =
  | { kind: 'vsplat'; input: VsplatInput }
  | {
      kind: 'motion3d';
      track: MotionTrack;
      options: Motion3dOptions;
      outDir: string;
      /** The driving video (at the track's rate) for BlazePose's world landmarks; null: no measured depth. */
      video: { tools: MediaTools; file: string; stride: number } | null;
    };

export type ThreeDReply =
  | { ok: true; result: unknown }
  | { ok: false; name: string; message: string; code?: EngineErrorCode; details?: Record<string, unknown> }
  | { progress: number };

function spawn(task: ThreeDTask): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './three-d.worker.ts' : './three-d.worker.js', import.meta.url).href;
  if (!entry.endsWith('.ts')) return new Worker(new URL(entry), { workerData: task });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: task });
}

export function runThreeD<T>(task: ThreeDTask, signal?: AbortSignal, onProgress?: (share: number) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const worker = spawn(task);
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = () => finish(() => reject(abortError()));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: ThreeDReply) => {
      if ('progress' in m) return void onProgress?.(m.progress);
      finish(() => {
        if (m.ok) resolve(m.result as T);
        else if (m.code) reject(new EngineError(m.code, m.message, m.details ?? {}));
        else reject(Object.assign(new Error(m.message), { name: m.name }));
      });
    });
    worker.once('error', (e) => finish(() => reject(e)));
    worker.once('exit', (code) => finish(() => reject(new Error(`3D extraction thread exited with code ${code}`))));
  });
}

function abortError(): Error {
  return Object.assign(new Error('3D extraction aborted'), { name: 'AbortError' });
}
