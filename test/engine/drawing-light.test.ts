/**
 * Drawings photographed under light that is not daylight (docs/figures.md, "Paper under coloured
 * light"): squared paper in blue shade and under a grey veil of haze, where the sheet's lines are only a
 * few grey levels darker than their paper; and the texture of a drawing photographed under a tungsten
 * lamp, whose paper should come out near white rather than orange (drawing.ts, textureBalance).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { after, before, describe, it } from 'node:test';
import { analyzeCharacterImage } from '../../src/engine/character/analyze.js';
import { textureBalance } from '../../src/engine/character/drawing.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { loadDrawing, makePaperPhoto, scoreAnalysis, type PaperPhotoOptions } from '../../bench/_drawing-cases.js';
import { missingMedia } from '../helpers/engine-fixtures.js';

const tools = resolveTools({});
const skip = missingMedia('images/animateddrawings--char1-char_cfg.yaml');
let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-drawing-light-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function analysePhoto(id: 'char1' | 'char3', name: string, opts: PaperPhotoOptions) {
  const c = await makePaperPhoto(await loadDrawing(id), join(tmp, `${name}.jpg`), opts);
  const dir = join(tmp, name);
  const r = await analyzeCharacterImage({ tools, imageFile: c.file, outDir: dir, thumbnail: false });
  return { r, dir, s: await scoreAnalysis(dir, r.analysis, r.textureFile, c.truth) };
}

describe('drawings under coloured, dim or hazy light', () => {
  it('the texture balance leaves daylight paper and coloured sheets alone and takes out a lamp', () => {
    // Gains as lightBalance gives them: daylight on the bench's cream paper, a tungsten lamp, blue shade.
    assert.deepEqual(textureBalance([1, 1.022, 1.082]), [1, 1, 1]);
    const lamp = textureBalance([1, 1.194, 1.745]);
    // The lamp's sheet (238, 200, 136 relative) comes out as cream paper does under daylight.
    assert.ok(lamp[2] > 1.5 && lamp[2] < 1.7 && lamp[1] > 1.1 && lamp[1] < 1.2, `lamp ${lamp.join(',')}`);
    const shade = textureBalance([1.147, 1.041, 1]);
    assert.ok(shade[0] > 1.08 && shade[2] === 1, `shade ${shade.join(',')}`);
    // Blue construction paper (red at half) needs a gain at the cap: its own colour, left as it is.
    assert.deepEqual(textureBalance([2, 1.4, 1]), [1, 1, 1]);
    // A pink sheet is off the orange-blue line that lights follow.
    assert.deepEqual(textureBalance([1, 1.25, 1.15]), [1, 1, 1]);
    assert.deepEqual(textureBalance(undefined), [1, 1, 1]);
  });

  it('squared paper in blue shade: the grid is not taken for ink', { skip }, async () => {
    // The coloured candy corn on squared paper in shade: the faint line pixels' hue wandered past the
    // lines' by their noise, the crumbs they left linked into the figure and it took the sheet (0.621).
    const { r, s } = await analysePhoto('char3', 'squared-shade', { orientation: 1, megapixels: 3, paper: 'squared', light: 'shade' });
    assert.equal(r.analysis.maskMethod, 'drawing');
    assert.ok(s.iou >= 0.95, `IoU ${s.iou.toFixed(3)}`);
    assert.ok(s.joints >= 0.9, `joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
  });

  it('squared paper under a veil of haze: its faint lines are found and taken out', { skip }, async () => {
    // Under the veil the squares' lines are mostly under the ink level: no ruling was recognised, what
    // was ink of them stayed and the mask took the sheet around the figure (0.35).
    const { s } = await analysePhoto('char1', 'squared-haze', { orientation: 1, megapixels: 3, paper: 'squared', haze: 0.45 });
    assert.ok(s.iou >= 0.95, `IoU ${s.iou.toFixed(3)}`);
    assert.ok(s.joints >= 0.9, `joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
  });

  it("under a tungsten lamp the texture's paper comes out near white, not orange", { skip }, async () => {
    // char1's body is bare paper: the brightest tenth of the opaque texels is that paper. Under the lamp
    // it kept the lamp's orange (blue at about 0.6 of red); under daylight the bench's cream paper is
    // at 0.92.
    const { r, dir, s } = await analysePhoto('char1', 'lamp', { orientation: 1, megapixels: 3, light: 'lamp' });
    assert.ok(s.iou >= 0.96, `IoU ${s.iou.toFixed(3)}`);
    const { data, info } = await sharp(join(dir, r.textureFile)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const px: number[][] = [];
    for (let p = 0; p < info.width * info.height; p++)
      if (data[p * 4 + 3] === 255) px.push([data[p * 4], data[p * 4 + 1], data[p * 4 + 2]]);
    px.sort((a, b) => b[0] + b[1] + b[2] - (a[0] + a[1] + a[2]));
    const top = px.slice(0, Math.ceil(px.length * 0.1));
    const mean = [0, 1, 2].map((c) => top.reduce((sum, v) => sum + v[c], 0) / top.length);
    assert.ok(mean[2] / mean[0] >= 0.86 && mean[1] / mean[0] >= 0.93, `paper ${mean.map((v) => v.toFixed(0)).join(',')}`);
  });
});
