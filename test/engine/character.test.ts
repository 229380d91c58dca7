import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { analyzeCharacterImage } from '../../src/engine/character/analyze.js';
import { resolveTools, runFfmpeg } from '../../src/engine/media/ffmpeg.js';
import { EngineError, type CharacterAnalysis, type Keypoint } from '../../src/engine/types.js';
import { mediaPath, missingMedia, readAnimatedDrawingsJoints } from '../helpers/engine-fixtures.js';

const tools = resolveTools({});
let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-character-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The texture's alpha put back into source-image space as a 0/1 mask. */
async function maskFromTexture(dir: string, a: CharacterAnalysis): Promise<Uint8Array> {
  const { data, info } = await sharp(join(dir, 'texture.png'))
    .resize(a.crop.width, a.crop.height, { fit: 'fill' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const mask = new Uint8Array(a.width * a.height);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[(y * info.width + x) * 4 + 3] >= 128) mask[(a.crop.y + y) * a.width + a.crop.x + x] = 1;
    }
  }
  return mask;
}

function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0,
    union = 0;
  for (let p = 0; p < a.length; p++) {
    if (a[p] && b[p]) inter++;
    if (a[p] || b[p]) union++;
  }
  return inter / union;
}

const dist = (k: Keypoint, [x, y]: [number, number]) => Math.hypot(k.x - x, k.y - y);
const isCode = (code: string) => (e: unknown) => e instanceof EngineError && e.code === code;

describe('analyzeCharacterImage', () => {
  it(
    'cuts out the AnimatedDrawings boy and finds his rig',
    { skip: missingMedia('images/animateddrawings--char1-texture.png') },
    async () => {
      const dir = join(tmp, 'char1');
      const { analysis, textureFile, thumbnailFile } = await analyzeCharacterImage({
        tools,
        imageFile: mediaPath('images/animateddrawings--char1-texture.png'),
        outDir: dir,
        thumbnail: true,
      });
      assert.equal(analysis.maskMethod, 'drawing');
      assert.deepEqual([analysis.width, analysis.height], [508, 602]);
      assert.equal(textureFile, 'texture.png');
      const { data: gtRaw } = await sharp(mediaPath('images/animateddrawings--char1-mask.png'))
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const gt = Uint8Array.from(gtRaw, (v) => (v >= 128 ? 1 : 0));
      const score = iou(await maskFromTexture(dir, analysis), gt);
      assert.ok(score > 0.8, `mask IoU ${score.toFixed(3)}`);

      // Joints against the hand-made 16-joint rig, within 12% of the figure's height (602 px image).
      const rig = readAnimatedDrawingsJoints(mediaPath('images/animateddrawings--char1-char_cfg.yaml'));
      const pairs: Array<[number, string]> = [
        [9, 'left_hand'],
        [10, 'right_hand'],
        [11, 'left_hip'],
        [12, 'right_hip'],
        [15, 'left_foot'],
        [16, 'right_foot'],
        [5, 'left_shoulder'],
        [6, 'right_shoulder'],
      ];
      for (const [i, name] of pairs) {
        const d = dist(analysis.body[i], rig.get(name)!);
        assert.ok(d < 0.12 * 602, `${name}: ${d.toFixed(0)} px off`);
      }
      assert.ok(thumbnailFile && existsSync(join(dir, thumbnailFile)));
      const thumb = await sharp(join(dir, thumbnailFile!)).metadata();
      assert.equal(Math.max(thumb.width!, thumb.height!), 256);
    },
  );

  it(
    'segments a photographed person and takes her pose from the model',
    { skip: missingMedia('images/mimicmotion--demo1.jpg') },
    async () => {
      const dir = join(tmp, 'demo1');
      const t0 = performance.now();
      const { analysis } = await analyzeCharacterImage({
        tools,
        imageFile: mediaPath('images/mimicmotion--demo1.jpg'),
        outDir: dir,
        thumbnail: false,
      });
      const ms = performance.now() - t0;
      assert.equal(analysis.maskMethod, 'segmentation');
      assert.equal(analysis.poseMethod, 'model');
      const b = analysis.body;
      assert.ok(
        b[0].y < b[5].y && b[5].y < b[11].y && b[11].y < b[13].y && b[13].y < b[15].y,
        'head, shoulders, hips, knees, ankles top to bottom',
      );
      // She faces the camera: her left shoulder is on the image's right.
      assert.ok(b[5].x > b[6].x);
      // Her face is seen: a 468-point mesh whose box holds her nose and both eyes.
      assert.ok(analysis.face, 'face landmarks');
      assert.equal(analysis.face.points.length, 468);
      const fx = analysis.face.points.map((p) => p.x),
        fy = analysis.face.points.map((p) => p.y);
      for (const k of [b[0], b[1], b[2]]) {
        assert.ok(k.x > Math.min(...fx) && k.x < Math.max(...fx) && k.y > Math.min(...fy) && k.y < Math.max(...fy), JSON.stringify(k));
      }
      // Any hand reported sits at the wrist it is named after.
      for (const hand of analysis.hands ?? []) {
        const wrist = b[hand.side === 'left' ? 9 : 10];
        assert.equal(hand.points.length, 21);
        assert.ok(Math.hypot(hand.points[0].x - wrist.x, hand.points[0].y - wrist.y) < 0.3 * (b[11].y - b[5].y), hand.side);
      }
      const { crop } = analysis;
      assert.ok(crop.height > 1400 && crop.height < 1920 && crop.width < 900, JSON.stringify(crop));
      for (const k of b) assert.ok(k.x >= crop.x && k.x <= crop.x + crop.width && k.y >= crop.y && k.y <= crop.y + crop.height);
      const meta = await sharp(join(dir, 'texture.png')).metadata();
      assert.deepEqual([meta.width, meta.height, meta.channels], [crop.width, crop.height, 4]);
      // Speed (3 s warm for this photo) is the engine benchmark's target, not this test's: a loaded CI machine must not fail it.
      assert.ok(ms > 0);
    },
  );

  it(
    'keeps the ground out of an illustrated figure and finds her legs under the skirt',
    { skip: missingMedia('images/musepose--ref.png') },
    async () => {
      const dir = join(tmp, 'musepose');
      const { analysis } = await analyzeCharacterImage({
        tools,
        imageFile: mediaPath('images/musepose--ref.png'),
        outDir: dir,
        thumbnail: false,
      });
      assert.equal(analysis.maskMethod, 'segmentation');
      assert.equal(analysis.poseMethod, 'model');
      const b = analysis.body;
      // Legs of plausible proportions: each shin at least half its thigh (MoveNet alone put an ankle at mid-shin: 0.43).
      for (const [hip, knee, ankle] of [
        [11, 13, 15],
        [12, 14, 16],
      ]) {
        const thigh = Math.hypot(b[knee].x - b[hip].x, b[knee].y - b[hip].y);
        const shin = Math.hypot(b[ankle].x - b[knee].x, b[ankle].y - b[knee].y);
        assert.ok(shin > 0.5 * thigh && b[ankle].y > b[knee].y, `leg ${hip}: thigh ${thigh.toFixed(0)}, shin ${shin.toFixed(0)}`);
      }
      const mask = await maskFromTexture(dir, analysis);
      const torso = Math.hypot((b[5].x + b[6].x - b[11].x - b[12].x) / 2, (b[5].y + b[6].y - b[11].y - b[12].y) / 2);
      // The lit road under her feet is not part of her: nothing well below the lower ankle.
      const floor = Math.round(Math.max(b[15].y, b[16].y) + 0.4 * torso);
      let area = 0;
      let below = 0;
      for (let p = 0; p < mask.length; p++) {
        if (!mask[p]) continue;
        area++;
        if (Math.floor(p / analysis.width) > floor) below++;
      }
      assert.ok(below < area * 0.002, `${below} of ${area} figure pixels lie below y=${floor}`);
      // And the road between her feet is background, so the legs can move apart.
      const gapX = Math.round((b[15].x + b[16].x) / 2);
      const gapY = Math.round((b[15].y + b[16].y) / 2);
      assert.equal(mask[gapY * analysis.width + gapX], 0, `(${gapX}, ${gapY}) between the ankles`);
    },
  );

  it(
    "segments a person standing small in a large photo at the model's full resolution",
    { skip: missingMedia('images/4d-humans--pexels-anete-lusina-4793258.jpg') },
    async () => {
      // A man seen from behind in a lunge, barbell on his shoulders, filling a third of a 4016x6016 frame.
      // Segmented only at whole-picture scale, his raised right arm and kneeling rear leg were lost.
      const dir = join(tmp, '4d-humans');
      const { analysis } = await analyzeCharacterImage({
        tools,
        imageFile: mediaPath('images/4d-humans--pexels-anete-lusina-4793258.jpg'),
        outDir: dir,
        thumbnail: false,
      });
      assert.equal(analysis.maskMethod, 'segmentation');
      assert.equal(analysis.poseMethod, 'model');
      const b = analysis.body;
      const mask = await maskFromTexture(dir, analysis);
      const torso = Math.hypot((b[5].x + b[6].x - b[11].x - b[12].x) / 2, (b[5].y + b[6].y - b[11].y - b[12].y) / 2);
      // Every confident limb end lies on the figure (within a tenth of a torso of a mask pixel).
      const r = Math.round(0.1 * torso);
      const onFigure = (k: Keypoint): boolean => {
        for (let dy = -r; dy <= r; dy += 2) {
          for (let dx = -r; dx <= r; dx += 2) {
            const x = Math.round(k.x) + dx,
              y = Math.round(k.y) + dy;
            if (x >= 0 && y >= 0 && x < analysis.width && y < analysis.height && mask[y * analysis.width + x]) return true;
          }
        }
        return false;
      };
      for (const i of [9, 10, 13, 14, 15, 16]) {
        assert.ok(b[i].score >= 0.3, `keypoint ${i} seen (${b[i].score.toFixed(2)})`);
        assert.ok(onFigure(b[i]), `keypoint ${i} at (${b[i].x.toFixed(0)}, ${b[i].y.toFixed(0)}) is off the mask`);
      }
    },
  );

  it(
    'reads a person on a plain studio background as the photo it is, not as a drawing',
    { skip: missingMedia('images/mimicmotion--demo1.jpg') },
    async () => {
      // Her cut-out (half size) on plain grey and white: the border is as plain as a sheet of paper's.
      const photo = join(tmp, 'demo1-half.jpg');
      await sharp(mediaPath('images/mimicmotion--demo1.jpg')).resize(540).jpeg({ quality: 92 }).toFile(photo);
      const cutDir = join(tmp, 'demo1-half');
      const { analysis: cut } = await analyzeCharacterImage({ tools, imageFile: photo, outDir: cutDir, thumbnail: false });
      const meanColour = async (dir: string): Promise<number[]> => {
        const { data } = await sharp(join(dir, 'texture.png')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        const sum = [0, 0, 0];
        let n = 0;
        for (let p = 0; p < data.length; p += 4) {
          if (data[p + 3] < 250) continue;
          for (let c = 0; c < 3; c++) sum[c] += data[p + c];
          n++;
        }
        return sum.map((v) => v / n);
      };
      const colour = await meanColour(cutDir);
      for (const background of ['#8a8a8a', '#ffffff']) {
        const file = join(tmp, `studio-${background.slice(1)}.jpg`);
        await sharp({ create: { width: cut.width, height: cut.height, channels: 3, background } })
          .composite([{ input: join(cutDir, 'texture.png'), left: cut.crop.x, top: cut.crop.y }])
          .jpeg({ quality: 92 })
          .toFile(file);
        const dir = join(tmp, `studio-${background.slice(1)}`);
        const { analysis } = await analyzeCharacterImage({ tools, imageFile: file, outDir: dir, thumbnail: false });
        // Before: 'drawing' / 'skeleton', the sweater lightened by the paper division on grey.
        assert.equal(analysis.maskMethod, 'segmentation', background);
        assert.equal(analysis.poseMethod, 'model', background);
        let near = 0;
        for (let j = 5; j <= 16; j++) if (dist(analysis.body[j], [cut.body[j].x, cut.body[j].y]) <= 0.1 * cut.crop.height) near++;
        assert.ok(near >= 11, `${background}: ${near} of 12 limb joints where the photo's are`);
        const c = await meanColour(dir);
        assert.ok(
          c.every((v, i) => Math.abs(v - colour[i]) < 12),
          `${background}: figure colour ${c.map((v) => v.toFixed(0))} vs ${colour.map((v) => v.toFixed(0))}`,
        );
      }
    },
  );

  it('applies EXIF orientation before anything else', { skip: missingMedia('images/mimicmotion--demo1.jpg') }, async () => {
    // Pixels stored sideways with orientation 6: displayed, it is the original upright photo.
    const file = join(tmp, 'sideways.jpg');
    await sharp(mediaPath('images/mimicmotion--demo1.jpg')).rotate(-90).jpeg({ quality: 92 }).withMetadata({ orientation: 6 }).toFile(file);
    const { analysis } = await analyzeCharacterImage({ tools, imageFile: file, outDir: join(tmp, 'sideways'), thumbnail: false });
    assert.deepEqual([analysis.width, analysis.height], [1080, 1920]);
    const b = analysis.body;
    assert.ok(b[0].y < b[11].y && b[11].y < b[15].y, 'upright: head above hips above ankles');
    assert.ok(analysis.crop.height > analysis.crop.width * 1.8, JSON.stringify(analysis.crop));
  });

  it('uses a meaningful alpha channel as the mask', { skip: missingMedia('images/animateddrawings--char1-texture.png') }, async () => {
    const file = join(tmp, 'cutout.png');
    const mask = await sharp(mediaPath('images/animateddrawings--char1-mask.png')).greyscale().raw().toBuffer();
    const { data: rgb, info } = await sharp(mediaPath('images/animateddrawings--char1-texture.png'))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const rgba = Buffer.alloc(info.width * info.height * 4);
    for (let p = 0; p < info.width * info.height; p++) {
      rgb.copy(rgba, p * 4, p * 3, p * 3 + 3);
      rgba[p * 4 + 3] = mask[p];
    }
    await sharp(rgba, { raw: { width: info.width, height: info.height, channels: 4 } })
      .png()
      .toFile(file);
    const { analysis } = await analyzeCharacterImage({ tools, imageFile: file, outDir: join(tmp, 'cutout'), thumbnail: false });
    assert.equal(analysis.maskMethod, 'alpha');
    const score = iou(
      await maskFromTexture(join(tmp, 'cutout'), analysis),
      Uint8Array.from(mask, (v) => (v >= 128 ? 1 : 0)),
    );
    assert.ok(score > 0.95, `alpha mask IoU ${score.toFixed(3)}`);
  });

  it('refuses a picture with no figure', async () => {
    const flat = join(tmp, 'flat.png');
    await sharp({ create: { width: 400, height: 600, channels: 3, background: '#3a7bd5' } })
      .png()
      .toFile(flat);
    await assert.rejects(
      analyzeCharacterImage({ tools, imageFile: flat, outDir: join(tmp, 'flat'), thumbnail: false }),
      isCode('INVALID_CHARACTER'),
    );
    const clear = join(tmp, 'clear.png');
    await sharp({ create: { width: 300, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toFile(clear);
    await assert.rejects(
      analyzeCharacterImage({ tools, imageFile: clear, outDir: join(tmp, 'clear'), thumbnail: false }),
      isCode('INVALID_CHARACTER'),
    );
    // A busy picture with no one in it: Selfie sees a faint blob, the pose model sees nobody.
    const fractal = join(tmp, 'fractal.png');
    await runFfmpeg(tools, ['-v', 'error', '-f', 'lavfi', '-i', 'mandelbrot=s=640x480', '-frames:v', '1', fractal]);
    await assert.rejects(
      analyzeCharacterImage({ tools, imageFile: fractal, outDir: join(tmp, 'fractal'), thumbnail: false }),
      isCode('INVALID_CHARACTER'),
    );
  });

  it('refuses non-images with UNSUPPORTED_MEDIA', async () => {
    const text = join(tmp, 'x.jpg');
    await writeFile(text, 'not a picture');
    await assert.rejects(
      analyzeCharacterImage({ tools, imageFile: text, outDir: join(tmp, 'x'), thumbnail: false }),
      isCode('UNSUPPORTED_MEDIA'),
    );
  });
});
