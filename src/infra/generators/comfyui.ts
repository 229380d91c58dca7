/**
 * A VideoGenerator backed by a ComfyUI server (a GPU worker running, for example, Wan image/text-to-
 * video). It speaks ComfyUI's HTTP API: frames go up with `POST /upload/image`, the workflow (API
 * format, one JSON file per mode in MARIONETTE_COMFYUI_WORKFLOWS) is queued with `POST /prompt`,
 * `GET /history/{prompt_id}` is polled until the prompt has finished, and the video output is
 * fetched with `GET /view`. Cancellation sends `POST /interrupt` and removes the prompt from the
 * queue. The clip is then normalised by ffmpeg to the request's exact size, 24 frames/s and
 * duration, and given the same native audio as the embedded generator when it has none.
 *
 * Workflow placeholders (whole-string values become numbers where the name says so):
 *   {{prompt}} {{negative_prompt}} {{seed}} {{width}} {{height}} {{frames}} {{fps}} {{duration_s}}
 *   {{first_frame}} {{last_frame}} (uploaded file names) {{quality_steps}}
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { AppError } from '../../contracts/errors.js';
import type { GenerationRequest, GenerationResult, VideoGenerator } from '../../domain/ports/video-generator.js';

export interface ComfyUiOptions {
  baseUrl: string;
  workflowDir: string;
  ffmpeg: string;
  /** Writes the native soundtrack (WAV) for a request; the embedded generator's audio. */
  soundtrack: (req: GenerationRequest, durationS: number, file: string) => Promise<void>;
  pollMs?: number;
  timeoutMs?: number;
}

const NUMERIC = new Set(['seed', 'width', 'height', 'frames', 'fps', 'duration_s', 'quality_steps']);
const VIDEO_EXT = /\.(mp4|webm|mov|mkv|gif)$/i;

/**
 * A failure of the ComfyUI backend. Retryable ones (unreachable, 5xx, timeout) are retried by the
 * queue with backoff; the others (the server refused or failed the workflow) fail the video at once
 * with the server's own message, so an operator sees why.
 */
export class ComfyUiError extends AppError {
  constructor(message: string, retryable: boolean) {
    super('INTERNAL_ERROR', message, { retryable, action: retryable ? 'retry_later' : 'contact_support' });
    this.name = 'ComfyUiError';
  }
}

/** Replaces `{{name}}` placeholders throughout a workflow (a value that is only a placeholder keeps its type). */
export function fillWorkflow(node: unknown, vars: Record<string, string | number | null>): unknown {
  if (typeof node === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(node);
    if (whole && whole[1] in vars) {
      const v = vars[whole[1]];
      return NUMERIC.has(whole[1]) && v !== null ? Number(v) : v;
    }
    return node.replace(/\{\{(\w+)\}\}/g, (m, k: string) => (k in vars ? String(vars[k] ?? '') : m));
  }
  if (Array.isArray(node)) return node.map((n) => fillWorkflow(n, vars));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fillWorkflow(v, vars)]));
  return node;
}

/** The first video file among a finished prompt's outputs (any node, any output list). */
export function findVideoOutput(
  outputs: Record<string, Record<string, unknown>>,
): { filename: string; subfolder: string; type: string } | null {
  for (const out of Object.values(outputs)) {
    for (const list of Object.values(out)) {
      if (!Array.isArray(list)) continue;
      for (const item of list as Array<Record<string, unknown>>) {
        if (item && typeof item.filename === 'string' && VIDEO_EXT.test(item.filename)) {
          return {
            filename: item.filename,
            subfolder: typeof item.subfolder === 'string' ? item.subfolder : '',
            type: typeof item.type === 'string' ? item.type : 'output',
          };
        }
      }
    }
  }
  return null;
}

function run(cmd: string, args: string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    const onAbort = () => p.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    p.on('error', reject);
    p.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (code === 0) resolve();
      else reject(new ComfyUiError(`ffmpeg failed normalising the ComfyUI output (exit ${code}): ${err.trim()}`, false));
    });
  });
}

export function comfyUiGenerator(opts: ComfyUiOptions): VideoGenerator {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const pollMs = opts.pollMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 900_000;

  async function call(path: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, init);
    } catch (e) {
      if (init.signal.aborted) throw e;
      throw new ComfyUiError(`ComfyUI at ${base} is unreachable: ${(e as Error).message}`, true);
    }
    if (!res.ok) {
      const body = await res.text().catch(() => '');
      throw new ComfyUiError(`ComfyUI ${init.method ?? 'GET'} ${path} answered ${res.status}: ${body.slice(0, 500)}`, res.status >= 500);
    }
    return res;
  }

  async function upload(file: string, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([await readFile(file)]), `marionette-${randomUUID()}-${basename(file)}.png`);
    form.append('overwrite', 'true');
    const res = await call('/upload/image', { method: 'POST', body: form, signal });
    const body = (await res.json()) as { name?: string; subfolder?: string };
    if (!body.name) throw new ComfyUiError('ComfyUI /upload/image answered without a file name', false);
    return body.subfolder ? `${body.subfolder}/${body.name}` : body.name;
  }

  return {
    name: 'comfyui',
    async generate(req: GenerationRequest): Promise<GenerationResult> {
      const { signal } = req;
      await mkdir(req.workDir, { recursive: true });
      const mode = req.firstFrameFile ? 'h3-i2v' : 'h3-t2v';
      const workflow = JSON.parse(await readFile(join(opts.workflowDir, `${mode}.json`), 'utf8')) as unknown;
      const frames = Math.round(req.durationS * 24);
      const vars = {
        prompt: [req.prompt, ...req.tags].join(', '),
        negative_prompt: 'blurry, distorted, watermark, text',
        seed: req.seed,
        width: req.width,
        height: req.height,
        frames,
        fps: 24,
        duration_s: req.durationS,
        quality_steps: req.quality === 'high' ? 40 : 20,
        first_frame: req.firstFrameFile ? await upload(req.firstFrameFile, signal) : null,
        last_frame: req.lastFrameFile ? await upload(req.lastFrameFile, signal) : null,
      };
      req.onProgress(5);
      const clientId = randomUUID();
      // Queued without the job's signal: a cancellation that lands while this answer is in flight must
      // still learn the prompt's ID, or the GPU would go on with a prompt nobody can remove.
      signal.throwIfAborted();
      const queued = (await (
        await call('/prompt', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: fillWorkflow(workflow, vars), client_id: clientId }),
          signal: AbortSignal.timeout(60_000),
        })
      ).json()) as { prompt_id?: string; node_errors?: Record<string, unknown> };
      const promptId = queued.prompt_id;
      if (!promptId)
        throw new ComfyUiError(`ComfyUI refused the workflow: ${JSON.stringify(queued.node_errors ?? queued).slice(0, 500)}`, false);

      const onAbort = () => {
        void fetch(`${base}/queue`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ delete: [promptId] }),
        }).catch(() => {});
        void fetch(`${base}/interrupt`, { method: 'POST' }).catch(() => {});
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      try {
        const started = Date.now();
        let output: ReturnType<typeof findVideoOutput> = null;
        for (;;) {
          signal.throwIfAborted();
          const hist = (await (await call(`/history/${encodeURIComponent(promptId)}`, { method: 'GET', signal })).json()) as Record<
            string,
            {
              outputs?: Record<string, Record<string, unknown>>;
              status?: { status_str?: string; completed?: boolean; messages?: unknown[] };
            }
          >;
          const entry = hist[promptId];
          if (entry?.status?.status_str === 'error')
            throw new ComfyUiError(`ComfyUI failed the prompt: ${JSON.stringify(entry.status.messages ?? []).slice(0, 500)}`, false);
          if (entry && (entry.status?.completed ?? true) && entry.outputs) {
            output = findVideoOutput(entry.outputs);
            if (!output) throw new ComfyUiError('The ComfyUI workflow finished without a video output (check its save node)', false);
            break;
          }
          if (Date.now() - started > timeoutMs) throw new ComfyUiError(`ComfyUI did not finish within ${timeoutMs} ms`, true);
          req.onProgress(Math.min(80, 5 + ((Date.now() - started) / timeoutMs) * 75));
          await new Promise((r) => setTimeout(r, pollMs));
        }
        const q = new URLSearchParams({ filename: output.filename, subfolder: output.subfolder, type: output.type });
        const raw = join(req.workDir, `comfy-${basename(output.filename)}`);
        await writeFile(raw, Buffer.from(await (await call(`/view?${q}`, { method: 'GET', signal })).arrayBuffer()));
        req.onProgress(85);

        // Exact size, 24 fps, exact duration (the last frame held if short), native audio.
        const wav = join(req.workDir, 'soundtrack.wav');
        await opts.soundtrack(req, frames / 24, wav);
        const out = join(req.workDir, 'video.mp4');
        await run(
          opts.ffmpeg,
          [
            '-hide_banner',
            '-loglevel',
            'error',
            '-y',
            '-i',
            raw,
            '-i',
            wav,
            '-map',
            '0:v:0',
            '-map',
            '1:a:0',
            '-vf',
            `scale=${req.width}:${req.height}:force_original_aspect_ratio=increase,crop=${req.width}:${req.height},fps=24,tpad=stop_mode=clone:stop_duration=${req.durationS}`,
            '-frames:v',
            String(frames),
            '-c:v',
            'libx264',
            '-preset',
            req.quality === 'high' ? 'medium' : 'veryfast',
            '-crf',
            '19',
            '-pix_fmt',
            'yuv420p',
            '-c:a',
            'aac',
            '-b:a',
            '160k',
            '-t',
            (frames / 24).toFixed(3),
            '-movflags',
            '+faststart',
            out,
          ],
          signal,
        );
        req.onProgress(98);
        return { videoFile: out, durationMs: Math.round((frames * 1000) / 24), enhancedPrompt: null };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
