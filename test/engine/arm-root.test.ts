/**
 * Shoulders of thick drawn sleeves (src/engine/character/arm-root.ts). A sleeve that widens into the
 * body gradually has no thickness step where it meets the body, so the skeleton's own rule put the
 * shoulders deep inside the body (here 13-17 px either side of the body's middle line, 60+ px inside the
 * body's outline): the rig's upper arm was a slab of body. An artist puts them where the arm leaves the
 * torso's outline, between the sleeve's upper edge and the armpit.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { raisedArmpit } from '../../src/engine/character/arm-root.js';
import { createEngine } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { thickSleeveDrawing, workDir } from '../helpers/engine-fixtures.js';

const engine = createEngine({ tools: resolveTools(process.env) });
const work = workDir('marionette-arm-root-');

for (const sleeve of [45, 70, 90]) {
  test(`thick sleeves (${sleeve} px): the shoulders sit where the arms leave the torso`, async () => {
    const { svg, seam } = thickSleeveDrawing(sleeve);
    const file = join(work(), `sleeve-${sleeve}.png`);
    await writeFile(file, await sharp(Buffer.from(svg)).png().toBuffer());
    const c = await engine.analyzeCharacter({ imageFile: file, outDir: join(work(), `c-${sleeve}`), thumbnail: false });
    const a = c.analysis;
    assert.equal(a.poseMethod, 'skeleton');
    assert.equal(a.figure, 'biped');
    // The seam from the sleeve's upper corner to the armpit, half way along: the shoulder lies within a
    // quarter of the sleeve's thickness of it across, and between the sleeve's edges down.
    const seamX = (seam.top + seam.under) / 2;
    for (const [k, side] of [
      [5, 1],
      [6, -1],
    ] as const) {
      const [sx, sy] = [a.body[k].x, a.body[k].y];
      const inside = seamX - side * (sx - 320);
      assert.ok(Math.abs(inside) <= 0.25 * sleeve + 4, `shoulder ${k} at x ${sx.toFixed(0)}: ${inside.toFixed(0)} px inside the seam`);
      assert.ok(sy > 190 && sy < seam.underY, `shoulder ${k} at y ${sy.toFixed(0)}`);
      // The elbow stays out on the sleeve, beyond the body's side and its outline.
      assert.ok(side * (a.body[k + 2].x - 320) > seam.under + 12, `elbow ${k + 2} at x ${a.body[k + 2].x.toFixed(0)}`);
    }
  });
}

test("a raised arm's underside with a jag, below a gap to the head: the shoulder at the armpit's corner", () => {
  // A 60 x 60 grid: the body's middle column 20, a raised arm on the right. Rows 20-24: the head (to
  // column 25) and the arm beside it (30-40), apart; from row 25 the arm's underside slants in one px a
  // row with one jag of 4 px (row 31: a photographed sheet's line), then the torso's side holds at column
  // 30 from row 37 down. The shoulder found lies where the arm touches the head (38, 20), as armpitSide
  // put it on the jag on generated seeds 54, 61 and 85 on a 3 MP photo (both shoulders 0.12-0.15 figure
  // sizes above the annotation's); the walk used to stop at the gap's first row or at the jag (null).
  const w = 60;
  const grid = (jump: number): Uint8Array => {
    const m = new Uint8Array(w * w);
    const fill = (y: number, a: number, b: number): void => {
      m.fill(1, y * w + a, y * w + b + 1);
    };
    for (let y = 20; y < 25; y++) {
      fill(y, 10, 25);
      fill(y, 30, 40);
    }
    let side = 45;
    for (let y = 25; y < w; y++) {
      fill(y, 10, side);
      side = Math.max(30, side - (y === 30 ? jump : 1));
    }
    return m;
  };
  const corner = raisedArmpit(grid(4), w, 20, w - 1, [38, 20], [55, 2], 3);
  assert.deepEqual(corner, [27, 35.5]);
  // A step as long as a level arm's underside is a jump, not a jag: no corner.
  assert.equal(raisedArmpit(grid(12), w, 20, w - 1, [38, 20], [55, 2], 3), null);
});
