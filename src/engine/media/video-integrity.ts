/**
 * A probe reads the container's index, not the frames: a file whose `moov` is intact but whose
 * `mdat` is damaged probes fine and fails later, inside a worker. This check decodes three short
 * windows (start, middle, end) of the first video stream and reports the first decoder error.
 *
 * Bounded in time: each window is at most `windowS` seconds of video, the windows decode side by side,
 * one short ffmpeg process each, and the whole check is cut at `timeoutMs`. A
 * check cut by the budget is reported as `timedOut` (the caller decides; the service accepts the
 * file, since slowness on a busy machine is not evidence of corruption, and the worker's own
 * decode still fails cleanly with a refund).
 */
import { spawn } from 'node:child_process';
import type { MediaTools } from './ffmpeg.js';

export interface FrameCheck {
  /** null when every window decoded without an error; otherwise the decoder's first error line. */
  failure: string | null;
  /** Frames decoded across the windows. */
  frames: number;
  timedOut: boolean;
}

/** ffmpeg prints these at `-v error` for damage inside frames; any other error line counts as well. */
function firstErrorLine(stderr: string): string | null {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  // The decoder prefixes lines with "[h264 @ 0x...]": the address says nothing to a client.
  return line === undefined ? null : line.replace(/ @ 0x[0-9a-f]+\]/i, ']').slice(0, 300);
}

const THUMB = 16;

function decodeWindow(
  tools: MediaTools,
  file: string,
  startS: number,
  windowS: number,
  deadline: number,
): Promise<{ stderr: string; code: number | null; frames: number; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const args = [
      '-hide_banner',
      '-nostdin',
      '-v',
      'error',
      '-xerror',
      ...(startS > 0 ? ['-ss', startS.toFixed(3)] : []),
      '-i',
      file,
      '-map',
      '0:v:0',
      '-an',
      '-sn',
      '-dn',
      '-t',
      windowS.toFixed(3),
      // Tiny grey frames on stdout: every frame is fully decoded, scaling costs nothing, and the
      // count is the byte count (the null muxer complains about some WebM timestamps instead).
      '-vf',
      `scale=${THUMB}:${THUMB}`,
      '-pix_fmt',
      'gray',
      '-f',
      'rawvideo',
      'pipe:1',
    ];
    const child = spawn(tools.ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let bytes = 0;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      if (stderr.length < 8192) stderr += s;
    });
    child.stdout.on('data', (b: Buffer) => {
      bytes += b.length;
    });
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(1, deadline - Date.now()),
    );
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const frames = Math.floor(bytes / (THUMB * THUMB));
      resolve({ stderr, code, frames, timedOut });
    });
  });
}

export async function checkVideoFrames(
  tools: MediaTools,
  file: string,
  durationMs: number,
  opts: { timeoutMs: number; windowS?: number },
): Promise<FrameCheck> {
  const windowS = opts.windowS ?? 0.5;
  const dur = durationMs / 1000;
  // Start, middle and the last window before the end; a short clip collapses to fewer windows.
  const starts = [...new Set([0, Math.max(0, dur / 2 - windowS / 2), Math.max(0, dur - windowS)].map((s) => Math.round(s * 1000) / 1000))];
  const deadline = Date.now() + opts.timeoutMs;
  // The windows decode side by side (one short ffmpeg each); the verdict reads them in order.
  const results = await Promise.all(starts.map((start) => decodeWindow(tools, file, start, windowS, deadline)));
  let frames = 0;
  for (const r of results) {
    frames += r.frames;
    const err = firstErrorLine(r.stderr);
    if (err !== null && !r.timedOut) return { failure: err, frames, timedOut: false };
    if (r.timedOut) return { failure: null, frames, timedOut: true };
    if (r.code !== 0) return { failure: `the decoder exited with ${r.code}`, frames, timedOut: false };
  }
  // A window may hold no frame at all in a valid clip (2 fps, or a still stretch of a variable-rate
  // screen recording), so only a clip in which no window decoded anything is refused for that.
  if (frames === 0)
    return { failure: `no frame could be decoded at ${starts.map((s) => s.toFixed(1)).join(', ')} s`, frames, timedOut: false };
  return { failure: null, frames, timedOut: false };
}
