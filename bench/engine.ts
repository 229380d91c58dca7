/**
 * Engine benchmark over the shared sample media: pose fidelity (PCK@0.2) per (character, motion)
 * pair, speed of each stage, and peak memory of 10 s and 20 s renders. Writes the "engine" section of
 * docs/benchmarks.md.
 *
 *   npm run bench -- engine [--pck-fps 6] [--quick]
 *
 * PCK (headline, the fidelity issue's definition, `pckFrameStrict`): the pose detector runs on the
 * rendered frame and, freshly, on the same frame of the driving video decoded at the output size;
 * the rendered skeleton is aligned to the driving one by the least-squares translation + uniform
 * scale, no mirroring; a keypoint counts within 0.2 x the driving torso length; 12 body keypoints.
 * The secondary column is the earlier variant (reference = the smoothed motion track, scale by
 * torso + leg length, better of the detection and its mirror), kept for comparison.
 *
 * --quick: the three human photos and the default character on the three videos at --pck-fps 3,
 * no speed or memory runs (a fidelity loop of ~2 minutes); it still writes the section, marked quick.
 *
 * --drawings [--sheets DIR] [--cases SUBSTRING] [--cache DIR]: only the drawings part (bench/_engine-drawings.ts), which
 * the full run also does: shared drawings and synthetic paper photos against the artists' annotations
 * (--cache keeps the generated photos between runs).
 */
import { execFile } from 'node:child_process';
import sharp from 'sharp';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createEngine, type CharacterAssets, type MotionAssets } from '../src/engine/index.js';
import { decodeFrames, resolveTools } from '../src/engine/media/ffmpeg.js';
import { lastExtractionStats } from '../src/engine/motion/extract-motion.js';
import { PckAccumulator, StrictPckAccumulator, pckFrameStrict } from '../src/engine/render/pose-fidelity.js';
import { AFFINE, createRetargeter, drivesByImageSide } from '../src/engine/render/retarget.js';
import { BONE_COUNT, type Point } from '../src/engine/rig/skeleton.js';
import type { Rig } from '../src/engine/rig/build-rig.js';
import { createPoseDetector } from '../src/engine/vision/pose-detector.js';
import type { Keypoint } from '../src/engine/types.js';
import { machineLine, writeSection } from './_report.js';
import { drawingRows, drawingsMarkdown } from './_engine-drawings.js';
import { cpus, loadavg } from 'node:os';
import { figurePieces, groundContact, lowestRow, type ContactSample } from '../src/engine/render/figure-metrics.js';
import { FIGURE_KINDS, figureCharacter } from '../test/helpers/figures.js';

const MEDIA = resolve(import.meta.dirname, '../../shared/media');
const exec = promisify(execFile);

const CHARACTERS: Array<{ file: string; kind: 'human' | 'drawing' | 'non-human' | 'built-in' }> = [
  { file: 'images/mimicmotion--demo1.jpg', kind: 'human' },
  { file: 'images/4d-humans--pexels-anete-lusina-4793258.jpg', kind: 'human' },
  { file: 'images/musepose--ref.png', kind: 'human' },
  { file: 'images/animateddrawings--char1-texture.png', kind: 'drawing' },
  { file: 'images/animateddrawings--char2-texture.png', kind: 'drawing' },
  { file: 'images/animateddrawings--char3-texture.png', kind: 'drawing' },
  { file: 'images/animateddrawings--char6-image.png', kind: 'non-human' },
  { file: 'images/animate-x--4.png', kind: 'non-human' },
  { file: '(default character)', kind: 'built-in' },
];
const VIDEOS = ['videos/animate-x--dance_1.mp4', 'videos/animate-x--dance_3.mp4', 'videos/liveportrait--s13.mp4'];

const JOINT_NAMES = [
  'nose',
  'l-eye',
  'r-eye',
  'l-ear',
  'r-ear',
  'l-shoulder',
  'r-shoulder',
  'l-elbow',
  'r-elbow',
  'l-wrist',
  'r-wrist',
  'l-hip',
  'r-hip',
  'l-knee',
  'r-knee',
  'l-ankle',
  'r-ankle',
];
const short = (f: string): string => f.replace(/^(images|videos)\//, '').replace(/\.(png|jpg|mp4)$/, '');
const fmt = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : '—');

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'pck-fps': { type: 'string' },
      quick: { type: 'boolean' },
      drawings: { type: 'boolean' },
      sheets: { type: 'string' },
      cases: { type: 'string' },
      cache: { type: 'string' },
    },
  });
  const pckFps = Number(values['pck-fps'] ?? (values.quick ? 3 : 6));
  if (!existsSync(MEDIA)) {
    process.stderr.write(`shared media not found at ${MEDIA}; nothing to benchmark\n`);
    return;
  }
  const tools = resolveTools(process.env);
  const engine = createEngine({ tools });
  const work = await mkdtemp(join(tmpdir(), 'marionette-bench-engine-'));
  const log = (s: string): void => {
    process.stderr.write(`${s}\n`);
  };
  try {
    // Workers load the models once at start (MARIONETTE_ENGINE_WARMUP); the timings below are warm, as a
    // job sees them, and the one-off loading is reported on its own.
    const tWarm = performance.now();
    await engine.warmUp();
    const warmUpSeconds = (performance.now() - tWarm) / 1000;
    const drawings = async (): Promise<void> => {
      const before = loadavg()[0];
      const rows = await drawingRows({ engine, work, cache: values.cache, log, sheets: values.sheets, filter: values.cases });
      const load = `${machineLine()}, ${cpus().length} CPUs, 1-min load average ${before.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end`;
      if (!values.cases) writeSection('engine-drawings', drawingsMarkdown(rows, load));
      log(drawingsMarkdown(rows, load));
    };
    if (values.drawings) return await drawings();
    const chars: Array<{ name: string; kind: string; assets: CharacterAssets | null; seconds: number; note: string }> = [];
    for (const c of values.quick ? CHARACTERS.filter((c) => c.kind === 'human' || c.kind === 'built-in') : CHARACTERS) {
      const dir = join(work, `c-${chars.length}`);
      let image = join(MEDIA, c.file);
      if (c.kind === 'built-in') {
        image = join(work, 'default.png');
        await engine.writeDefaultCharacterImage(image);
      }
      const t = performance.now();
      try {
        const assets = await engine.analyzeCharacter({ imageFile: image, outDir: dir, thumbnail: false });
        chars.push({
          name: short(c.file),
          kind: c.kind,
          assets,
          seconds: (performance.now() - t) / 1000,
          note: `${assets.analysis.poseMethod} pose, ${assets.analysis.maskMethod} mask`,
        });
      } catch (err) {
        chars.push({
          name: short(c.file),
          kind: c.kind,
          assets: null,
          seconds: (performance.now() - t) / 1000,
          note: `refused: ${(err as Error).message}`,
        });
      }
      log(`character ${c.file}: ${chars[chars.length - 1].note} in ${fmt(chars[chars.length - 1].seconds)} s`);
    }

    const motions: Array<{ name: string; assets: MotionAssets; fps: number; detected: string }> = [];
    for (const v of VIDEOS) {
      const t = performance.now();
      const assets = await engine.extractMotion({ videoFile: join(MEDIA, v), outDir: join(work, `m-${motions.length}`), smoothing: true });
      const stats = lastExtractionStats();
      const detected = stats ? `pose detector on ${stats.detected} of ${stats.frames} frames, ${stats.interpolated} interpolated` : '';
      motions.push({ name: short(v), assets, fps: assets.track.frameCount / ((performance.now() - t) / 1000), detected });
      log(`motion ${v}: ${assets.track.frameCount} frames at ${fmt(motions[motions.length - 1].fps, 1)} fps (${detected})`);
    }

    const detector = createPoseDetector();
    // Fresh detections on the driving frames, per (video, output size, sampling step).
    const drivingPoses = new Map<string, Map<number, Keypoint[] | null>>();
    const drivingAt = async (v: number, w: number, h: number, step: number): Promise<Map<number, Keypoint[] | null>> => {
      const key = `${v}:${w}x${h}:${step}`;
      let poses = drivingPoses.get(key);
      if (poses) return poses;
      poses = new Map();
      const m = motions[v].assets;
      let j = -1;
      for await (const frame of decodeFrames(tools, join(MEDIA, VIDEOS[v]), { fps: m.track.fps, width: w, height: h })) {
        if (++j % step !== 0 || j >= m.track.frames.length) continue;
        poses.set(j, (await detector.detect(frame, w, h))?.body ?? null);
      }
      drivingPoses.set(key, poses);
      return poses;
    };
    const rows: string[] = [];
    for (const c of chars) {
      if (!c.assets) continue;
      const still = await stillReading(c.assets, detector);
      const rig = (JSON.parse(await readFile(join(c.assets.dir, c.assets.characterFile), 'utf8')) as { rig: Rig }).rig;
      for (const [mi, m] of motions.entries()) {
        const out = join(work, `r-${rows.length}`);
        const r = await engine.render({ character: c.assets, motion: m.assets, background: { mode: 'original' }, outDir: out });
        const k = r.width / m.assets.track.width;
        const acc = new PckAccumulator();
        const strict = new StrictPckAccumulator();
        // The same score for the retargeted skeleton itself (no drawing, no detection on the output):
        // what the character's own proportions allow before any rendering or detector error.
        const skeleton = new StrictPckAccumulator();
        // A character seen from behind is driven by image side (see retarget.ts): the same score with
        // the output's left and right labels exchanged says how well it follows the performer there.
        const bySide = drivesByImageSide(rig, m.assets.track) ? new StrictPckAccumulator() : null;
        const retarget = createRetargeter(rig, m.assets.track, r.width);
        const affines = new Float64Array(BONE_COUNT * AFFINE);
        // Decode every frame at the track's rate (ffmpeg's fps filter would shift sampled frames by
        // up to half an output period, which on a dance costs more PCK than any rendering error)
        // and score every step-th one.
        const step = Math.max(1, Math.round(m.assets.track.fps / pckFps));
        const drv = await drivingAt(mi, r.width, r.height, step);
        let j = -1;
        for await (const frame of decodeFrames(tools, r.videoFile, { fps: m.assets.track.fps, width: r.width, height: r.height })) {
          if (++j % step !== 0 || j >= m.assets.track.frames.length) continue;
          const d = m.assets.track.frames[j];
          const det = await detector.detect(frame, r.width, r.height);
          acc.add(
            d.body.map((p) => ({ x: p.x * k, y: p.y * k, score: p.score })),
            det?.body ?? null,
          );
          const fresh = drv.get(j);
          if (fresh) {
            strict.add(fresh, det?.body ?? null);
            bySide?.add(fresh, det ? swapSides(det.body) : null);
            const joints: Point[] = [];
            retarget.pose(j, affines, joints);
            skeleton.add(fresh, bySide ? swapSides(cocoFromRig(joints)) : cocoFromRig(joints));
          }
        }
        const weakest = strict.perJoint
          .map((p, i) => ({ i, rate: p.total ? p.hits / p.total : NaN }))
          .filter((p) => Number.isFinite(p.rate))
          .sort((a, b) => a.rate - b.rate)
          .slice(0, 3)
          .map((p) => `${JOINT_NAMES[p.i]} ${fmt(p.rate)}`)
          .join(', ');
        const fps = r.timings ? r.frameCount / (r.timings.framesMs / 1000) : NaN;
        rows.push(
          `| ${c.name} | ${c.kind} | ${m.name} | **${fmt(strict.value)}** | ${fmt(skeleton.value)} | ${fmt(still)} | ${bySide ? fmt(bySide.value) : '—'} | ${fmt(acc.value)} | ${weakest} | ${strict.frames} | ${r.width}x${r.height} | ${fmt(fps, 0)} |`,
        );
        log(rows[rows.length - 1]);
        await rm(out, { recursive: true, force: true });
      }
    }

    // Whole figures and ground contact: transparent renders, the mask video decoded frame-exact and
    // sampled at 6 frames/s; the shared characters plus synthetic long-garment and appendage figures.
    const wholeRows: string[] = [];
    const whole = [
      ...chars.filter((c) => c.assets).map((c) => ({ name: c.name, assets: c.assets! })),
      ...(values.quick
        ? []
        : await Promise.all(
            FIGURE_KINDS.map(async (kind) => ({
              name: `(synthetic ${kind})`,
              assets: await figureCharacter(kind, join(work, `fig-${kind}`)),
            })),
          )),
    ];
    for (const c of whole) {
      const cells: string[] = [];
      for (const m of motions) {
        const out = join(work, `w-${wholeRows.length}-${cells.length}`);
        const r = await engine.render({ character: c.assets, motion: m.assets, background: { mode: 'transparent' }, outDir: out });
        const rig = (JSON.parse(await readFile(join(c.assets.dir, c.assets.characterFile), 'utf8')) as { rig: Rig }).rig;
        const soleDrop = createRetargeter(rig, m.assets.track, r.width).soleDrop;
        const k = r.width / m.assets.track.width;
        const step = Math.max(1, Math.round(m.assets.track.fps / 6));
        let j = -1,
          split = 0,
          n = 0;
        const samples: ContactSample[] = [];
        for await (const frame of decodeFrames(tools, r.alphaFile!, { fps: m.assets.track.fps, width: r.width, height: r.height })) {
          if (++j % step !== 0 || j >= m.assets.track.frames.length) continue;
          n++;
          if (figurePieces(frame, r.width, r.height, { stride: 4, offset: 0 }).pieces > 1) split++;
          const b = m.assets.track.frames[j].body;
          const ankles = [15, 16].filter((q) => b[q].score >= 0.3).map((q) => b[q].y * k);
          samples.push({
            lowest: lowestRow(frame, r.width, r.height, { stride: 4, offset: 0 }),
            ankle: ankles.length ? Math.max(...ankles) : null,
          });
        }
        const g = groundContact(samples, r.height, soleDrop);
        cells.push(`${fmt((100 * split) / Math.max(1, n), 0)}% | ${fmt(100 * g.within, 0)}% (${g.frames}, ${fmt(100 * g.offset, 1)}%)`);
        await rm(out, { recursive: true, force: true });
      }
      wholeRows.push(`| ${c.name} | ${cells.join(' | ')} |`);
      log(wholeRows[wholeRows.length - 1]);
    }

    // Render-stage speed at 512x768 (template canvas), solid background, and peak memory by length.
    const speed: string[] = [];
    for (const c of values.quick ? [] : chars.filter((x) => x.assets && (x.kind === 'human' || x.kind === 'built-in')).slice(0, 2)) {
      const motion = await engine.writeTemplateMotion('tpl_dance', join(work, 'speed-m'));
      const r = await engine.render({
        character: c.assets!,
        motion,
        background: { mode: 'solid', color: [255, 255, 255] },
        outDir: join(work, 'speed-r'),
      });
      speed.push(
        `${c.name}: **${fmt(r.frameCount / (r.timings!.framesMs / 1000), 0)} fps** (${r.frameCount} frames in ${r.timings!.framesMs} ms, setup ${r.timings!.setupMs} ms, encoder drain ${r.timings!.finishMs} ms)`,
      );
    }
    const builtin = chars.find((c) => c.kind === 'built-in' && c.assets);
    const memory: string[] = [];
    if (builtin?.assets && !values.quick) {
      await exec('cp', ['-r', builtin.assets.dir, join(work, 'character')]);
      for (const s of [10, 20]) {
        const { stdout } = await exec(
          process.execPath,
          ['--import', 'tsx', resolve(import.meta.dirname, '_engine-memory.ts'), work, String(s)],
          { maxBuffer: 1 << 20 },
        );
        const res = JSON.parse(stdout.trim().split('\n').pop()!) as {
          seconds: number;
          frames: number;
          peakRssMb: number;
          elapsedMs: number;
        };
        memory.push(`${s} s (${res.frames} frames, transparent = two encoders): peak RSS **${fmt(res.peakRssMb, 0)} MB**`);
      }
    }

    const photo = chars.find((c) => c.name === 'mimicmotion--demo1');
    const md = `## Engine

\`npm run bench -- engine --pck-fps ${pckFps}${values.quick ? ' --quick' : ''}\` (${machineLine()}, 2 cores). Characters analysed with
\`analyzeCharacter\`, motions with \`extractMotion\` (smoothing on), every pair rendered with background \`original\`.
**PCK@0.2** (the fidelity issue's definition): the pose detector (MoveNet Lightning) on rendered frames sampled every 1/${pckFps} s (decoded frame-exact) and,
freshly, on the same frames of the driving video at the output size; the rendered skeleton aligned to the driving one by least-squares translation + uniform
scale, no mirroring; a keypoint counts within 0.2 x the driving torso length; 12 body keypoints; target ≥ 0.85 for the full-body human photos.
*skeleton*: the same score for the retargeted rig skeleton itself, before drawing and without a detector on the output: what the character's own proportions
(kept, as retargeting must) allow; the gap to the headline is what rendering and re-detection lose.
*still*: the detector on the character's own picture, undeformed (its texture at 700 px tall on mid grey), scored the same way against the pose the analysis
found in it: how well the metric's detector reads this character at all, before any motion; a low value caps the headline whatever the renderer does.
*by side*: only for a character seen from behind (driven limb by limb from the performer's limb on the same image side), the headline with the output's left and
right labels exchanged: a back view's left arm is on the image's left, where a camera-facing performer's right arm is, so the label-based headline cannot score it
(for these rows *skeleton* is by image side too).
*track/mirror*: the earlier variant (reference = the smoothed motion track, hip centre + torso-and-leg scaling, better of the detection and its mirror).
*weakest*: the three keypoints with the lowest hit rate under the headline metric.

| character | kind | motion | PCK@0.2 | skeleton | still | by side | track/mirror | weakest | frames scored | output | render fps |
|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

**Whole figures and ground contact** (transparent renders; the mask video decoded frame-exact, sampled every 1/6 s). *in pieces*: share of sampled
frames in which the figure is in two or more pieces (8-connected, alpha >= 128, pieces of at least 0.5% of its area; target <= 5%). *ground*: over the
sampled frames where the performer has a foot down (lowest ankle within 2% of the frame height of the clip's ground line, its 90th percentile), the share
where the figure's lowest drawn row is within 3% of the frame height of the performer's sole (lowest ankle + the clip's sole: measured per clip where confident, else 3.9% of the performer's estimated stature);
in brackets the number of such frames and the median error (+ sinks, − floats). Synthetic figures: test/helpers/figures.ts.

| character | ${motions.map((m) => `${m.name} in pieces | ${m.name} ground`).join(' | ')} |
|---|${motions.map(() => '---|---|').join('')}
${wholeRows.join('\n')}

Characters: ${chars.map((c) => `${c.name} (${c.note}, ${fmt(c.seconds)} s)`).join('; ')}.

Speed:
- Character analysis of the 1080x1920 photo (mimicmotion--demo1, analysis + rig, models loaded): **${fmt(photo?.seconds ?? NaN)} s**; loading the models once per process (\`engine.warmUp()\`, done at worker start): ${fmt(warmUpSeconds)} s.
- Motion extraction: ${motions.map((m) => `${m.name} **${fmt(m.fps, 1)} fps** (${m.assets.track.frameCount} frames; ${m.detected})`).join('; ')}.
- Render stage at 512x768 (retarget + deform + rasterize + composite + encode in parallel), tpl_dance, 144 frames:
${speed.map((s) => `  - ${s}`).join('\n')}

Memory (fresh child process per render, VmHWM, default character on tpl_dance looped, transparent):
${memory.map((s) => `- ${s}`).join('\n')}
`;
    writeSection('engine', md);
    log(md);
    if (!values.quick) await drawings();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Rig joints (RIG_JOINTS order) as COCO-17 keypoints: the 12 body joints scored, the face left out. */
function cocoFromRig(j: Point[]): Keypoint[] {
  const coco: Keypoint[] = Array.from({ length: 17 }, () => ({ x: 0, y: 0, score: 0 }));
  const map: Array<[number, number]> = [
    [3, 5],
    [4, 7],
    [5, 9],
    [6, 6],
    [7, 8],
    [8, 10],
    [9, 11],
    [10, 13],
    [11, 15],
    [12, 12],
    [13, 14],
    [14, 16],
  ];
  for (const [r, c] of map) coco[c] = { x: j[r].x, y: j[r].y, score: 1 };
  return coco;
}

/** COCO-17 with left and right exchanged (face and body). */
function swapSides(kp: Keypoint[]): Keypoint[] {
  const out = kp.slice();
  for (const [a, b] of [
    [1, 2],
    [3, 4],
    [5, 6],
    [7, 8],
    [9, 10],
    [11, 12],
    [13, 14],
    [15, 16],
  ])
    [out[a], out[b]] = [kp[b], kp[a]];
  return out;
}

/** The detector on the undeformed character (texture 700 px tall on a 758 px mid-grey canvas) vs its analysed pose. */
async function stillReading(c: CharacterAssets, detector: ReturnType<typeof createPoseDetector>): Promise<number> {
  const { crop, body } = c.analysis;
  const k = 700 / crop.height;
  const tw = Math.max(1, Math.round(crop.width * k));
  const W = tw + 200,
    H = 758;
  const tex = await sharp(join(c.dir, c.textureFile)).resize(tw, 700, { fit: 'fill' }).png().toBuffer();
  const raw = await sharp({ create: { width: W, height: H, channels: 4, background: { r: 128, g: 128, b: 128, alpha: 1 } } })
    .composite([{ input: tex, left: 100, top: 29 }])
    .raw()
    .toBuffer();
  const det = await detector.detect(raw, W, H);
  const ref = body.map((p) => ({ x: (p.x - crop.x) * k + 100, y: (p.y - crop.y) * k + 29, score: p.score }));
  const r = pckFrameStrict(ref, det?.body ?? null);
  return r && r.total ? r.hits / r.total : 0;
}
