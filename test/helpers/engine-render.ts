/**
 * Helpers for render tests and the engine benchmark: ffprobe facts, building character directories
 * from known keypoints (so render tests do not depend on the pose model), and a hand-made motion
 * directory around a trimmed real clip (real source video, plate and audio; template keypoints).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { defaultCharacterKeypoints, writeDefaultCharacterImage } from '../../src/engine/builtins/default-character.js';
import { templateTrack } from '../../src/engine/builtins/templates.js';
import { makeSynthDrawing, type SynthDrawing } from '../../bench/_drawing-synth.js';
import { rigFromTexture, type CharacterAssets, type Engine, type MotionAssets, type Rig } from '../../src/engine/index.js';
import { figurePieces } from '../../src/engine/render/figure-metrics.js';
import { createFrameRenderer, type FrameRenderer } from '../../src/engine/render/render-video.js';
import type { MediaTools } from '../../src/engine/media/ffmpeg.js';
import type { CharacterAnalysis, MotionTrack } from '../../src/engine/types.js';
import { analysisFromAnimatedDrawings, mediaPath } from './engine-fixtures.js';

const run = promisify(execFile);

export interface StreamFacts {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  frames: number;
  durationS: number;
  hasAudio: boolean;
}

export async function probeFacts(tools: MediaTools, file: string): Promise<StreamFacts> {
  const { stdout } = await run(tools.ffprobe, ['-v', 'error', '-count_frames', '-show_streams', '-show_format', '-of', 'json', file]);
  const j = JSON.parse(stdout) as { streams: Array<Record<string, string | number>>; format: { duration: string } };
  const v = j.streams.find((s) => s.codec_type === 'video')!;
  return {
    codec: String(v.codec_name),
    pixFmt: String(v.pix_fmt),
    width: Number(v.width),
    height: Number(v.height),
    frames: Number(v.nb_read_frames),
    durationS: Number(j.format.duration),
    hasAudio: j.streams.some((s) => s.codec_type === 'audio'),
  };
}

export async function writeCharacterDir(dir: string, analysis: CharacterAnalysis, texturePng: Buffer): Promise<CharacterAssets> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'texture.png'), texturePng);
  const rig = await rigFromTexture(analysis, join(dir, 'texture.png'));
  await writeFile(join(dir, 'character.json'), JSON.stringify({ version: 1, analysis, rig }));
  return { dir, analysis, characterFile: 'character.json', textureFile: 'texture.png', thumbnailFile: null };
}

/** AnimatedDrawings char1 with its mask as alpha and its annotated joints. */
export async function char1Character(dir: string): Promise<CharacterAssets> {
  const { data, info } = await sharp(mediaPath('images/animateddrawings--char1-texture.png'))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const mask = await sharp(mediaPath('images/animateddrawings--char1-mask.png')).greyscale().raw().toBuffer();
  for (let i = 0; i < info.width * info.height; i++) data[i * 4 + 3] = mask[i];
  const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
    .png()
    .toBuffer();
  const analysis = analysisFromAnimatedDrawings(mediaPath('images/animateddrawings--char1-char_cfg.yaml'), info.width, info.height);
  return writeCharacterDir(dir, analysis, png);
}

/** The built-in character with its exact keypoints. */
export async function defaultCharacter(dir: string): Promise<CharacterAssets> {
  await mkdir(dir, { recursive: true });
  const image = join(dir, 'source.png');
  await writeDefaultCharacterImage(image);
  const { width, height } = await sharp(image).metadata();
  const analysis: CharacterAnalysis = {
    version: 1,
    width: width!,
    height: height!,
    maskMethod: 'alpha',
    body: defaultCharacterKeypoints(),
    poseMethod: 'model',
    crop: { x: 0, y: 0, width: width!, height: height! },
  };
  return writeCharacterDir(dir, analysis, await sharp(image).png().toBuffer());
}

/**
 * A motion directory around the first `seconds` of a real clip: source.mp4, plate.png (first frame),
 * audio.m4a when the clip has audio, and a template's keypoints rescaled to the clip's size.
 */
export async function clipMotion(tools: MediaTools, video: string, dir: string, seconds: number, fps: number): Promise<MotionAssets> {
  await mkdir(dir, { recursive: true });
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    video,
    '-t',
    String(seconds),
    '-an',
    '-r',
    String(fps),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    join(dir, 'source.mp4'),
  ]);
  await run(tools.ffmpeg, ['-v', 'error', '-y', '-i', video, '-frames:v', '1', join(dir, 'plate.png')]);
  let audioFile: string | null = 'audio.m4a';
  try {
    await run(tools.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-i',
      video,
      '-t',
      String(seconds),
      '-vn',
      '-map',
      '0:a:0',
      '-c:a',
      'aac',
      join(dir, audioFile),
    ]);
  } catch {
    audioFile = null;
  }
  const { width, height } = await sharp(join(dir, 'plate.png')).metadata();
  const tpl = templateTrack('tpl_dance');
  const n = Math.round(seconds * fps);
  const sx = width! / tpl.width,
    sy = height! / tpl.height,
    s = Math.min(sx, sy);
  const track: MotionTrack = {
    version: 1,
    fps,
    frameCount: n,
    durationMs: Math.round((n * 1000) / fps),
    width: width!,
    height: height!,
    smoothing: false,
    frames: Array.from({ length: n }, (_, i) => {
      const f = tpl.frames[Math.round((i * tpl.fps) / fps) % tpl.frames.length];
      return {
        ...f,
        timeMs: Math.round((i * 1000) / fps),
        body: f.body.map((k) => ({
          x: k.x * s + (width! - tpl.width * s) / 2,
          y: k.y * s + (height! - tpl.height * s) / 2,
          score: k.score,
        })),
      };
    }),
  };
  await writeFile(join(dir, 'track.json'), JSON.stringify(track));
  return { dir, track, trackFile: 'track.json', sourceVideoFile: 'source.mp4', plateFile: 'plate.png', audioFile };
}

/**
 * Frames of `c` on `m` in two or more pieces, of the frames sampled at 6 frames/s (transparent render;
 * every frame posed in order, as a render does).
 */
export async function framesSplit(c: CharacterAssets, m: MotionAssets): Promise<{ split: number; sampled: number }> {
  const rig = (JSON.parse(await readFile(join(c.dir, c.characterFile), 'utf8')) as { rig: Rig }).rig;
  const fr = await createFrameRenderer({ rig, textureFile: join(c.dir, c.textureFile), motion: m, background: { mode: 'transparent' } });
  const step = Math.max(1, Math.round(m.track.fps / 6));
  const frame = new Uint8Array(fr.width * fr.height * 4);
  let n = 0,
    sampled = 0;
  for (let i = 0; i < fr.frameCount; i++) {
    fr.draw(i, frame, []);
    if (i % step) continue;
    sampled++;
    if (figurePieces(frame, fr.width, fr.height, { stride: 4, offset: 3 }).pieces > 1) n++;
  }
  return { split: n, sampled };
}

/**
 * Generated drawing `seed` (bench/_drawing-synth.ts) analysed as an upload into `dir` and made ready to
 * render transparent on template `template`: the drawing, its character, rig and frame renderer.
 */
export async function generatedOnTemplate(
  engine: Engine,
  seed: number,
  template: string,
  dir: string,
): Promise<{ drawing: SynthDrawing; character: CharacterAssets; rig: Rig; renderer: FrameRenderer }> {
  const drawing = await makeSynthDrawing(seed, join(dir, `synth-${seed}.png`));
  const character = await engine.analyzeCharacter({ imageFile: drawing.truth.imageFile, outDir: join(dir, `c${seed}`), thumbnail: false });
  const rig = (JSON.parse(await readFile(join(character.dir, character.characterFile), 'utf8')) as { rig: Rig }).rig;
  const motion = await engine.writeTemplateMotion(template, join(dir, `${template}-${seed}`));
  const renderer = await createFrameRenderer({
    rig,
    textureFile: join(character.dir, character.textureFile),
    motion,
    background: { mode: 'transparent' },
  });
  return { drawing, character, rig, renderer };
}
