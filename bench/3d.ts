/**
 * `npm run bench -- 3d`: the 3D outputs on the shared media.
 * - vsplat of the 1080x1920 photo (target <= 10 s; the 3D job alone and with the 2D analysis before it) and of the drawings,
 *   with front IoU / SSIM against the cut-out;
 * - glb extraction speed in frames of driving video per second (target >= 15): the motion.glb job's
 *   work from the stored 2D track (BlazePose world landmarks on person crops, lift, exports); the 2D
 *   track's own rate (motion.extract, done before and stored) beside it;
 * - exports (both skeletons, glb + fbx) of a 10 s motion (target <= 2 s);
 * - motion quality on the shared dances: PCK@0.2 by reprojection, bone-length variation, planted-foot slide.
 * Add `--sheets <dir>` to keep front/side contact sheets of every character.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { createEngine } from '../src/engine/index.js';
import { resolveTools } from '../src/engine/media/ffmpeg.js';
import { extractMotion } from '../src/engine/motion/extract-motion.js';
import { buildSplats } from '../src/engine/three-d/splat-build.js';
import { renderSplats, textureCamera } from '../src/engine/three-d/splat-render.js';
import { motionClips, writeMotion3d } from '../src/engine/three-d/export-motion.js';
import { boneLengthVariation, plantedFootSlide, reprojectionPck } from '../src/engine/three-d/motion-quality.js';
import type { MotionTrack } from '../src/engine/types.js';
import { liftTrack, type LiftedTrack } from '../src/engine/three-d/lift.js';
import { WORLD_STRIDE, measureVideo3d, measureWorldDepth } from '../src/engine/three-d/world-track.js';
import { lumaOf, ssim } from '../test/helpers/image-metrics.js';
import { renderSkinnedFrames } from './_skinned-frames.js';

const MEDIA = resolve(import.meta.dirname, '..', '..', 'shared', 'media');
const IMAGES = [
  'mimicmotion--demo1.jpg',
  'musepose--ref.png',
  'animateddrawings--char1-texture.png',
  'animateddrawings--char2-texture.png',
  'animateddrawings--char3-texture.png',
  'animate-x--4.png',
];
const VIDEOS = ['animate-x--dance_1.mp4', 'animate-x--dance_3.mp4', 'liveportrait--s13.mp4'];

function scores(tex: { data: Uint8Array; width: number; height: number }, render: Uint8Array): { iou: number; ssim: number } {
  const { width: W, height: H, data } = tex;
  let inter = 0,
    uni = 0;
  const a = new Uint8Array(W * H * 3),
    b = new Uint8Array(W * H * 3);
  for (let p = 0; p < W * H; p++) {
    const m = data[p * 4 + 3] >= 128,
      r = render[p * 4 + 3] >= 128;
    if (m && r) inter++;
    if (m || r) uni++;
    for (let k = 0; k < 3; k++) {
      a[p * 3 + k] = Math.round((data[p * 4 + k] * data[p * 4 + 3] + 128 * (255 - data[p * 4 + 3])) / 255);
      b[p * 3 + k] = m ? Math.round((render[p * 4 + k] * render[p * 4 + 3] + 128 * (255 - render[p * 4 + 3])) / 255) : a[p * 3 + k];
    }
  }
  return { iou: inter / uni, ssim: ssim(lumaOf(a, W, H, 3), lumaOf(b, W, H, 3), W, H) };
}

/**
 * CPU seconds of this process plus its reaped children (ffmpeg's decode), from /proc/self/stat
 * (clock ticks of 1/100 s); on a shared machine this, not the wall clock, says what one free core does.
 */
function cpuSeconds(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // After the command: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
}

/** Share of (frame, limb joint) whose depth relative to its parent point flips between two lifts. */
function depthSignChanges(a: LiftedTrack, b: LiftedTrack): number {
  const pairs = [
    [5, 7],
    [7, 9],
    [6, 8],
    [8, 10],
    [11, 13],
    [13, 15],
    [12, 14],
    [14, 16],
  ];
  let changed = 0,
    total = 0;
  a.frames.forEach((fa, t) => {
    for (const [p, c] of pairs) {
      const da = fa[c][2] - fa[p][2],
        db = b.frames[t][c][2] - b.frames[t][p][2];
      if (Math.abs(da) < 1 && Math.abs(db) < 1) continue;
      total++;
      if (Math.sign(da) !== Math.sign(db)) changed++;
    }
  });
  return changed / Math.max(1, total);
}

export async function run(args: string[]): Promise<void> {
  if (!existsSync(MEDIA)) throw new Error(`shared media not found at ${MEDIA}`);
  const sheets = args.includes('--sheets') ? args[args.indexOf('--sheets') + 1] : null;
  const tools = resolveTools(process.env);
  const engine = createEngine({ tools });
  const tmp = await mkdtemp(join(tmpdir(), 'marionette-bench-3d-'));
  try {
    console.log(
      '| character | texture | splats | 2D analysis s | vsplat s (build+PLY+thumb) | photo to vsplat s | front IoU | front SSIM |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const img of IMAGES) {
      const dir = join(tmp, img);
      const ta = performance.now();
      const assets = await engine.analyzeCharacter({ imageFile: join(MEDIA, 'images', img), outDir: dir, thumbnail: false });
      const t0 = performance.now();
      const out = await engine.extractVsplat({
        characterDir: dir,
        outDir: dir,
        thumbnail: true,
        jointSet: 'body',
        enhance: false,
        filterLowQuality: false,
      });
      const secs = (performance.now() - t0) / 1000;
      const { data, info } = await sharp(join(dir, assets.textureFile)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const tex = { data, width: info.width, height: info.height };
      const cloud = buildSplats(tex, assets.analysis, { jointSet: 'body' });
      const front = renderSplats(cloud, textureCamera(cloud, tex.width, tex.height));
      const s = scores(tex, front);
      console.log(
        `| ${img} | ${tex.width}x${tex.height} | ${out.count} | ${((t0 - ta) / 1000).toFixed(2)} | ${secs.toFixed(2)} | ${((t0 - ta) / 1000 + secs).toFixed(2)} | ${s.iou.toFixed(3)} | ${s.ssim.toFixed(3)} |`,
      );
      if (sheets) {
        const pad = Math.round(tex.width * 0.3);
        const side = renderSplats(cloud, { ...textureCamera(cloud, tex.width + 2 * pad, tex.height, 30), cx: cloud.origin.x + pad });
        const png = (px: Uint8Array, w: number) =>
          sharp(Buffer.from(px), { raw: { width: w, height: tex.height, channels: 4 } })
            .flatten({ background: '#808080' })
            .png()
            .toBuffer();
        const sheet = await sharp({ create: { width: tex.width * 3 + 2 * pad, height: tex.height, channels: 3, background: '#808080' } })
          .composite([
            { input: await sharp(join(dir, assets.textureFile)).flatten({ background: '#808080' }).png().toBuffer(), left: 0, top: 0 },
            { input: await png(front, tex.width), left: tex.width, top: 0 },
            { input: await png(side, tex.width + 2 * pad), left: tex.width * 2, top: 0 },
          ])
          .png()
          .toBuffer();
        await sharp(sheet)
          .resize({ height: 600 })
          .png()
          .toFile(join(sheets, `vsplat-${img}.png`));
      }
    }
    console.log(
      '\n| driving video | frames | 2D track fps (motion.extract, stored) | BlazePose pass s | 3D + exports s | glb extraction fps (from stored track) | same per CPU second | PCK@0.2 MetaHuman / Mixamo | bone var | foot slide m | depth signs changed |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const v of VIDEOS) {
      const dir = join(tmp, v);
      const t0 = performance.now();
      const assets = await extractMotion({ tools, videoFile: join(MEDIA, 'videos', v), outDir: dir, smoothing: true });
      const t1 = performance.now();
      // What the motion.glb job does: the stored track and source video, BlazePose on person crops, lift, exports.
      const c1 = cpuSeconds();
      const world = await measureWorldDepth({
        tools,
        videoFile: join(dir, assets.sourceVideoFile!),
        track: assets.track,
        stride: WORLD_STRIDE,
      });
      const t2 = performance.now();
      const clips = motionClips(assets.track, { jointSet: 'body', smoothing: true }, world);
      await writeMotion3d(clips, dir);
      const t3 = performance.now();
      const cpu = cpuSeconds() - c1;
      if (sheets) {
        // The Mixamo glb on a skinned test mesh, four frames, front and 30 degrees (bench/_skinned-frames.ts).
        const n = clips.mixamo.frameCount;
        const keys = [0, 1, 2, 3].map((k) => Math.round((k * (n - 1)) / 3));
        const png = await renderSkinnedFrames(await readFile(join(dir, 'mixamo.glb')), keys);
        await writeFile(join(sheets, `mixamo-${v}.png`), png);
      }
      const n = assets.track.frameCount;
      const pck = [clips.metahuman, clips.mixamo].map((c) => reprojectionPck(c, assets.track).toFixed(3)).join(' / ');
      const bone = Math.max(boneLengthVariation(clips.metahuman), boneLengthVariation(clips.mixamo));
      const slide = Math.max(plantedFootSlide(clips.metahuman), plantedFootSlide(clips.mixamo));
      const changed = depthSignChanges(liftTrack(assets.track), liftTrack(assets.track, world));
      console.log(
        `| ${v} | ${n} | ${(n / ((t1 - t0) / 1000)).toFixed(1)} | ${((t2 - t1) / 1000).toFixed(2)} | ${((t3 - t2) / 1000).toFixed(2)} | ${(n / ((t3 - t1) / 1000)).toFixed(1)} | ${(n / cpu).toFixed(1)} | ${pck} | ${bone.toExponential(1)} | ${slide.toFixed(4)} | ${(changed * 100).toFixed(0)}% |`,
      );
    }
    // expression/full: the same pass with the face mesh (and, for full, the hand model) on the key frames.
    console.log(
      '\n| driving video | joint set | frames | BlazePose + face (+ hands) pass s | glb extraction fps (from stored track) | same per CPU second | model results: pose / face / hands (key frames) |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const jointSet of ['expression', 'full'] as const)
      for (const v of VIDEOS) {
        const dir = join(tmp, v);
        const { track } = await engine.loadMotion(dir);
        const c0 = cpuSeconds();
        const t0 = performance.now();
        const hands = jointSet === 'full';
        const m = await measureVideo3d({ tools, videoFile: join(dir, 'source.mp4'), track, stride: WORLD_STRIDE, face: true, hands });
        const t1 = performance.now();
        await writeMotion3d(motionClips(track, { jointSet, smoothing: true }, m.depth, m.faces, m.hands), dir);
        const t2 = performance.now();
        const n = track.frameCount;
        const counts = `${m.measured.pose} / ${m.measured.face} / ${hands ? m.measured.hands : '-'}`;
        console.log(
          `| ${v} | ${jointSet} | ${n} | ${((t1 - t0) / 1000).toFixed(2)} | ${(n / ((t2 - t0) / 1000)).toFixed(1)} | ${(n / (cpuSeconds() - c0)).toFixed(1)} | ${counts} |`,
        );
      }
    // A 10 s motion at 30 fps: the first dance's track looped to 300 frames.
    const base = (await engine.loadMotion(join(tmp, VIDEOS[0]))).track;
    const frames = Array.from({ length: 300 }, (_, i) => ({ ...base.frames[i % base.frames.length], timeMs: (i * 1000) / 30 }));
    const long: MotionTrack = { ...base, fps: 30, frameCount: 300, durationMs: 10_000, frames };
    const dir = join(tmp, 'ten-seconds');
    await (await import('node:fs/promises')).mkdir(dir, { recursive: true });
    for (const jointSet of ['body', 'full'] as const) {
      const t0 = performance.now();
      await writeMotion3d(motionClips(long, { jointSet, smoothing: true }), dir);
      console.log(`\n10 s motion (300 frames, ${jointSet}): 3D + four exports in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
