import { stat } from 'node:fs/promises';
import { AppError } from '../../contracts/errors.js';
import type { ImageInfo, VideoInfo } from '../ports/engine.js';
import { imageDecodeFailure } from '../../infra/media/image-integrity.js';
import type { Ports } from '../ports/index.js';

/**
 * Media checked at the door (DECISIONS "Media limits"). The type comes from the file's content via
 * the engine's probes, never from its name or declared MIME type; the limits come from config so an
 * operator (and the tests) can tighten them. Every refusal is 422 UNSUPPORTED_MEDIA with the
 * measured value and the limit in `details`. These functions never delete the file: the caller owns
 * it and removes it on refusal, so nothing is left on disk.
 */
export type MediaCheckDeps = Pick<Ports, 'engine' | 'config'>;

function unsupported(message: string, details: Record<string, unknown>, cause?: unknown): AppError {
  return new AppError('UNSUPPORTED_MEDIA', message, { details, cause });
}

/** An EngineError (or any probe failure) becomes UNSUPPORTED_MEDIA; file paths never leak out. */
function fromProbeError(kind: 'image' | 'video', e: unknown): AppError {
  if (e instanceof AppError) return e;
  const err = e as { name?: string; message?: string; code?: string; details?: Record<string, unknown> };
  const details: Record<string, unknown> = { media: kind };
  if (err?.name === 'EngineError' && err.details) {
    for (const [k, v] of Object.entries(err.details)) if (k !== 'file' && k !== 'cause') details[k] = v;
  }
  const reason = err?.name === 'EngineError' && err.message ? err.message : `The ${kind} could not be read`;
  const accepted = kind === 'image' ? 'PNG, JPEG or WebP' : 'MP4, MOV or WebM';
  return unsupported(`${reason}. Send a ${accepted} file.`, details, e);
}

async function sizeOf(file: string): Promise<number> {
  return (await stat(file)).size;
}

export async function checkImageFile(deps: MediaCheckDeps, file: string): Promise<ImageInfo> {
  const limits = deps.config.limits;
  // Size first: it is cheap and keeps oversized files away from the decoder.
  const size = await sizeOf(file);
  if (size > limits.imageBytes) {
    throw unsupported(`The image is ${size} bytes; the limit is ${limits.imageBytes} bytes.`, {
      media: 'image',
      size_bytes: size,
      limit_bytes: limits.imageBytes,
    });
  }
  if (size === 0) throw unsupported('The image file is empty.', { media: 'image', size_bytes: 0 });
  let info: ImageInfo;
  try {
    info = await deps.engine.probeImage(file);
  } catch (e) {
    throw fromProbeError('image', e);
  }
  const side = limits.imageMaxSide;
  if (info.width > side || info.height > side) {
    throw unsupported(`The image is ${info.width}x${info.height} px; at most ${side} px per side is accepted.`, {
      media: 'image',
      format: info.format,
      width: info.width,
      height: info.height,
      max_side_px: side,
    });
  }
  // The probe read only the header: a truncated or corrupt body must be refused here, not in a worker.
  const failure = await imageDecodeFailure(file, side * side);
  if (failure !== null) {
    throw unsupported('The image is truncated or corrupt and cannot be decoded. Send a complete PNG, JPEG or WebP file.', {
      media: 'image',
      format: info.format,
      reason: failure,
    });
  }
  return info;
}

/**
 * The container probed fine; now the frames themselves (issue #14): a short decode of the start,
 * middle and end. A check cut by its time budget lets the file through (a busy machine is no
 * evidence of damage; the worker's full decode still fails cleanly and refunds).
 */
async function checkFrames(deps: MediaCheckDeps, file: string, info: VideoInfo, base: Record<string, unknown>): Promise<void> {
  const budget = deps.config.limits.videoDecodeCheckMs;
  if (budget <= 0) return;
  const r = await deps.engine.checkVideoFrames(file, info.durationMs, budget);
  if (r.failure !== null) {
    throw unsupported(
      'The video probes as a valid container but its frames are corrupt and cannot be decoded. Send a complete, undamaged MP4, MOV or WebM file.',
      {
        ...base,
        reason: 'corrupt_frames',
        decoder_error: r.failure,
      },
    );
  }
}

/**
 * `frames: false` skips the decode of the start, middle and end (the probe-level checks still run): for
 * a file that already passed this whole check at the door and only moved through storage since.
 */
export async function checkVideoFile(deps: MediaCheckDeps, file: string, opts: { frames?: boolean } = {}): Promise<VideoInfo> {
  const limits = deps.config.limits;
  const size = await sizeOf(file);
  if (size > limits.videoBytes) {
    throw unsupported(`The video is ${size} bytes; the limit is ${limits.videoBytes} bytes.`, {
      media: 'video',
      size_bytes: size,
      limit_bytes: limits.videoBytes,
    });
  }
  if (size === 0) throw unsupported('The video file is empty.', { media: 'video', size_bytes: 0 });
  let info: VideoInfo;
  try {
    info = await deps.engine.probeVideo(file);
  } catch (e) {
    throw fromProbeError('video', e);
  }
  const base = { media: 'video', container: info.container, duration_ms: info.durationMs, width: info.width, height: info.height };
  if (info.durationMs < limits.videoMinMs || info.durationMs > limits.videoMaxMs) {
    throw unsupported(
      `The video lasts ${(info.durationMs / 1000).toFixed(3)} s; it must last from ${limits.videoMinMs / 1000} to ${limits.videoMaxMs / 1000} s.`,
      { ...base, min_duration_ms: limits.videoMinMs, max_duration_ms: limits.videoMaxMs },
    );
  }
  const small = Math.min(info.width, info.height);
  const large = Math.max(info.width, info.height);
  if (small < limits.videoMinSide || large > limits.videoMaxSide) {
    throw unsupported(
      `The video is ${info.width}x${info.height} px; each side must be from ${limits.videoMinSide} to ${limits.videoMaxSide} px.`,
      {
        ...base,
        min_side_px: limits.videoMinSide,
        max_side_px: limits.videoMaxSide,
      },
    );
  }
  if (opts.frames !== false) await checkFrames(deps, file, info, base);
  return info;
}
