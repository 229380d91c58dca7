/**
 * A drawing with a large coloured-in area on a lit sheet keeps the fill's colour across it (texture.ts
 * paperUnderFigure): the paper model (a closing at 4% of the picture) takes a fill wider than that for
 * paper, and dividing by it lifted the fill's middle towards white.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { analyzeCharacterImage } from '../../src/engine/character/analyze.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { workDir } from '../helpers/engine-fixtures.js';

const tools = resolveTools({});
const work = workDir('marionette-drawing-fill-');

test('a large coloured-in area keeps its colour from its edge to its middle', async () => {
  const W = 900,
    H = 1200;
  // Warm paper lit from the top left, a stick figure whose dress is a wide flat blue fill.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <defs><radialGradient id="l" cx="0.2" cy="0.1" r="1.2"><stop offset="0" stop-color="#fbf8ef"/><stop offset="1" stop-color="#c9c3b4"/></radialGradient></defs>
    <rect width="100%" height="100%" fill="url(#l)"/>
    <g stroke="#151515" stroke-width="7" stroke-linejoin="round" fill="none">
      <circle cx="450" cy="250" r="90" fill="#f1c79c"/>
      <path d="M450 340 L450 380"/>
      <path d="M300 380 L600 380 L700 820 L200 820 Z" fill="#2d5bd0"/>
      <path d="M310 400 L170 600 M590 400 L730 600 M380 820 L370 1050 M520 820 L530 1050"/>
    </g></svg>`;
  const image = join(work(), 'fill.png');
  await sharp(Buffer.from(svg)).png().toFile(image);
  const dir = join(work(), 'out');
  const r = await analyzeCharacterImage({ tools, imageFile: image, outDir: dir, thumbnail: false });
  assert.equal(r.analysis.maskMethod, 'drawing');
  const { crop } = r.analysis;
  const { data, info } = await sharp(join(dir, r.textureFile)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const k = info.width / crop.width;
  // Mean colour of a small patch of the dress, at picture coordinates.
  const patch = (px: number, py: number): number[] => {
    const sum = [0, 0, 0];
    let n = 0;
    for (let y = -6; y <= 6; y++) {
      for (let x = -6; x <= 6; x++) {
        const tx = Math.round((px - crop.x) * k) + x,
          ty = Math.round((py - crop.y) * k) + y;
        const o = (ty * info.width + tx) * 4;
        if (data[o + 3] < 255) continue;
        for (let c = 0; c < 3; c++) sum[c] += data[o + c];
        n++;
      }
    }
    assert.ok(n > 100, `patch at ${px},${py} is in the figure`);
    return sum.map((v) => v / n);
  };
  const middle = patch(450, 620);
  const edge = patch(260, 790);
  const light = (c: number[]): number => (c[0] + c[1] + c[2]) / 3;
  // The fill is flat in the picture apart from the light's fall-off, which the paper model divides out.
  assert.ok(Math.abs(light(middle) - light(edge)) <= 12, `dress middle ${middle.map(Math.round)} vs near its edge ${edge.map(Math.round)}`);
  // And it stays blue, not lifted towards the paper's white.
  assert.ok(middle[2] - middle[0] >= 100, `dress middle ${middle.map(Math.round)} is still blue`);
});
