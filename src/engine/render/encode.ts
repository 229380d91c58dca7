/**
 * Raw-frame H.264 encoder: one ffmpeg process reading rawvideo from stdin. Frames are written with
 * backpressure (each write resolves when ffmpeg's pipe has taken the bytes), so the caller can reuse
 * a small ring of frame buffers and memory stays flat with duration.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface EncoderOptions {
  ffmpeg: string;
  width: number;
  height: number;
  fps: number;
  /** 'rgba' colour frames or 'gray' single-channel mask frames. */
  input: 'rgba' | 'gray';
  outFile: string;
  /** Optional AAC (.m4a) to mux, trimmed to the video duration. */
  audioFile?: string | null;
  /** Output duration in seconds (the motion's); keeps a longer audio track from extending it. */
  durationS: number;
  crf?: number;
  /** x264 preset (default veryfast). */
  preset?: string;
  /** `copy` (default) muxes AAC as is; `aac` encodes the audio input (e.g. a WAV mix). */
  audioCodec?: 'copy' | 'aac';
}

/** Pure argument builder (kept separate so it can be read and tested without spawning). */
export function encoderArgs(o: EncoderOptions): string[] {
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'rawvideo',
    '-pix_fmt',
    o.input,
    '-s',
    `${o.width}x${o.height}`,
    '-framerate',
    String(o.fps),
    '-i',
    'pipe:0',
  ];
  if (o.audioFile) args.push('-i', o.audioFile);
  args.push('-map', '0:v:0');
  if (o.audioFile) args.push('-map', '1:a:0', ...(o.audioCodec === 'aac' ? ['-c:a', 'aac', '-b:a', '160k'] : ['-c:a', 'copy']));
  args.push(
    '-c:v',
    'libx264',
    '-preset',
    o.preset ?? 'veryfast',
    '-crf',
    String(o.crf ?? 20),
    // The mask is encoded as yuv420p too (players expect it); its chroma is neutral grey.
    '-pix_fmt',
    'yuv420p',
    '-r',
    String(o.fps),
    '-t',
    o.durationS.toFixed(3),
    '-movflags',
    '+faststart',
    o.outFile,
  );
  return args;
}

export class FrameEncoder {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private stderr = '';
  private failure: Error | null = null;

  constructor(readonly options: EncoderOptions) {
    this.proc = spawn(options.ffmpeg, encoderArgs(options), { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stderr.on('data', (d: Buffer) => {
      // Keep only the tail: enough for an error message, bounded for long renders.
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    this.proc.stdout.resume();
    this.proc.stdin.on('error', (e) => {
      this.failure ??= e;
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('error', (e) => {
        this.failure ??= e;
        resolve({ code: -1, signal: null });
      });
      this.proc.on('close', (code, signal) => resolve({ code, signal }));
    });
  }

  /** Resolves once ffmpeg has consumed the frame; the buffer must not change before that. */
  write(frame: Uint8Array | Uint8ClampedArray): Promise<void> {
    if (this.failure) return Promise.reject(this.error('ffmpeg stopped accepting frames'));
    return new Promise((resolve, reject) => {
      this.proc.stdin.write(frame, (err) => (err ? reject(this.error(`writing a frame failed: ${err.message}`)) : resolve()));
    });
  }

  /** Closes stdin and waits for ffmpeg to finish the file. */
  async finish(): Promise<void> {
    this.proc.stdin.end();
    const { code, signal } = await this.exited;
    if (code !== 0) throw this.error(`ffmpeg exited with ${code ?? signal}`);
  }

  /** Kills ffmpeg at once and waits for it to exit. */
  async kill(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    this.proc.stdin.destroy();
    await this.exited;
  }

  private error(msg: string): Error {
    const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return new Error(`${msg}${tail ? `: ${tail}` : ''}`);
  }
}
