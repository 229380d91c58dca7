import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { mediaFile } from './harness.js';

const run = promisify(execFile);
export const tools = resolveTools(process.env);

/**
 * Small copies of the shared media for end-to-end runs on 2 cores: a driving clip trimmed to
 * `seconds` and scaled down, and a downscaled character picture. Made in a temp dir, never in the repo.
 */
export async function prepareMedia(opts: {
  seconds: number;
  video?: string;
  image?: string;
  width?: number;
}): Promise<{ dir: string; video: string; image: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'marionette-e2e-media-'));
  const video = join(dir, 'driving.mp4');
  const image = join(dir, 'character.jpg');
  const w = opts.width ?? 256;
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    mediaFile(opts.video ?? 'videos/animate-x--dance_3.mp4'),
    '-t',
    String(opts.seconds),
    '-vf',
    `scale=${w}:-2`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    video,
  ]);
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    mediaFile(opts.image ?? 'images/mimicmotion--demo1.jpg'),
    '-vf',
    'scale=360:-2',
    image,
  ]);
  return { dir, video, image };
}

export interface ProbedVideo {
  durationS: number;
  codec: string;
  width: number;
  height: number;
  frames: number;
  pixFmt: string;
}

export async function ffprobe(file: string): Promise<ProbedVideo> {
  const { stdout } = await run(tools.ffprobe, [
    '-v',
    'error',
    '-count_frames',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=codec_name,width,height,nb_read_frames,pix_fmt:format=duration,format_name',
    '-of',
    'json',
    file,
  ]);
  const j = JSON.parse(stdout);
  const s = j.streams[0];
  return {
    durationS: Number(j.format.duration),
    codec: s.codec_name,
    width: s.width,
    height: s.height,
    frames: Number(s.nb_read_frames),
    pixFmt: s.pix_fmt,
  };
}
