/**
 * Media probing by content. File names and extensions are never trusted: several sample files carry
 * an extension that does not match their bytes.
 */
import { open } from 'node:fs/promises';
import sharp from 'sharp';
import { EngineError, type ImageInfo, type VideoInfo } from '../types.js';
import { runProcess, type MediaTools } from './ffmpeg.js';

function sniffImage(head: Buffer): ImageInfo['format'] | null {
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') {
    return 'webp';
  }
  return null;
}

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Format by magic bytes; width/height as displayed, i.e. after EXIF orientation. */
export async function probeImage(file: string): Promise<ImageInfo> {
  let head: Buffer;
  try {
    head = await readHead(file, 16);
  } catch (err) {
    throw new EngineError('UNSUPPORTED_MEDIA', `Cannot read image file: ${(err as Error).message}`, { file });
  }
  const format = sniffImage(head);
  if (!format) {
    throw new EngineError('UNSUPPORTED_MEDIA', 'Image is not PNG, JPEG or WebP (checked by content)', {
      file,
      magic: head.subarray(0, 8).toString('hex'),
    });
  }
  let meta: sharp.Metadata;
  try {
    meta = await sharp(file).metadata();
  } catch (err) {
    throw new EngineError('UNSUPPORTED_MEDIA', `Image is corrupt or unreadable: ${(err as Error).message}`, {
      file,
      format,
    });
  }
  if (!meta.width || !meta.height) {
    throw new EngineError('UNSUPPORTED_MEDIA', 'Image has no dimensions', { file, format });
  }
  // EXIF orientations 5..8 are transposing: the displayed image is rotated by 90 degrees.
  const swap = (meta.orientation ?? 1) >= 5;
  return {
    format,
    width: swap ? meta.height : meta.width,
    height: swap ? meta.width : meta.height,
    hasAlpha: Boolean(meta.hasAlpha),
  };
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  nb_frames?: string;
  tags?: Record<string, string>;
  side_data_list?: Array<{ rotation?: number }>;
  disposition?: { attached_pic?: number };
}
interface ProbeJson {
  format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
  streams?: ProbeStream[];
}

function rate(s: string | undefined): number {
  if (!s) return 0;
  const [n, d] = s.split('/').map(Number);
  const v = d ? n / d : n;
  return Number.isFinite(v) && v > 0 ? v : 0;
}

const WEBM_CODECS = new Set(['vp8', 'vp9', 'av1']);

/** Container, duration, display size (rotation applied), frame rate and audio presence, via ffprobe. */
export async function probeVideo(tools: MediaTools, file: string): Promise<VideoInfo> {
  let json: ProbeJson;
  try {
    const { stdout } = await runProcess(tools.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
      stdout: true,
    });
    json = JSON.parse(stdout) as ProbeJson;
  } catch (err) {
    throw new EngineError('UNSUPPORTED_MEDIA', 'Video is corrupt or not a recognised media file', {
      file,
      cause: (err as Error).message.slice(0, 500),
    });
  }
  const formatName = json.format?.format_name ?? '';
  const streams = json.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video || !video.width || !video.height) {
    throw new EngineError('UNSUPPORTED_MEDIA', 'File has no video stream', { file, formatName });
  }
  let container: VideoInfo['container'];
  if (formatName.includes('mp4') || formatName.includes('mov')) {
    // The ISO BMFF demuxer reports "mov,mp4,..." for both; the major brand tells QuickTime apart.
    container = (json.format?.tags?.major_brand ?? '').trim() === 'qt' ? 'mov' : 'mp4';
  } else if (formatName.includes('webm') && WEBM_CODECS.has(video.codec_name ?? '')) {
    container = 'webm';
  } else {
    throw new EngineError('UNSUPPORTED_MEDIA', 'Video container must be MP4, MOV or WebM', {
      file,
      formatName,
      videoCodec: video.codec_name,
    });
  }
  const fps = rate(video.avg_frame_rate) || rate(video.r_frame_rate);
  const durationS = Number(json.format?.duration ?? video.duration ?? NaN);
  if (!fps || !Number.isFinite(durationS) || durationS <= 0) {
    throw new EngineError('UNSUPPORTED_MEDIA', 'Video has no usable frame rate or duration', {
      file,
      fps,
      duration: json.format?.duration,
    });
  }
  const rotation = Number(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0);
  const quarter = Math.abs(Math.round(rotation / 90)) % 2 === 1;
  return {
    container,
    durationMs: Math.round(durationS * 1000),
    width: quarter ? video.height : video.width,
    height: quarter ? video.width : video.height,
    fps,
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
    videoCodec: video.codec_name ?? 'unknown',
  };
}
