/**
 * The same picture under other light or on another canvas keeps its reading: a person stays a person
 * with her joints where they were, a cartoon object stays rigged by its skeleton (docs/figures.md, "The
 * same picture under other light" and "Brightened, small on noise").
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { iou, maskFromTexture } from '../../bench/_drawing-cases.js';
import { makeSynthDrawing } from '../../bench/_drawing-synth.js';
import { analyzeCharacterImage } from '../../src/engine/character/analyze.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import type { CharacterAnalysis } from '../../src/engine/types.js';
import { jointsKept, mediaPath, missingMedia } from '../helpers/engine-fixtures.js';

const tools = resolveTools({});
let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-light-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function analyse(file: string, name: string): Promise<{ analysis: CharacterAnalysis; mask: Uint8Array }> {
  const dir = join(tmp, name);
  const { analysis, textureFile } = await analyzeCharacterImage({ tools, imageFile: file, outDir: dir, thumbnail: false });
  return { analysis, mask: await maskFromTexture(dir, analysis, textureFile) };
}

/** The picture with every channel mapped v -> v * gain + offset (sharp's linear), as a JPEG. */
async function relit(image: string, name: string, gain: number, offset: number): Promise<string> {
  const file = join(tmp, `${name}.jpg`);
  await sharp(mediaPath(image)).removeAlpha().linear(gain, offset).jpeg({ quality: 92 }).toFile(file);
  return file;
}

/** Deterministic numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/**
 * The picture at 0.45 of its size on a canvas of its size of grey noise (128 +- 60 per pixel), or of one
 * grey level when `flat` is given, placed at 0.3 and 0.35 of the room left; with `mask` (w x h, 0/1) set
 * there the same way, and `at` mapping a point of the picture there.
 */
async function smallOnNoise(
  image: string,
  mask: Uint8Array,
  w: number,
  h: number,
  flat?: number,
): Promise<{ file: string; mask: Uint8Array; at: (x: number, y: number) => [number, number] }> {
  const [sw, sh] = [Math.round(w * 0.45), Math.round(h * 0.45)];
  const [ox, oy] = [Math.round((w - sw) * 0.3), Math.round((h - sh) * 0.35)];
  const rnd = random(7);
  const canvas = Buffer.alloc(w * h * 3, flat ?? 0);
  if (flat === undefined) for (let p = 0; p < w * h; p++) canvas.fill(Math.round(128 + (rnd() * 2 - 1) * 60), p * 3, p * 3 + 3);
  const small = await sharp(image).rotate().removeAlpha().resize(sw, sh, { fit: 'fill' }).png().toBuffer();
  const file = join(tmp, `small-on-${flat ?? 'noise'}.png`);
  await sharp(canvas, { raw: { width: w, height: h, channels: 3 } })
    .composite([{ input: small, left: ox, top: oy }])
    .png()
    .toFile(file);
  const smallMask = await sharp(Buffer.from(mask.map((v) => v * 255)), { raw: { width: w, height: h, channels: 1 } })
    .resize(sw, sh, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const placed = new Uint8Array(w * h);
  for (let y = 0; y < sh; y++) for (let x = 0; x < sw; x++) placed[(y + oy) * w + x + ox] = smallMask[y * sw + x] >= 128 ? 1 : 0;
  return { file, mask: placed, at: (x, y) => [ox + (x * sw) / w, oy + (y * sh) / h] };
}

describe('the same picture under other light', () => {
  it(
    'keeps an illustrated person darkened and hazed a person, her joints where they were',
    { skip: missingMedia('images/musepose--ref.png') },
    async () => {
      const image = 'images/musepose--ref.png';
      const original = await analyse(mediaPath(image), 'musepose');
      assert.equal(original.analysis.poseMethod, 'model');
      // Before: darkened, the night sky passed for a plain border and she was rigged as a drawing (joints
      // 3 of 12, IoU 0.32); hazed the same (0 of 12, IoU 0.44).
      for (const [name, gain, offset] of [
        ['dark', 0.45, 0],
        ['hazed', 0.5, 105],
      ] as const) {
        const { analysis, mask } = await analyse(await relit(image, name, gain, offset), name);
        assert.equal(analysis.maskMethod, 'segmentation', name);
        assert.equal(analysis.poseMethod, 'model', name);
        const kept = jointsKept(analysis, original.analysis);
        assert.ok(kept >= 11, `${name}: ${kept} of 12 limb joints where the original's are`);
        const overlap = iou(mask, original.mask);
        assert.ok(overlap >= 0.7, `${name}: mask IoU ${overlap.toFixed(3)} with the original's`);
      }
    },
  );

  it(
    'keeps a studio photo hazed a person though its backdrop shows lines like a ruled sheet',
    { skip: missingMedia('images/mimicmotion--demo1.jpg') },
    async () => {
      const image = 'images/mimicmotion--demo1.jpg';
      const original = await analyse(mediaPath(image), 'demo1');
      assert.equal(original.analysis.poseMethod, 'model');
      // Before: hazed, the backdrop's folds read as 6 ruled lines and a ruled sheet skipped the person
      // check: a drawing mask and a skeleton pose.
      const { analysis } = await analyse(await relit(image, 'demo1-hazed', 0.5, 105), 'demo1-hazed');
      assert.equal(analysis.maskMethod, 'segmentation');
      assert.equal(analysis.poseMethod, 'model');
      const kept = jointsKept(analysis, original.analysis);
      assert.ok(kept >= 11, `${kept} of 12 limb joints where the original's are`);
    },
  );

  it(
    'keeps an illustrated person brightened past her highlights whole but for the glow, her joints where they were',
    { skip: missingMedia('images/musepose--ref.png') },
    async () => {
      const image = 'images/musepose--ref.png';
      const original = await analyse(mediaPath(image), 'musepose-for-bright');
      // Before: the person model kept her dress alone (mask IoU 0.26) and MoveNet on it put 2 of 12 joints right.
      const { analysis, mask } = await analyse(await relit(image, 'bright', 1.35, 30), 'bright');
      assert.equal(analysis.poseMethod, 'model');
      const kept = jointsKept(analysis, original.analysis);
      assert.ok(kept >= 11, `${kept} of 12 limb joints where the original's are`);
      const overlap = iou(mask, original.mask);
      assert.ok(overlap >= 0.5, `mask IoU ${overlap.toFixed(3)} with the original's`);
    },
  );

  it(
    'cuts a photo set small on grey noise to the person, not to the photo',
    { skip: missingMedia('images/mimicmotion--demo1.jpg') },
    async () => {
      const image = mediaPath('images/mimicmotion--demo1.jpg');
      const original = await analyse(image, 'demo1-for-noise');
      const { file, mask: expected } = await smallOnNoise(image, original.mask, original.analysis.width, original.analysis.height);
      // Before: the grey noise passed for a plain border and its colour's cut, the photo's whole rectangle,
      // was kept as the figure (mask IoU 0.29).
      const { analysis, mask } = await analyse(file, 'demo1-small-on-noise');
      assert.equal(analysis.poseMethod, 'model');
      const overlap = iou(mask, expected);
      assert.ok(overlap >= 0.9, `mask IoU ${overlap.toFixed(3)} with the original's, set small the same way`);
    },
  );

  it('keeps a cartoon object rigged by its skeleton under other light', { skip: missingMedia('images/animate-x--4.png') }, async () => {
    const image = 'images/animate-x--4.png';
    const original = await analyse(mediaPath(image), 'cup');
    assert.equal(original.analysis.poseMethod, 'skeleton');
    // Before: darkened, BlazePose alone took the cup for a body (score 0.56) and it got the model's pose.
    const { analysis } = await analyse(await relit(image, 'cup-dark', 0.45, 0), 'cup-dark');
    assert.equal(analysis.poseMethod, 'skeleton');
    const kept = jointsKept(analysis, original.analysis);
    assert.ok(kept >= 11, `${kept} of 12 limb joints where the original's are`);
  });

  it('reads a picture set small on a plain canvas from the picture alone', { skip: missingMedia('images/animate-x--4.png') }, async () => {
    const image = mediaPath('images/animate-x--4.png');
    const original = await analyse(image, 'cup-for-canvas');
    const { width: w, height: h, crop } = original.analysis;
    // Before: on grey and on white the ink-on-paper reading took most of the pasted picture for the
    // figure (JPEG variants: 2 and 1 of 12 joints, mask IoU 0.16 and 0.17; on this PNG on grey the cup
    // was read as a person, `model`). Now the picture is found on the canvas and read alone (JPEG: 12 of
    // 12, 0.92 and 0.90).
    for (const flat of [128, 255]) {
      const { file, mask: expected, at } = await smallOnNoise(image, original.mask, w, h, flat);
      const { analysis, mask } = await analyse(file, `cup-small-on-${flat}`);
      assert.equal(analysis.poseMethod, 'skeleton', `on ${flat}`);
      let kept = 0;
      for (let j = 5; j <= 16; j++) {
        const [x, y] = at(original.analysis.body[j].x, original.analysis.body[j].y);
        if (Math.hypot(analysis.body[j].x - x, analysis.body[j].y - y) <= 0.1 * 0.45 * crop.height) kept++;
      }
      const overlap = iou(mask, expected);
      assert.ok(kept >= 10, `on ${flat}: ${kept} of 12 limb joints where the original's are, set small (IoU ${overlap.toFixed(3)})`);
      assert.ok(overlap >= 0.85, `on ${flat}: mask IoU ${overlap.toFixed(3)} with the original's, set small`);
    }
  });

  it('cuts the texture of a picture read alone within the picture', { skip: missingMedia('images/musepose--ref.png') }, async () => {
    const image = mediaPath('images/musepose--ref.png');
    const original = await analyse(image, 'musepose-for-grey');
    const { width: w, height: h } = original.analysis;
    // As JPEG, as measured: read from the PNG, her mask stops short of the picture's edge.
    const { file: png, at } = await smallOnNoise(image, original.mask, w, h, 128);
    const file = join(tmp, 'musepose-small-on-grey.jpg');
    await sharp(png).jpeg({ quality: 92 }).toFile(file);
    const { analysis, mask } = await analyse(file, 'musepose-small-on-grey');
    assert.equal(analysis.poseMethod, 'model');
    // Before: her floor reaches the pasted picture's bottom edge and the mask's last row was smeared
    // into the texture past it, down to the crop's margin: a strip of the grey canvas (914 px).
    const [x0, y0] = at(0, 0);
    const [x1, y1] = at(w, h);
    let outside = 0;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) if (mask[y * w + x] && (x < x0 - 1 || x > x1 || y < y0 - 1 || y > y1)) outside++;
    assert.equal(outside, 0, `${outside} texture pixels off the pasted picture`);
  });
});

describe('a drawing the photo pose models read as a person', () => {
  // Generated seed 116 (an oval body hatched in violet crayon under a 2 px pencil outline, arms down,
  // legs together): MoveNet and BlazePose agree on it as on a photographed person, and the person model
  // cut it without its head's fill and its right arm (0.55 of the drawing mask; 32 of 196 sampled frames
  // in pieces). What the person model leaves out is coloured as what it keeps, the drawing's own
  // hatching, so the drawing mask stays (the relit people above keep the person model's cut: what it
  // leaves out of theirs is sky or backdrop).
  it('keeps its drawing mask when the person model drops hatched parts of it', async () => {
    const d = await makeSynthDrawing(116, join(tmp, 'synth-116.png'));
    assert.equal(d.plan.colouring, 'hatch');
    const dir = join(tmp, 'seed-116');
    const { analysis, textureFile } = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
    assert.equal(analysis.maskMethod, 'drawing');
    const overlap = iou(await maskFromTexture(dir, analysis, textureFile), d.truth.mask);
    assert.ok(overlap >= 0.95, `mask IoU ${overlap.toFixed(3)} with the drawing's`);
  });
});
