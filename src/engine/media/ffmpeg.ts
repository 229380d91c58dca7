/**
 * ffmpeg/ffprobe process plumbing. Binaries are always passed in (`tools`); only `resolveTools` looks at
 * an environment, and only the one its caller hands it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
}

/** Binary paths: FFMPEG_PATH / FFPROBE_PATH from `env` when set, else the bundled installer binaries. */
export function resolveTools(env: Record<string, string | undefined>): MediaTools {
  const require = createRequire(import.meta.url);
  const ffmpeg = env.FFMPEG_PATH || (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const ffprobe = env.FFPROBE_PATH || (require('@ffprobe-installer/ffprobe') as { path: string }).path;
  return { ffmpeg, ffprobe };
}

export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('The operation was aborted', { cause: reason });
  err.name = 'AbortError';
  return err;
}

/** Last bytes of stderr kept for error messages; ffmpeg can log megabytes on broken input. */
const STDERR_KEEP = 16 * 1024;

function collectStderr(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    text += s;
    if (text.length > STDERR_KEEP * 2) text = text.slice(-STDERR_KEEP);
  });
  return () => text.slice(-STDERR_KEEP);
}

function kill(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Runs a program to completion; rejects on non-zero exit, or with AbortError (child killed) on abort. */
export function runProcess(
  bin: string,
  args: string[],
  opts: { signal?: AbortSignal; stdout?: boolean } = {},
): Promise<{ stdout: string; stderr: string }> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', opts.stdout ? 'pipe' : 'ignore', 'pipe'] });
    const stderr = collectStderr(child);
    let stdout = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (s: string) => (stdout += s));
    const onAbort = () => kill(child);
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code, sig) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(abortError(signal));
      if (code === 0) return resolve({ stdout, stderr: stderr() });
      const tail = stderr().trim().split('\n').slice(-5).join('\n');
      reject(new Error(`${bin.split('/').pop()} exited with ${code ?? sig}: ${tail}`));
    });
  });
}

export async function runFfmpeg(tools: MediaTools, args: string[], opts: { signal?: AbortSignal } = {}): Promise<{ stderr: string }> {
  const { stderr } = await runProcess(tools.ffmpeg, ['-hide_banner', '-nostdin', '-y', ...args], opts);
  return { stderr };
}

export interface DecodeOptions {
  /** Output frame rate; frames are duplicated/dropped by ffmpeg's fps filter (frame i sits at i/fps s). */
  fps: number;
  width: number;
  height: number;
  signal?: AbortSignal;
}

/**
 * Streams RGBA frames of exactly width*height*4 bytes. Memory stays at about one frame plus the pipe
 * buffer: the stdout iterator pauses the pipe while the consumer works. Breaking out of the loop kills
 * ffmpeg.
 */
export async function* decodeFrames(tools: MediaTools, file: string, opts: DecodeOptions): AsyncGenerator<Buffer, void, undefined> {
  const { fps, width, height, signal } = opts;
  if (signal?.aborted) throw abortError(signal);
  const frameBytes = width * height * 4;
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-i',
    file,
    '-an',
    '-sn',
    '-dn',
    '-vf',
    `fps=${fps},scale=${width}:${height}:flags=bilinear,format=rgba`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    'pipe:1',
  ];
  const child = spawn(tools.ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr = collectStderr(child);
  const exited = new Promise<{ code: number | null; sig: string | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, sig) => resolve({ code, sig }));
  });
  exited.catch(() => undefined);
  const onAbort = () => kill(child);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let frame = Buffer.allocUnsafe(frameBytes);
    let filled = 0;
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let off = 0;
      while (off < chunk.length) {
        const n = Math.min(frameBytes - filled, chunk.length - off);
        chunk.copy(frame, filled, off, off + n);
        filled += n;
        off += n;
        if (filled === frameBytes) {
          yield frame;
          frame = Buffer.allocUnsafe(frameBytes);
          filled = 0;
        }
      }
    }
    const { code, sig } = await exited;
    if (signal?.aborted) throw abortError(signal);
    if (code !== 0) {
      const tail = stderr().trim().split('\n').slice(-5).join('\n');
      throw new Error(`ffmpeg decode of ${file} exited with ${code ?? sig}: ${tail}`);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    kill(child);
  }
  if (signal?.aborted) throw abortError(signal);
}

/** Copies the first audio stream to AAC in .m4a. Resolves false (and writes nothing) when there is none. */
export async function extractAudio(
  tools: MediaTools,
  file: string,
  outFile: string,
  opts: { signal?: AbortSignal } = {},
): Promise<boolean> {
  const { stdout } = await runProcess(
    tools.ffprobe,
    ['-v', 'error', '-select_streams', 'a', '-show_entries', 'stream=index', '-of', 'csv=p=0', file],
    { ...opts, stdout: true },
  );
  if (stdout.trim() === '') return false;
  await runFfmpeg(
    tools,
    ['-v', 'error', '-i', file, '-map', '0:a:0', '-vn', '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', outFile],
    opts,
  );
  return true;
}
