/**
 * Motion extraction: driving video -> per-frame pose track (with the performer's sole depth), clean
 * background plate, normalised source video and audio, all written into one directory.
 *
 * Frames stream through one ffmpeg pipe at a working size (long side <= WORK_LONG_SIDE): pose runs on a
 * further reduced copy and the plate keeps a bounded sample, so memory does not grow with duration.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { EngineError, type MotionAssets, type MotionTrack, type PoseFrame } from '../types.js';
import { abortError, decodeFrames, extractAudio, runFfmpeg, type MediaTools } from '../media/ffmpeg.js';
import { probeVideo } from '../media/probe.js';
import { isBodyDetection, type PoseDetector, type PoseResult } from '../vision/pose-detector.js';
import { createPosePool, type PosePool } from '../vision/pose-pool.js';
import { mattePerson } from '../vision/matting.js';
import { PlateBuilder } from './background-plate.js';
import { SoleSampler } from './sole-depth.js';
import { fillGaps, smoothTrack } from './track-filters.js';
import { DEFAULT_MAX_MOTION, KeyframePoser, type KeyframeStats } from './keyframes.js';

/** What the last extraction did and where its time went (wall ms from the call), for benchmarks. */
export interface ExtractionStats extends KeyframeStats {
  /** Wall ms from the call: frames decoded and posed, plate built, plate written, side jobs (source copy, audio) done. */
  timings: { posedMs: number; plateMs: number; writtenMs: number; doneMs: number };
  /** Wall ms spent measuring the sole after the pose pass (it overlaps the plate's build). */
  soleMs: number;
  plateSamples: number;
}

let lastStats: ExtractionStats | null = null;

/** Frames seen, detected and interpolated by the last extraction in this process, and its stage times (for benchmarks). */
export function lastExtractionStats(): ExtractionStats | null {
  return lastStats;
}

export interface ExtractMotionOptions {
  tools: MediaTools;
  videoFile: string;
  outDir: string;
  /** Track frame rate; default the source rate capped at 30. Clamped to 1..60. */
  targetFps?: number;
  smoothing: boolean;
  signal?: AbortSignal;
  /** 0..100, monotonic. */
  onProgress?: (percent: number) => void;
  /** Injected for tests and benchmarks; defaults to a shared pool of MoveNet Lightning workers. */
  detector?: PoseDetector;
  /**
   * Pose on key frames (keyframes.ts): the detector on every 2nd frame and on the frames between where
   * the body moved, the rest interpolated. Default true since issue 14: pose is most of a render's
   * CPU, and this runs the detector on 53-69% of the frames of the bench clips with 97.6-100% of the
   * every-frame track's joints within 0.2 torso. `false` runs the detector on every frame.
   */
  interpolate?: boolean;
  /** Key-frame settings when interpolating (keyframes.ts defaults otherwise); for tuning and benchmarks. */
  keyframes?: { span?: number; maxMotion?: number };
  /** Frames sampled for the background plate (background-plate.ts default otherwise); for tuning and benchmarks. */
  plateSamples?: number;
  /** Measure the performer's sole depth (sole-depth.ts; track.sole). Default true. */
  measureSole?: boolean;
}

/** Working decode size: enough for a 480 px plate and for MoveNet's 192 px input, cheap to move. */
const WORK_LONG_SIDE = 512;
/** A clip is refused when fewer than this share of its frames show a person. */
const MIN_DETECTED_SHARE = 0.3;
const MAX_FPS = 60;
/** Long side of the frames handed to person segmentation for the plate (the model runs at 256). */
const PLATE_SEG_SIDE = 256;
const DEFAULT_FPS_CAP = 30;

export async function extractMotion(opts: ExtractMotionOptions): Promise<MotionAssets> {
  const { tools, videoFile, outDir, signal } = opts;
  const report = progressReporter(opts.onProgress);
  const started = performance.now();
  const since = () => Math.round(performance.now() - started);
  if (signal?.aborted) throw abortError(signal);
  const info = await probeVideo(tools, videoFile);
  const fps = chooseFps(info.fps, opts.targetFps);
  const expectedFrames = Math.max(1, Math.round((info.durationMs / 1000) * fps));
  await mkdir(outDir, { recursive: true });

  const ws = Math.min(1, WORK_LONG_SIDE / Math.max(info.width, info.height));
  const workW = Math.max(2, Math.round(info.width * ws));
  const workH = Math.max(2, Math.round(info.height * ws));
  const toSrcX = info.width / workW;
  const toSrcY = info.height / workH;

  // The source video normalisation and audio copy run beside the pose pass; both are short ffmpeg jobs.
  const sourceVideoFile = 'source.mp4';
  // They are stopped and awaited when the pose pass fails, so no ffmpeg keeps writing into outDir.
  const sideStop = new AbortController();
  const sideSignal = signal ? AbortSignal.any([signal, sideStop.signal]) : sideStop.signal;
  const sideJobs = Promise.all([
    normaliseSource(tools, videoFile, path.join(outDir, sourceVideoFile), info.videoCodec, info.fps, fps, sideSignal),
    info.hasAudio ? extractAudio(tools, videoFile, path.join(outDir, 'audio.m4a'), { signal: sideSignal }) : Promise.resolve(false),
  ]);
  sideJobs.catch(() => undefined);
  try {
    return await analyseFrames();
  } catch (err) {
    sideStop.abort();
    await sideJobs.catch(() => undefined);
    // A failed extraction leaves none of its outputs behind (the directory itself is the caller's).
    await Promise.all([sourceVideoFile, 'audio.m4a', 'plate.png', 'track.json'].map((f) => rm(path.join(outDir, f), { force: true })));
    throw err;
  }

  async function analyseFrames(): Promise<MotionAssets> {
    const stream = opts.detector ? null : sharedPool().stream();
    const detector: PoseDetector = opts.detector ?? stream!;
    detector.reset?.();
    // Frames in flight: enough to keep every pool worker busy while the main thread decodes.
    const capacity = stream?.capacity ?? 1;
    const segment = stream ? stream.segment.bind(stream) : undefined;
    const plate = new PlateBuilder(workW, workH, expectedFrames, {
      segment: segment && ((rgba, w, h) => segment(rgba, w, h, PLATE_SEG_SIDE)),
      maxSamples: opts.plateSamples,
    });
    const soles = opts.measureSole === false ? null : new SoleSampler(workW, workH);
    const raw: PoseFrame[] = [];
    const record = (index: number, found: PoseResult | null) => {
      const timeMs = (index * 1000) / fps;
      soles?.record(index, isBodyDetection(found) ? found.body : null);
      raw.push(
        isBodyDetection(found)
          ? {
              timeMs,
              body: found.body.map((k) => ({ x: k.x * toSrcX, y: k.y * toSrcY, score: k.score })),
              score: found.score,
              detected: true,
            }
          : { timeMs, body: [], score: 0, detected: false },
      );
      report((90 * (index + 1)) / Math.max(expectedFrames, index + 1));
    };
    const poser = new KeyframePoser((frame, hint) => detector.detect(frame, workW, workH, hint), record, {
      capacity,
      maxMotion: opts.interpolate === false ? 0 : (opts.keyframes?.maxMotion ?? DEFAULT_MAX_MOTION),
      span: opts.keyframes?.span,
    });
    let decoded = 0;
    try {
      for await (const frame of decodeFrames(tools, videoFile, { fps, width: workW, height: workH, signal })) {
        plate.offer(decoded, frame);
        soles?.offer(decoded, frame);
        await poser.offer(decoded++, frame);
      }
      await poser.finish();
    } finally {
      stream?.end();
    }
    const timings = { posedMs: since(), plateMs: 0, writtenMs: 0, doneMs: 0 };
    lastStats = { ...poser.stats, timings, plateSamples: plate.sampleCount, soleMs: 0 };
    if (signal?.aborted) throw abortError(signal);

    const detectedCount = raw.filter((f) => f.detected).length;
    if (raw.length === 0) throw new EngineError('INVALID_MOTION', 'The driving video has no decodable frames', { videoFile });
    if (detectedCount / raw.length < MIN_DETECTED_SHARE) {
      throw new EngineError(
        'INVALID_MOTION',
        `No performer found: a person's body (head and shoulders at least) was detected in ${detectedCount} ` +
          `of ${raw.length} frames; at least ${Math.round(MIN_DETECTED_SHARE * 100)}% are needed`,
        { detectedFrames: detectedCount, frameCount: raw.length },
      );
    }
    const emptyBody = () => Array.from({ length: 17 }, () => ({ x: 0, y: 0, score: 0 }));
    const filled = fillGaps(raw.map((f) => (f.detected ? f : { ...f, body: emptyBody() })))!;
    const frames = opts.smoothing ? smoothTrack(filled, fps, Math.max(info.width, info.height)) : filled;

    // The sole is measured against the stored (smoothed) ankles, which the retargeter stands on; its
    // matting runs on the pool's workers while the plate is built here.
    const soleStarted = performance.now();
    const sole = soles
      ? soles
          .measure(frames, { x: 1 / toSrcX, y: 1 / toSrcY }, stream ? stream.matte.bind(stream) : mattePerson)
          .catch(() => null)
          .finally(() => (lastStats!.soleMs = Math.round(performance.now() - soleStarted)))
      : Promise.resolve(null);
    // The plate uses the filled but unsmoothed track: smoothing lags fast limbs and would uncover them.
    const [{ rgb }, measured] = await Promise.all([
      plate.build((i) => (filled[i] ? filled[i].body.map((k) => ({ x: k.x / toSrcX, y: k.y / toSrcY, score: k.score })) : null)),
      sole,
    ]);
    timings.plateMs = since();
    const plateFile = 'plate.png';
    await sharp(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.length), { raw: { width: plate.width, height: plate.height, channels: 3 } })
      .resize(info.width, info.height, { kernel: 'lanczos3' })
      .png({ compressionLevel: 6 })
      .toFile(path.join(outDir, plateFile));
    report(95);

    const track: MotionTrack = {
      version: 1,
      fps,
      frameCount: frames.length,
      durationMs: Math.round((frames.length * 1000) / fps),
      width: info.width,
      height: info.height,
      smoothing: opts.smoothing,
      frames,
      ...(measured ? { sole: measured } : {}),
    };
    const trackFile = 'track.json';
    await writeFile(path.join(outDir, trackFile), JSON.stringify(track));
    timings.writtenMs = since();
    const [, hasAudio] = await sideJobs;
    timings.doneMs = since();
    report(100);
    return { dir: outDir, track, trackFile, sourceVideoFile, plateFile, audioFile: hasAudio ? 'audio.m4a' : null };
  }
}

let pool: PosePool | null = null;

/** One pool per process: workers load their models once and idle (unref'd) between jobs. */
function sharedPool(): PosePool {
  pool ??= createPosePool({ track: true });
  return pool;
}

/**
 * Starts the shared pose workers and loads their models ahead of the first job (a few seconds of
 * cold start otherwise land on the first extraction). Safe to call more than once.
 */
export function warmUpMotionExtraction(): void {
  sharedPool();
}

export function chooseFps(sourceFps: number, target?: number): number {
  const want = target && target > 0 ? target : Math.min(sourceFps, DEFAULT_FPS_CAP);
  const fps = Math.min(MAX_FPS, Math.max(1, want));
  // Keep common NTSC rates exact-ish but avoid long binary fractions in track.json.
  return Math.round(fps * 1000) / 1000;
}

/**
 * H.264 copy of the driving video at the track rate, without audio. Remuxes when the source is already
 * H.264 at that rate (no generation loss, ~instant); otherwise re-encodes with even dimensions.
 */
async function normaliseSource(
  tools: MediaTools,
  input: string,
  output: string,
  codec: string,
  sourceFps: number,
  fps: number,
  signal?: AbortSignal,
): Promise<void> {
  const base = ['-v', 'error', '-i', input, '-map', '0:v:0', '-an', '-sn', '-dn'];
  if (codec === 'h264' && Math.abs(sourceFps - fps) < 0.01) {
    await runFfmpeg(tools, [...base, '-c:v', 'copy', '-movflags', '+faststart', output], { signal });
    return;
  }
  await runFfmpeg(
    tools,
    [
      ...base,
      '-vf',
      `fps=${fps},scale=trunc(iw/2)*2:trunc(ih/2)*2`,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '20',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      output,
    ],
    { signal },
  );
}

function progressReporter(fn?: (p: number) => void): (p: number) => void {
  let last = -1;
  return (p) => {
    const v = Math.floor(Math.min(100, Math.max(0, p)));
    if (!fn || v <= last) return;
    last = v;
    fn(v);
  };
}
