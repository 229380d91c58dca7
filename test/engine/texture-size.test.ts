/**
 * The texture's size (issue 10 item 7, analysis of a 12 MP photo within 3 s): a drawing's crop is decoded
 * at most DRAWING_TEXTURE_SIDE on its long side, so the cut, the rim and the rig read that many pixels
 * (a 12 MP sheet's figure: 44% fewer than at MAX_TEXTURE_SIDE); any other figure's crop keeps its full
 * resolution until its texture is written (at most MAX_TEXTURE_SIDE).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { DRAWING_TEXTURE_SIDE, MAX_TEXTURE_SIDE, readTextureSource } from '../../src/engine/character/texture.js';

let work = '';
before(async () => {
  work = await mkdtemp(join(tmpdir(), 'marionette-texture-size-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

test('a drawing crop larger than the drawing cap is decoded at the cap; another figure keeps its pixels', async () => {
  assert.ok(DRAWING_TEXTURE_SIDE < MAX_TEXTURE_SIDE);
  const file = join(work, 'sheet.png');
  // A crop of a phone photo's figure: 1900 x 2300 px (char1's on the 12 MP sheets).
  await sharp({ create: { width: 2000, height: 2400, channels: 3, background: { r: 240, g: 236, b: 228 } } })
    .png()
    .toFile(file);
  const crop = { x: 50, y: 60, width: 1900, height: 2300 };
  const drawing = await readTextureSource(file, crop, true);
  assert.equal(Math.max(drawing.width, drawing.height), DRAWING_TEXTURE_SIDE);
  assert.equal(drawing.width, Math.round((1900 * DRAWING_TEXTURE_SIDE) / 2300));
  const photo = await readTextureSource(file, crop, false);
  assert.deepEqual([photo.width, photo.height], [1900, 2300]);
  // A crop already under the cap is not enlarged.
  const small = await readTextureSource(file, { x: 0, y: 0, width: 900, height: 1200 }, true);
  assert.deepEqual([small.width, small.height], [900, 1200]);
});
