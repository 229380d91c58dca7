/**
 * Character analysis on a worker thread. In process, the analysis holds the main thread for most of
 * its ~1 s of CPU in long synchronous stretches (model calls, the rig's weights): one stretch was
 * measured at 7.5 s wall under load 22. A render analyses its one-time character beside the motion's
 * extraction, whose main thread decodes the frames the pose workers wait for; held, it let them run
 * dry with a core idle, and the HTTP API of `npm start` waited too. On this thread the two really
 * run side by side.
 *
 * One thread per process, started on first use (or by the warm-up) and kept: its models load once
 * (~2 s). It is unref'd while idle, so it never keeps a process alive. An abort is passed on and the
 * call settles when the analysis has stopped (between steps, as in process), so nothing writes into
 * the output directory after the caller moved on. A thread that cannot start (its modules do not
 * load) hands its calls, and every later one, to the in-process analysis.
 */
import { Worker } from 'node:worker_threads';
import { abortError, type MediaTools } from '../media/ffmpeg.js';
import { EngineError, type CharacterAssets, type EngineErrorCode } from '../types.js';
import { warmUpCharacterAnalysis } from './analyze.js';
import { analyzeCharacterAssets, type CharacterAssetsInput } from './character-assets.js';

export type AnalysisReply =
  | { id: number; progress: number }
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; name: string; message: string; code?: EngineErrorCode; details?: Record<string, unknown> };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** The same work in process, for a thread that never started. */
  inProcess(): Promise<unknown>;
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

let worker: Worker | null = null;
/** Set when a thread failed before it ever started: analysis stays in process from then on. */
let unavailable = false;
let nextId = 1;
const pending = new Map<number, Pending>();

function spawnWorker(): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './analysis.worker.ts' : './analysis.worker.js', import.meta.url).href;
  if (!entry.endsWith('.ts')) return new Worker(new URL(entry));
  // Under tsx (development, tests, `npm start`) a worker does not inherit the loader: register it first.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true });
}

function toError(m: Extract<AnalysisReply, { ok: false }>, signal?: AbortSignal): Error {
  if (m.code) return new EngineError(m.code, m.message, m.details ?? {});
  if (m.name === 'AbortError') return abortError(signal);
  return Object.assign(new Error(m.message), { name: m.name });
}

function thread(): Worker | null {
  if (unavailable) return null;
  if (worker) return worker;
  let w: Worker;
  try {
    w = spawnWorker();
  } catch {
    unavailable = true;
    return null;
  }
  worker = w;
  let started = false;
  w.on('message', (m: AnalysisReply | { ready: true }) => {
    if ('ready' in m) {
      started = true;
      return;
    }
    const p = pending.get(m.id);
    if (!p) return;
    if ('progress' in m) {
      p.onProgress?.(m.progress);
      return;
    }
    pending.delete(m.id);
    // An idle thread must not hold the process open.
    if (pending.size === 0) w.unref();
    if (m.ok) p.resolve(m.result);
    else p.reject(toError(m, p.signal));
  });
  let lost = false;
  const onLost = (err: Error) => {
    if (lost) return;
    lost = true;
    if (worker === w) worker = null;
    if (!started) unavailable = true;
    const calls = [...pending.values()];
    pending.clear();
    for (const p of calls) {
      if (started) p.reject(err);
      else p.inProcess().then(p.resolve, p.reject);
    }
  };
  w.on('error', (e) => onLost(e instanceof Error ? e : new Error(String(e))));
  w.on('exit', (code) => onLost(new Error(`the character analysis thread exited with code ${code}`)));
  w.unref();
  return w;
}

function call<T>(
  job: Record<string, unknown>,
  inProcess: () => Promise<T>,
  opts: { signal?: AbortSignal; onProgress?: (percent: number) => void } = {},
): Promise<T> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const w = thread();
  if (!w) return inProcess();
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => w.postMessage({ kind: 'abort', id });
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal?.removeEventListener('abort', onAbort);
    pending.set(id, {
      resolve: (v) => {
        settle();
        resolve(v as T);
      },
      reject: (e) => {
        settle();
        reject(e);
      },
      inProcess,
      onProgress: opts.onProgress,
      signal,
    });
    w.ref();
    w.postMessage({ ...job, id });
  });
}

/** Analyses a character picture into its assets (see character-assets.ts) on the analysis thread. */
export function analyzeCharacterInThread(
  tools: MediaTools,
  input: CharacterAssetsInput,
  opts: { signal?: AbortSignal; onProgress?: (percent: number) => void } = {},
): Promise<CharacterAssets> {
  const data: CharacterAssetsInput = { imageFile: input.imageFile, outDir: input.outDir, thumbnail: input.thumbnail };
  return call(
    { kind: 'analyze', tools: { ffmpeg: tools.ffmpeg, ffprobe: tools.ffprobe }, input: data },
    () => analyzeCharacterAssets(tools, data, opts.signal, opts.onProgress),
    opts,
  );
}

/** Starts the analysis thread and loads its models ahead of the first job. Safe to call more than once. */
export async function warmUpAnalysisThread(): Promise<void> {
  await call({ kind: 'warm-up' }, () => warmUpCharacterAnalysis());
}
