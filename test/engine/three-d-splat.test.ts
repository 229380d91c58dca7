import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createEngine } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { buildSplats, type SplatCloud } from '../../src/engine/three-d/splat-build.js';
import { decodeSplatPly, readPlyHeader } from '../../src/engine/three-d/splat-ply.js';
import { parse } from '@loaders.gl/core';
import { PLYLoader } from '@loaders.gl/ply';
import { renderSplats, textureCamera } from '../../src/engine/three-d/splat-render.js';
import { jointCount } from '../../src/engine/three-d/skeletons.js';
import type { CharacterAnalysis } from '../../src/engine/types.js';
import { lumaOf, ssim } from '../helpers/image-metrics.js';
import { mediaPath, missingMedia } from '../helpers/engine-fixtures.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-3d-splat-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Front agreement with the cut-out: mask IoU and SSIM (luma) inside the mask, both over grey. */
export function frontScores(tex: { data: Uint8Array; width: number; height: number }, render: Uint8Array): { iou: number; ssim: number } {
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
      // Outside the mask both images agree by construction: the score is about the figure.
      b[p * 3 + k] = m ? Math.round((render[p * 4 + k] * render[p * 4 + 3] + 128 * (255 - render[p * 4 + 3])) / 255) : a[p * 3 + k];
    }
  }
  return { iou: inter / uni, ssim: ssim(lumaOf(a, W, H, 3), lumaOf(b, W, H, 3), W, H) };
}

/** Transparent pixels that cannot be reached from the image border through transparent pixels. */
function enclosedHoles(rgba: Uint8Array, W: number, H: number): { holes: number; solid: number } {
  const open = new Uint8Array(W * H);
  const stack: number[] = [];
  for (let x = 0; x < W; x++) stack.push(x, (H - 1) * W + x);
  for (let y = 0; y < H; y++) stack.push(y * W, y * W + W - 1);
  while (stack.length) {
    const p = stack.pop()!;
    if (open[p] || rgba[p * 4 + 3] >= 128) continue;
    open[p] = 1;
    const x = p % W,
      y = (p - x) / W;
    if (x > 0) stack.push(p - 1);
    if (x < W - 1) stack.push(p + 1);
    if (y > 0) stack.push(p - W);
    if (y < H - 1) stack.push(p + W);
  }
  let holes = 0,
    solid = 0;
  for (let p = 0; p < W * H; p++) {
    if (rgba[p * 4 + 3] >= 128) solid++;
    else if (!open[p]) holes++;
  }
  return { holes, solid };
}

function checkCloud(cloud: SplatCloud, tex: { data: Uint8Array; width: number; height: number }, label: string): void {
  const front = renderSplats(cloud, textureCamera(cloud, tex.width, tex.height));
  const s = frontScores(tex, front);
  assert.ok(s.iou >= 0.95, `${label}: front mask IoU ${s.iou.toFixed(3)}`);
  assert.ok(s.ssim >= 0.85, `${label}: front SSIM in the mask ${s.ssim.toFixed(3)}`);
  // From 30 degrees to the side it is still one figure: no more enclosed holes than the front view has.
  const pad = Math.round(tex.width * 0.3);
  const cam = { ...textureCamera(cloud, tex.width + 2 * pad, tex.height, 30), cx: cloud.origin.x + pad };
  const side = renderSplats(cloud, cam);
  const f = enclosedHoles(front, tex.width, tex.height);
  const sd = enclosedHoles(side, tex.width + 2 * pad, tex.height);
  assert.ok(sd.solid > 0.6 * f.solid, `${label}: side view keeps the figure (${sd.solid} vs ${f.solid} px)`);
  assert.ok(sd.holes <= f.holes + 0.01 * f.solid, `${label}: side view holes ${sd.holes} px (front ${f.holes}, figure ${f.solid})`);
}

/** A synthetic character: a striped, two-tone stick figure on transparency, posed with its arms out. */
export function syntheticFigure(
  w: number,
  h: number,
): { tex: { data: Uint8Array; width: number; height: number }; analysis: CharacterAnalysis } {
  const data = new Uint8Array(w * h * 4);
  const kp = (x: number, y: number) => ({ x: x * w, y: y * h, score: 0.9 });
  const body = [
    kp(0.5, 0.1),
    kp(0.52, 0.09),
    kp(0.48, 0.09),
    kp(0.54, 0.1),
    kp(0.46, 0.1),
    kp(0.6, 0.22),
    kp(0.4, 0.22),
    kp(0.75, 0.3),
    kp(0.25, 0.3),
    kp(0.88, 0.38),
    kp(0.12, 0.38),
    kp(0.56, 0.52),
    kp(0.44, 0.52),
    kp(0.58, 0.73),
    kp(0.42, 0.73),
    kp(0.6, 0.94),
    kp(0.4, 0.94),
  ];
  const segs: Array<[number, number, number]> = [
    [5, 7, 0.035],
    [7, 9, 0.03],
    [6, 8, 0.035],
    [8, 10, 0.03],
    [11, 13, 0.045],
    [13, 15, 0.04],
    [12, 14, 0.045],
    [14, 16, 0.04],
  ];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const u = x / w,
        v = y / h;
      let inside = Math.hypot((u - 0.5) / 0.07, (v - 0.1) / 0.07) < 1 || (Math.abs(u - 0.5) < 0.11 && v > 0.19 && v < 0.55);
      for (const [a, b, r] of segs) {
        const ax = body[a].x / w,
          ay = body[a].y / h,
          bx = body[b].x / w,
          by = body[b].y / h;
        const t = Math.max(0, Math.min(1, ((u - ax) * (bx - ax) + (v - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
        if (Math.hypot(u - ax - t * (bx - ax), v - ay - t * (by - ay)) < r) inside = true;
      }
      if (!inside) continue;
      const i = (y * w + x) * 4;
      const stripe = Math.floor(y / Math.max(4, h / 40)) % 2;
      data.set(v < 0.55 ? [200, 60 + 80 * stripe, 40, 255] : [40, 80, 180 + 50 * stripe, 255], i);
    }
  const analysis: CharacterAnalysis = {
    version: 1,
    width: w,
    height: h,
    maskMethod: 'alpha',
    body,
    poseMethod: 'heuristic',
    crop: { x: 0, y: 0, width: w, height: h },
  };
  return { tex: { data, width: w, height: h }, analysis };
}

describe('vsplat on synthetic figures', () => {
  for (const [w, h] of [
    [360, 600],
    [600, 900],
  ] as const) {
    it(`${w}x${h}: looks like the cut-out from the front, stays a figure at 30 degrees`, () => {
      const { tex, analysis } = syntheticFigure(w, h);
      checkCloud(buildSplats(tex, analysis, { jointSet: 'body' }), tex, `synthetic ${w}x${h}`);
    });
  }

  it('model_precision scales the splat count, filter_low_quality prunes, joints and weights follow the joint set', () => {
    const { tex, analysis } = syntheticFigure(600, 900);
    const low = buildSplats(tex, analysis, { jointSet: 'body', precision: 0.1 });
    const high = buildSplats(tex, analysis, { jointSet: 'full', precision: 0.4 });
    assert.ok(high.count > 2.5 * low.count, `${low.count} -> ${high.count}`);
    assert.equal(low.joints.length, jointCount('body'));
    assert.equal(high.joints.length, jointCount('full'));
    for (let i = 0; i < high.count; i += 97) {
      const ws = high.jointWeights.subarray(i * 4, i * 4 + 4);
      assert.ok(Math.abs(ws[0] + ws[1] + ws[2] + ws[3] - 1) < 1e-4);
      assert.ok(high.jointIndices[i * 4] < high.joints.length);
    }
    const pruned = buildSplats(tex, analysis, { jointSet: 'body', precision: 0.4, filterLowQuality: true });
    assert.ok(pruned.count <= high.count && pruned.count > 0.5 * high.count);
  });

  it('refuses an empty picture', () => {
    const { analysis } = syntheticFigure(50, 50);
    assert.throws(
      () => buildSplats({ data: new Uint8Array(50 * 50 * 4), width: 50, height: 50 }, analysis, { jointSet: 'body' }),
      /no visible figure/,
    );
  });
});

/**
 * The PLY read back by an independent npm PLY reader (@loaders.gl/ply): the 3DGS property layout,
 * the splat count, and the same values as our own decoder, for positions, colours, opacities,
 * scales and rotations, and the skinning properties viewers ignore.
 */
async function assertReadByLoadersGl(ply: Buffer, cloud: ReturnType<typeof decodeSplatPly>): Promise<void> {
  const bytes = ply.buffer.slice(ply.byteOffset, ply.byteOffset + ply.length);
  const mesh = (await parse(bytes, PLYLoader, { worker: false })) as unknown as {
    header: { vertexCount: number };
    attributes: Record<string, { value: ArrayLike<number>; size: number }>;
  };
  assert.equal(mesh.header.vertexCount, cloud.count);
  const expected = [
    'POSITION',
    'NORMAL',
    'f_dc_0',
    'f_dc_1',
    'f_dc_2',
    'opacity',
    'scale_0',
    'scale_1',
    'scale_2',
    'rot_0',
    'rot_1',
    'rot_2',
    'rot_3',
    'joint_0',
    'joint_1',
    'joint_2',
    'joint_3',
    'weight_0',
    'weight_1',
    'weight_2',
    'weight_3',
  ];
  assert.deepEqual(Object.keys(mesh.attributes), expected, 'property layout as loaders.gl reads it');
  const a = mesh.attributes;
  assert.equal(a.POSITION.size, 3);
  assert.equal(a.POSITION.value.length, cloud.count * 3);
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(y));
  for (const i of [0, Math.floor(cloud.count / 2), cloud.count - 1]) {
    for (let k = 0; k < 3; k++) {
      assert.ok(close(a.POSITION.value[i * 3 + k], cloud.positions[i * 3 + k]), `position ${i}.${k}`);
      assert.ok(close(a[`f_dc_${k}`].value[i], cloud.dc[i * 3 + k]), `f_dc_${k} of ${i}`);
      assert.ok(close(a[`scale_${k}`].value[i], cloud.scales[i * 3 + k]), `scale_${k} of ${i}`);
    }
    for (let k = 0; k < 4; k++) assert.ok(close(a[`rot_${k}`].value[i], cloud.rotations[i * 4 + k]), `rot_${k} of ${i}`);
    assert.ok(close(a.opacity.value[i], cloud.opacities[i]), `opacity of ${i}`);
    for (let k = 0; k < 4; k++) {
      assert.equal(a[`joint_${k}`].value[i], cloud.jointIndices[i * 4 + k], `joint_${k} of ${i}`);
      assert.ok(close(a[`weight_${k}`].value[i], cloud.jointWeights[i * 4 + k]), `weight_${k} of ${i}`);
    }
  }
}

const SHARED = ['images/mimicmotion--demo1.jpg', 'images/musepose--ref.png', 'images/animateddrawings--char1-texture.png'];

describe('vsplat from shared photos and drawings', { skip: SHARED.map(missingMedia).find(Boolean) }, () => {
  const engine = createEngine({ tools: resolveTools({}) });
  for (const rel of SHARED) {
    it(`${rel}: a 3DGS PLY whose front view matches the cut-out and whose thumbnail is a splat render`, async () => {
      const dir = join(tmp, rel.replace(/\W/g, '_'));
      const assets = await engine.analyzeCharacter({ imageFile: mediaPath(rel), outDir: dir, thumbnail: false });
      const out = await engine.extractVsplat({
        characterDir: assets.dir,
        outDir: dir,
        thumbnail: true,
        jointSet: 'expression',
        precision: 0.5,
        enhance: false,
        filterLowQuality: false,
      });
      assert.deepEqual(out.files, ['character.vsplat', 'thumbnail.png']);
      const ply = await readFile(join(dir, 'character.vsplat'));
      const layout = readPlyHeader(ply);
      assert.equal(layout.format, 'binary_little_endian');
      assert.equal(layout.vertexCount, out.count);
      const names = layout.properties.map((p) => p.name);
      for (const p of [
        'x',
        'y',
        'z',
        'f_dc_0',
        'f_dc_1',
        'f_dc_2',
        'opacity',
        'scale_0',
        'scale_1',
        'scale_2',
        'rot_0',
        'rot_1',
        'rot_2',
        'rot_3',
      ]) {
        assert.ok(names.includes(p), p);
        assert.equal(layout.properties.find((q) => q.name === p)!.type, 'float');
      }
      assert.equal(ply.length - layout.bodyOffset, out.count * (17 * 4 + 4 * 2 + 4 * 4));
      const cloud = decodeSplatPly(ply);
      assert.equal(cloud.joints.length, jointCount('expression'));
      await assertReadByLoadersGl(ply, cloud);
      // The file alone reproduces the picture: rebuild the camera from the texture's size.
      const { data, info } = await sharp(join(assets.dir, assets.textureFile)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const tex = { data, width: info.width, height: info.height };
      const built = buildSplats(tex, assets.analysis, { jointSet: 'expression', precision: 0.5 });
      checkCloud({ ...cloud, metresPerPixel: built.metresPerPixel, origin: built.origin }, tex, rel);
      const thumb = await sharp(join(dir, 'thumbnail.png')).raw().toBuffer({ resolveWithObject: true });
      assert.equal(thumb.info.width, 512);
      let opaque = 0;
      for (let p = 3; p < thumb.data.length; p += 4) if (thumb.data[p] > 128) opaque++;
      assert.ok(opaque > 0.05 * 512 * 512, 'the thumbnail shows the figure');
    });
  }
});
