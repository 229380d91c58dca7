/**
 * The worker-thread side of analysis-thread.ts: one thread per process that keeps the picture models
 * (BlazePose, MoveNet Thunder, segmentation) loaded and analyses one character at a time.
 * Protocol, in: {kind: 'warm-up', id} | {kind: 'analyze', id, tools, input} | {kind: 'abort', id}.
 * Out: {ready: true} once started; {id, progress}; {id, ok: true, result} | {id, ok: false, name, message, code?, details?}.
 */
import { parentPort } from 'node:worker_threads';
import type { MediaTools } from '../media/ffmpeg.js';
import { EngineError } from '../types.js';
import { warmUpCharacterAnalysis } from './analyze.js';
import { analyzeCharacterAssets, type CharacterAssetsInput } from './character-assets.js';
import type { AnalysisReply } from './analysis-thread.js';

type Job =
  | { kind: 'warm-up'; id: number }
  | { kind: 'analyze'; id: number; tools: MediaTools; input: CharacterAssetsInput }
  | { kind: 'abort'; id: number };

const port = parentPort;
if (port) {
  const running = new Map<number, AbortController>();
  const reply = (m: AnalysisReply) => port.postMessage(m);
  port.on('message', (job: Job) => {
    if (job.kind === 'abort') {
      running.get(job.id)?.abort();
      return;
    }
    const stop = new AbortController();
    running.set(job.id, stop);
    const work =
      job.kind === 'warm-up'
        ? warmUpCharacterAnalysis()
        : analyzeCharacterAssets(job.tools, job.input, stop.signal, (progress) => reply({ id: job.id, progress }));
    work
      .then(
        (result) => reply({ id: job.id, ok: true, result: result ?? null }),
        (e: unknown) => {
          const err = e instanceof Error ? e : new Error(String(e));
          reply({
            id: job.id,
            ok: false,
            name: err.name,
            message: err.message,
            code: e instanceof EngineError ? e.code : undefined,
            details: e instanceof EngineError ? e.details : undefined,
          });
        },
      )
      .finally(() => running.delete(job.id));
  });
  port.postMessage({ ready: true });
}
