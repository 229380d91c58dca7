/**
 * Engine command line: runs each stage on local files. Prints one JSON object per command on stdout.
 * character and motion write their assets to --out; render and sheet analyse into a work directory
 * beside their output, removed at the end unless --keep (then its path is printed as workDir).
 *
 *   npm run engine -- character --image X --out DIR
 *   npm run engine -- motion (--video Y | --template tpl_wave) --out DIR [--fps N] [--no-smoothing]
 *   npm run engine -- render (--image X | --character DIR | --default-character)
 *                            (--video Y | --template tpl_wave | --motion DIR) --out Z.mp4
 *                            [--background original|solid:R,G,B|transparent] [--keep]
 *   npm run engine -- sheet (--image X | --character DIR | --default-character)
 *                           (--video Y | --template tpl_wave | --motion DIR) --out SHEET.png
 *                           [--frames 12] [--columns 6] [--background original|solid:R,G,B|transparent] [--keep]
 *   npm run engine -- templates
 */
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { contactSheet, createEngine, type BackgroundSpec, type CharacterAssets, type Engine, type MotionAssets } from '../engine/index.js';
import { resolveTools } from '../engine/media/ffmpeg.js';

function parseBackground(s: string): BackgroundSpec {
  if (s === 'original' || s === 'transparent') return { mode: s };
  const m = /^solid:(\d{1,3}),(\d{1,3}),(\d{1,3})$/.exec(s);
  if (m)
    return { mode: 'solid', color: [Number(m[1]), Number(m[2]), Number(m[3])].map((v) => Math.min(255, v)) as [number, number, number] };
  throw new Error(`--background must be original, transparent or solid:R,G,B (got ${s})`);
}

const progress =
  (label: string) =>
  (a: unknown, b?: unknown): void => {
    process.stderr.write(`\r${label} ${b === undefined ? a : `${String(a)} ${String(b)}`}%   `);
  };

async function character(engine: Engine, v: Record<string, string | boolean | undefined>, out: string): Promise<CharacterAssets> {
  if (typeof v.character === 'string') return engine.loadCharacter(resolve(v.character));
  let image = typeof v.image === 'string' ? resolve(v.image) : null;
  if (!image) {
    if (!v['default-character']) throw new Error('give --image, --character or --default-character');
    image = join(out, 'default-character.png');
    await engine.writeDefaultCharacterImage(image);
  }
  await mkdir(out, { recursive: true });
  return engine.analyzeCharacter({ imageFile: image, outDir: out, thumbnail: true, onProgress: progress('character') });
}

async function motion(engine: Engine, v: Record<string, string | boolean | undefined>, out: string): Promise<MotionAssets> {
  if (typeof v.motion === 'string') return engine.loadMotion(resolve(v.motion));
  if (typeof v.template === 'string') return engine.writeTemplateMotion(v.template, out);
  if (typeof v.video !== 'string') throw new Error('give --video, --template or --motion');
  await mkdir(out, { recursive: true });
  return engine.extractMotion({
    videoFile: resolve(v.video),
    outDir: out,
    smoothing: !v['no-smoothing'],
    targetFps: typeof v.fps === 'string' ? Number(v.fps) : undefined,
    onProgress: progress('motion'),
  });
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  const { values: v } = parseArgs({
    args: rest,
    options: {
      image: { type: 'string' },
      video: { type: 'string' },
      template: { type: 'string' },
      out: { type: 'string' },
      character: { type: 'string' },
      motion: { type: 'string' },
      'default-character': { type: 'boolean' },
      background: { type: 'string' },
      fps: { type: 'string' },
      'no-smoothing': { type: 'boolean' },
      frames: { type: 'string' },
      columns: { type: 'string' },
      keep: { type: 'boolean' },
    },
  });
  const engine = createEngine({ tools: resolveTools(process.env) });
  const t0 = performance.now();
  let result: unknown;
  // render and sheet analyse into a work directory beside the output; it goes at the end unless --keep.
  let work: string | null = null;
  try {
    if (cmd === 'templates') {
      result = { templates: engine.listTemplates() };
    } else if (cmd === 'character') {
      if (!v.out) throw new Error('--out DIR is required');
      result = await character(engine, { ...v, character: undefined }, resolve(v.out));
    } else if (cmd === 'motion') {
      if (!v.out) throw new Error('--out DIR is required');
      const m = await motion(engine, v, resolve(v.out));
      result = {
        ...m,
        track: {
          fps: m.track.fps,
          frameCount: m.track.frameCount,
          durationMs: m.track.durationMs,
          width: m.track.width,
          height: m.track.height,
        },
      };
    } else if (cmd === 'render') {
      if (!v.out) throw new Error('--out Z.mp4 is required');
      const outFile = resolve(v.out);
      work = await mkdtemp(join(dirname(outFile), '.engine-'));
      const c = await character(engine, v, join(work, 'character'));
      const m = await motion(engine, v, join(work, 'motion'));
      const r = await engine.render({
        character: c,
        motion: m,
        background: parseBackground(typeof v.background === 'string' ? v.background : 'original'),
        outDir: work,
        onProgress: progress('render'),
      });
      await rename(r.videoFile, outFile);
      const alphaOut = r.alphaFile ? outFile.replace(/\.mp4$/i, '') + '.alpha.mp4' : null;
      if (r.alphaFile && alphaOut) await rename(r.alphaFile, alphaOut);
      result = { ...r, videoFile: outFile, alphaFile: alphaOut, workDir: v.keep ? work : undefined };
    } else if (cmd === 'sheet') {
      if (!v.out) throw new Error('--out SHEET.png is required');
      const outFile = resolve(v.out);
      work = await mkdtemp(join(dirname(outFile), '.engine-'));
      const c = await character(engine, v, join(work, 'character'));
      const m = await motion(engine, v, join(work, 'motion'));
      const name = (s: unknown): string => (typeof s === 'string' ? basename(s) : '');
      const title = `${name(v.image) || name(v.character) || 'default character'} on ${name(v.video) || name(v.template) || name(v.motion)}`;
      const r = await contactSheet({
        character: c,
        motion: m,
        background: parseBackground(typeof v.background === 'string' ? v.background : 'original'),
        outFile,
        frames: typeof v.frames === 'string' ? Number(v.frames) : undefined,
        columns: typeof v.columns === 'string' ? Number(v.columns) : undefined,
        title,
      });
      const split = r.frames.filter((f) => f.pieces > 1).length;
      result = { ...r, framesInPieces: `${split}/${r.frames.length}`, workDir: v.keep ? work : undefined };
    } else {
      throw new Error(`unknown command ${cmd ?? '(none)'}: use character, motion, render, sheet or templates`);
    }
  } finally {
    if (work && !v.keep) await rm(work, { recursive: true, force: true });
  }
  process.stderr.write('\n');
  console.log(JSON.stringify({ ...(result as object), elapsedS: Math.round((performance.now() - t0) / 10) / 100 }, null, 2));
}

main().catch((err: unknown) => {
  process.stderr.write(`\n${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
  process.exit(1);
});
