/**
 * Drawings against the artists' own annotations (AnimatedDrawings char1/2/3/6) and synthetic phone
 * photos of them on paper (bench/_drawing-cases.ts: uneven light, a soft shadow, a table at the edges,
 * JPEG, EXIF orientations, ruled or squared lines, pencil, a doodle beside the figure, the figure cut at
 * the sheet's edge, perspective). Floors sit at what the engine reaches (see the drawings table in
 * docs/benchmarks.md), a little below, so a regression fails here; the bench's targets are IoU 0.95 and
 * joints 0.90.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { after, before, describe, it } from 'node:test';
import { analyzeCharacterImage } from '../../src/engine/character/analyze.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { loadDrawing, makePaperPhoto, scoreAnalysis, type PaperPhotoOptions } from '../../bench/_drawing-cases.js';
import { makeSynthDrawing } from '../../bench/_drawing-synth.js';
import { missingMedia } from '../helpers/engine-fixtures.js';

const tools = resolveTools({});
let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'marionette-drawings-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

// Since the outline's rim (texture.ts outlineRim) the shared pictures reach 0.989 / 0.956 / 0.986 / 0.980.
const FLOORS = { char1: [0.98, 1], char2: [0.95, 0.9], char3: [0.975, 1], char6: [0.97, 0.95] } as const;
const skip = missingMedia('images/animateddrawings--char1-char_cfg.yaml');

async function analysePhoto(id: keyof typeof FLOORS, name: string, opts: PaperPhotoOptions) {
  const c = await makePaperPhoto(await loadDrawing(id), join(tmp, `${name}.jpg`), opts);
  const dir = join(tmp, name);
  const r = await analyzeCharacterImage({ tools, imageFile: c.file, outDir: dir, thumbnail: false });
  return { r, s: await scoreAnalysis(dir, r.analysis, r.textureFile, c.truth) };
}

describe('drawings against the artists annotations', () => {
  for (const id of ['char1', 'char2', 'char3', 'char6'] as const) {
    it(`${id}: figure found, mask and limb joints near the artist's`, { skip }, async () => {
      const truth = await loadDrawing(id);
      const dir = join(tmp, id);
      const r = await analyzeCharacterImage({ tools, imageFile: truth.imageFile, outDir: dir, thumbnail: false });
      assert.equal(r.analysis.maskMethod, 'drawing');
      assert.equal(r.analysis.poseMethod, 'skeleton');
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, truth);
      const [iouFloor, jointFloor] = FLOORS[id];
      assert.ok(s.iou >= iouFloor, `IoU ${s.iou.toFixed(3)}`);
      assert.ok(s.joints >= jointFloor, `joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
      if (id === 'char6') assert.equal(r.analysis.figure, 'quadruped');
      // The head keypoint at the head's centre, not at a pigtail's or a crown's tip (char2's pigtail
      // was its head: 0.19 of the figure off, char1's crown top 0.19; now 0.01-0.04).
      else assert.ok(s.head <= 0.08, `head ${s.head.toFixed(3)} of the figure from the artist's`);
    });
  }

  it('a 12 MP phone photo of ruled paper gives the same figure whatever its EXIF orientation', { skip }, async () => {
    const scores: number[] = [];
    for (const orientation of [3, 8] as const) {
      const { r, s } = await analysePhoto('char1', `exif-${orientation}`, { orientation, megapixels: 12 });
      assert.equal(r.analysis.maskMethod, 'drawing');
      assert.ok(s.iou >= 0.97, `EXIF ${orientation}: IoU ${s.iou.toFixed(3)}`);
      assert.ok(s.joints >= 0.9, `EXIF ${orientation}: joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
      scores.push(s.iou);
    }
    assert.ok(Math.abs(scores[0] - scores[1]) <= 0.01, `IoU ${scores.join(' vs ')}`);
  });

  const variations: Array<[string, keyof typeof FLOORS, PaperPhotoOptions, number, number]> = [
    ['four-legged figure beside a doodle crossed by the margin', 'char6', { orientation: 1, megapixels: 3, scribble: true }, 0.95, 0.95],
    // Its outline's rim stopped at every ruled line's pixel, so where an edge lies along a line the
    // artist's mask beyond it was lost (0.948); texture.ts outlineRim now grows the rim across the lines.
    ['figure cut at the sheet edge (table beyond)', 'char2', { orientation: 1, megapixels: 3, edge: true }, 0.95, 0.9],
    // The same rim across the lines: 0.935 -> 0.943 (still under the bench's 0.95, see docs/figures.md).
    ['light pencil on ruled paper', 'char2', { orientation: 1, megapixels: 3, pencil: true }, 0.94, 0.9],
    ['sheet in perspective and turned 3 degrees', 'char1', { orientation: 1, megapixels: 3, keystone: 0.15 }, 0.97, 0.9],
    ['light pencil on squared paper', 'char1', { orientation: 1, megapixels: 3, pencil: true, paper: 'squared' }, 0.96, 0.9],
    // Small on ruled paper: the lines touching the outline must not stay on as stubs (0.934 with them).
    // The figure is drawn at 0.69 of the annotation's scale, and the cut kept the crayon's faint yellow
    // edge a few drawing pixels beyond what the annotation marks (0.933); texture.ts trimBeyondAnnotation
    // now leaves it out (0.971).
    ['small figure on ruled paper', 'char3', { orientation: 1, megapixels: 3, size: 0.25 }, 0.96, 0.9],
    // Two hind legs touching down to the ground: split into two legs (one stood in for both before: 0.92).
    ['four-legged figure in perspective', 'char6', { orientation: 1, megapixels: 3, keystone: 0.15 }, 0.95, 0.95],
    // Small on a large photo, its grey pencil thinner than a working pixel on the whole photo: read again
    // from the region around it (reading.ts). Before, refused ("No figure found") and IoU 0.50 with the
    // body lost and joints 0.08.
    ['small four-legged figure on a 12 MP photo, EXIF 6', 'char6', { orientation: 6, megapixels: 12, size: 0.2 }, 0.95, 0.9],
    ['small four-legged figure on ruled paper', 'char6', { orientation: 1, megapixels: 3, size: 0.25 }, 0.95, 0.9],
    // Small beside a doodle as wide as the sheet's free half: the doodle (a sun on a zigzag) spans the
    // wider box and was taken for the figure (IoU 0.000); the pig's outline encloses more (drawing.ts).
    ['small four-legged figure beside a wider doodle', 'char6', { orientation: 1, megapixels: 3, size: 0.25, scribble: true }, 0.95, 0.9],
    // Smaller still (0.4 of its annotation's pixel per photo pixel): the cut's fringe beyond the annotation
    // was 5% of the figure (0.945); trimBeyondAnnotation leaves it out (0.977).
    ['smaller four-legged figure beside the doodle', 'char6', { orientation: 1, megapixels: 3, size: 0.2, scribble: true }, 0.96, 0.9],
    // Under a tungsten lamp the white sheet photographs orange (blue at 0.62): the paper is recognised once
    // the light's colour is taken out (drawing.ts, lightBalance). Before, refused ("No figure found").
    ['four-legged figure under lamp light', 'char6', { orientation: 1, megapixels: 3, light: 'lamp' }, 0.95, 0.95],
    // Light grey pencil small on a 12 MP photo: its rear stroke is drawn lighter than the ink level and its
    // legs' strokes are cut where they cross ruled lines, so the body's outline was open and the body lost
    // (IoU 0.421, joints 0.08); the faint stretch and the cut strokes are joined again (stroke-gaps.ts).
    [
      'small light-pencil four-legged figure on a 12 MP photo',
      'char6',
      { orientation: 6, megapixels: 12, size: 0.15, pencil: true },
      0.95,
      0.9,
    ],
    // A leg's bottom stroke lying along a ruled line went with the line: that leg lost (0.925, joints 0.92).
    [
      'small four-legged figure beside a doodle, a leg on a ruled line',
      'char6',
      { orientation: 1, megapixels: 3, size: 0.2, scribble: true },
      0.935,
      0.95,
    ],
  ];
  it("the outline's outside carries the stroke's colour, not a light line of its blur or the paper", { skip }, async () => {
    // char1 and char2 are outlined in dark marker and pencil: of the texels in the figure's outer 2 px,
    // the share lighter than mid grey (57% on char2, 37% on char1 before: the stroke's anti-aliased
    // edge drawn opaque in its own light colour, then unmixed towards the paper-coloured inside).
    for (const id of ['char1', 'char2'] as const) {
      const truth = await loadDrawing(id);
      const dir = join(tmp, `outline-${id}`);
      const r = await analyzeCharacterImage({ tools, imageFile: truth.imageFile, outDir: dir, thumbnail: false });
      const { data, info } = await sharp(join(dir, r.textureFile)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const W = info.width,
        H = info.height;
      let rim = 0,
        light = 0;
      for (let y = 2; y < H - 2; y++) {
        for (let x = 2; x < W - 2; x++) {
          const p = y * W + x;
          if (data[p * 4 + 3] < 128) continue;
          let outer = false;
          for (let dy = -2; dy <= 2 && !outer; dy++)
            for (let dx = -2; dx <= 2; dx++) if (data[(p + dy * W + dx) * 4 + 3] === 0) outer = true;
          if (!outer) continue;
          rim++;
          if ((data[p * 4] + data[p * 4 + 1] + data[p * 4 + 2]) / 3 > 140) light++;
        }
      }
      assert.ok(light / rim <= 0.1, `${id}: ${((100 * light) / rim).toFixed(1)}% of the outer 2 px lighter than mid grey`);
    }
  });

  it('ruled lines do not run across the figure: inside it they take the paper colour', { skip }, async () => {
    // The pig's outline is red, the sheet's lines blue: opaque texels even faintly bluer than they are red
    // or green are the lines (8-9% of the body at first; 1.9% with the lines' blurred edges left as a dotted
    // line, 0.7% since paperOverLines). The lines' pixels once took the brightest paper's colour, a light
    // stripe across the grainy paper: rows lighter than the rows around them 3.5%, now 1.1%.
    const { r } = await analysePhoto('char6', 'lines-inside', { orientation: 1, megapixels: 3, scribble: true });
    const file = join(tmp, 'lines-inside', r.textureFile);
    const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    let opaque = 0,
      blue = 0;
    for (let p = 0; p < info.width * info.height; p++) {
      if (data[p * 4 + 3] < 255) continue;
      opaque++;
      if (data[p * 4 + 2] - (data[p * 4] + data[p * 4 + 1]) / 2 > 6) blue++;
    }
    assert.ok(blue / opaque <= 0.012, `${((100 * blue) / opaque).toFixed(1)}% of the figure is line-coloured`);
    const light = await rowShare(file, 1.015);
    assert.ok(light <= 0.02, `${(100 * light).toFixed(1)}% of the rows lighter than those around them`);
  });

  it('ruled and squared lines do not show through a coloured fill', { skip }, async () => {
    // The sheet's lines show through crayon as a darkening by their own transmittance (texture.ts
    // liftLines). Measured as rows of the opaque texture darker than 0.93 x the median of the rows
    // around them: on the coloured candy corn on ruled paper 9.5% of rows before, 5.5% after (the rest
    // is the drawing's own horizontal strokes and the lines' faint ends at the outline); on squared
    // paper in grey pencil 7.5% before, 0% after.
    for (const [name, opts, bound] of [
      ['fill-ruled', { orientation: 1, megapixels: 3 }, 0.07],
      ['fill-squared-pencil', { orientation: 1, megapixels: 3, paper: 'squared', pencil: true }, 0.03],
    ] as const) {
      const { r } = await analysePhoto('char3', name, opts);
      const share = await darkRowShare(join(tmp, name, r.textureFile));
      assert.ok(share <= bound, `${name}: ${(100 * share).toFixed(1)}% of the rows darker than those around them`);
    }
  });

  it('arms hanging beside the body: shoulders where the arm joins the torso, not at its armpit', async () => {
    // Generated drawings (bench/_drawing-synth.ts): an oval body and a dress, arms hanging with a gap
    // below the armpit. Both shoulders were put at the armpit before (joints 0.83, shoulders 0.11 and
    // 0.17 figure sizes from the annotation's); arm-root.ts hangingShoulder walks up the arm's side.
    for (const seed of [3, 13]) {
      const d = await makeSynthDrawing(seed, join(tmp, `synth-${seed}.png`));
      const dir = join(tmp, `synth-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      assert.ok(s.iou >= 0.94, `seed ${seed}: IoU ${s.iou.toFixed(3)}`);
      assert.ok(s.joints >= 0.9, `seed ${seed} (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
    }
  });

  it("a dress's arms hanging against it: shoulders at the torso's top under the neck, not in the dress", async () => {
    // Generated drawings 5 and 21 (a dress, arms hanging against its slanted sides, pencil outline): no
    // armpit is seen and the arm's path runs from the hand into the dress, so the shoulders were put at
    // the armpit or inside the dress (joints 0.83 and 0.67, shoulders 0.15-0.25 figure sizes below the
    // annotation's); arm-root.ts shoulderUnderNeck puts them under the neck, the elbows on the arm's line.
    for (const seed of [5, 21]) {
      const d = await makeSynthDrawing(seed, join(tmp, `dress-${seed}.png`));
      const dir = join(tmp, `dress-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      assert.ok(s.joints >= 0.9, `seed ${seed} (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
    }
  });

  it('a stick figure: the narrow wedges between its arms and body stay open', async () => {
    // Generated drawing 6 (a 1 px pencil stick figure in a top hat) on a 3 MP ruled photo: its head is
    // closed at the smallest closing, and the closing's own fill of the wedges between arms and body grew
    // the enclosed area 1.48x at the largest radius, which was taken for the outline's seal (IoU 0.679);
    // generated drawing 35 as drawn (a 5 px marker stick figure, arms down) the same (0.738).
    // drawing.ts enclosedArea no longer counts the pixels the closing itself sets.
    const six = await makeSynthDrawing(6, join(tmp, 'wedge-6.png'));
    const onPaper = await makePaperPhoto(six.truth, join(tmp, 'wedge-6-paper.jpg'), { orientation: 1, megapixels: 3 });
    const drawn = (await makeSynthDrawing(35, join(tmp, 'wedge-35.png'))).truth;
    for (const [name, truth, floor] of [
      ['wedge-6-paper', onPaper.truth, 0.92],
      ['wedge-35', drawn, 0.95],
    ] as const) {
      const dir = join(tmp, name);
      const r = await analyzeCharacterImage({ tools, imageFile: truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, truth);
      assert.ok(s.iou >= floor, `${name}: IoU ${s.iou.toFixed(3)}`);
    }
  });

  it("an enlarged drawing's rim is as wide as its annotation's: two annotation pixels past the ink", async () => {
    // Generated drawing 3 (oval, marker 4 px) on a 3 MP ruled photo, enlarged 2.3x: the rim was one
    // picture pixel past the stroke's blur (RIM_SHARE of the figure), the annotation's two of its own
    // pixels (IoU 0.939); texture.ts outlineRim grows it from the annotation's ink by two units (0.980).
    const d = await makeSynthDrawing(3, join(tmp, 'rim-synth-3.png'));
    const made = await makePaperPhoto(d.truth, join(tmp, 'rim-synth-3.jpg'), { orientation: 1, megapixels: 3 });
    const dir = join(tmp, 'rim-synth-3');
    const r = await analyzeCharacterImage({ tools, imageFile: made.file, outDir: dir, thumbnail: false });
    const s = await scoreAnalysis(dir, r.analysis, r.textureFile, made.truth);
    assert.ok(s.iou >= 0.965, `IoU ${s.iou.toFixed(3)}`);
  });

  it('a stick figure on paper keeps its whole rim: the nearest whole pixels to two annotation pixels', async () => {
    // Generated stick figures (seed 22: 2 px pencil, seed 37: 5 px marker) on a 3 MP ruled photo: their
    // annotation's pixel is 1.76-1.81 photo px (the figure over ANNOTATED_FIGURE), a rim of 3.5-3.6 px,
    // which was rounded down to 3 and lost a pixel of the artist's mask all round the lines (IoU 0.905,
    // 0.927); texture.ts outlineRim rounds an enlarged drawing's rim to the nearest pixel (0.956, 0.968).
    for (const seed of [22, 37]) {
      const d = await makeSynthDrawing(seed, join(tmp, `stick-rim-${seed}.png`));
      const made = await makePaperPhoto(d.truth, join(tmp, `stick-rim-${seed}.jpg`), { orientation: 1, megapixels: 3, seed });
      const dir = join(tmp, `stick-rim-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: made.file, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, made.truth);
      assert.ok(s.iou >= 0.95, `seed ${seed}: IoU ${s.iou.toFixed(3)}`);
    }
  });

  it("a drawing cut round its figure gets the annotation's rim at its own scale: two picture pixels past the ink", async () => {
    // Generated drawings as drawn (the picture is the annotated one): a pencil stick figure (seed 6) and a
    // pencil oval (seed 2) lost one pixel of the annotation all round (IoU 0.846, 0.935) with the rim of
    // one picture pixel past the stroke's blur; texture.ts outlineRim grows it from the annotation's ink
    // by two picture pixels (0.971, 0.993).
    for (const seed of [6, 2]) {
      const d = await makeSynthDrawing(seed, join(tmp, `native-rim-${seed}.png`));
      const dir = join(tmp, `native-rim-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      assert.ok(s.iou >= 0.96, `seed ${seed}: IoU ${s.iou.toFixed(3)}`);
    }
  });

  it("a big head's hair spikes are not taken for hands", async () => {
    // Generated drawing 18 (big head with spiky hair, one arm up, one hanging): the spike on the hanging
    // arm's side reached further out than its hand and was taken for it (joints 0.67, shoulder, elbow and
    // hand missed); skeleton-pose.ts now leaves out ends whose path runs through the head's round.
    const d = await makeSynthDrawing(18, join(tmp, 'head-spikes-18.png'));
    const dir = join(tmp, 'head-spikes-18');
    const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
    const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
    assert.ok(s.joints >= 0.9, `joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
  });

  it("a big head's raised arms: shoulders at the body's top corners, not where the arms touch the head", async () => {
    // Generated drawings 51 and 61 (big heads, both arms raised): the root lies in the head, the arms'
    // paths turn up into it where they touch its outline, and both shoulders were put there, 0.14-0.16
    // figure sizes above the annotation's (joints 0.83 each); arm-root.ts raisedArmpit follows the arm's
    // underside down to the armpit's corner.
    for (const seed of [51, 61]) {
      const d = await makeSynthDrawing(seed, join(tmp, `big-head-${seed}.png`));
      const dir = join(tmp, `big-head-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      const shoulders = s.misses.filter((k) => [5, 6].includes(Number(k)));
      assert.ok(
        shoulders.length === 0 && s.joints >= 0.9,
        `seed ${seed} (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`,
      );
    }
  });

  it('raised hands beside a head with hair are hands, not hair', async () => {
    // Generated drawings 38 and 47 (stick figures with hair, arms raised across the head's round, mitten
    // hands): the hands lie as far from the head's centre as a big head's hair spikes and their paths run
    // through its round, so both were taken for hair and no arm was found (joints 0.50 each);
    // skeleton-pose.ts endsInBlob keeps an end in a blob (a hand) off the head's features. Their
    // shoulders sit where the arm's line leaves the head's round (a stick figure's arm drawn along the
    // head, headRound's entry: the figure then stays whole when the arms swing), above the annotation's
    // on the body's line, so the hands and elbows are what this checks.
    for (const seed of [38, 47]) {
      const d = await makeSynthDrawing(seed, join(tmp, `raised-${seed}.png`));
      const dir = join(tmp, `raised-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      const arms = s.misses.filter((k) => [7, 8, 9, 10].includes(Number(k)));
      assert.ok(
        arms.length === 0 && s.joints >= 0.8,
        `seed ${seed} (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`,
      );
    }
  });

  it("an outlined figure's raised arms beside hair, and arms meeting under a head without a neck", async () => {
    // Generated seed 30 (a marker dress with hair, arms raised, mitten hands under HAND_BLOB times the arm):
    // its hands lie 2.4 head radii from the head's centre, within the hair's reach, and were taken for hair
    // (joints 0.50); skeleton-pose.ts ARM_REACH: an end whose path runs more than a head radius outside
    // the head's round is an arm. Seed 19 (a pencil dress, arms raised, no head end): the arms' branches,
    // tied in length, ran on down the dress, whose thickness was read as the arms' and the shoulders put
    // inside the head (joints 0.83); a limb's own stretch ends where another limb-long branch joins it.
    for (const seed of [30, 19]) {
      const d = await makeSynthDrawing(seed, join(tmp, `raised-outlined-${seed}.png`));
      const dir = join(tmp, `raised-outlined-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      assert.ok(s.joints >= 0.9, `seed ${seed} (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
    }
  });

  it('a raised arm running into a head without an end: its thickness read on the arm, not the head', async () => {
    // Generated seed 87 (a marker dress, one arm raised beside a round head without hair, circle hands):
    // the head has no skeleton end, so the raised arm's stretch ran on through the head's round to the
    // dress and its thickness was read on the head (r 15.3 grid px for an arm of 9): the shoulder's 1.6x
    // jump never fired and the shoulder sat at the head's centre (0.12 figure sizes off, joints 0.83).
    // skeleton-pose.ts limb: an arm's stretch measured stops where it thickens past 1.6x.
    const d = await makeSynthDrawing(87, join(tmp, 'raised-87.png'));
    const dir = join(tmp, 'raised-87');
    const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
    const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
    assert.ok(
      !s.misses.includes('5') && s.joints >= 0.9,
      `seed 87 (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`,
    );
  });

  it("a stick figure's limbs hang from its body's line, not from its head", async () => {
    // Generated drawings 22 and 23 (stick figures, arms raised, legs together): the root was found in the
    // head's round, so the shoulders sat inside the head and the knees at the crotch (joints 0.67 each);
    // skeleton-pose.ts now roots a stick figure where its legs part and attaches its arms on the body's
    // line below the head.
    for (const seed of [22, 23]) {
      const d = await makeSynthDrawing(seed, join(tmp, `stick-${seed}.png`));
      const dir = join(tmp, `stick-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      assert.ok(s.joints >= 0.9, `seed ${seed}: joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
    }
  });

  it("outlined legs thinner than a stick figure's bound are not a stick figure's lines", async () => {
    // Generated drawings 88 (a box body, 1 px pencil, one arm up) and 60 (a big head on a small body, arms
    // level): their outlined legs are tubes under STICK_LINE of the figure's height, so they were read as
    // a stick figure's lines: the root moved to the crotch and the arms were attached on the "body's line"
    // (88: joints 0.83, a shoulder and a knee missed; 60: 0.75, both shoulders put at the crotch).
    // skeleton-pose.ts now also asks the line's median half thickness to be a pen's (STICK_PEN).
    for (const [seed, floor] of [
      [88, 0.9],
      [60, 0.8],
    ]) {
      const d = await makeSynthDrawing(seed, join(tmp, `tubes-${seed}.png`));
      const dir = join(tmp, `tubes-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      assert.ok(s.joints >= floor, `seed ${seed}: joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
    }
  });

  it('legs drawn together are split into two legs; a hanging arm is not taken for one', async () => {
    // Generated drawings 8, 28 and 29 (legs side by side, no gap the mask keeps): the skeleton runs down
    // the pair as one column. Seeds 8 and 29 took a hanging arm for the second leg (joints 0.67 and 0.33:
    // a knee and an ankle on the arm); seed 28's column forks only at the feet, so both knees sat at one
    // point 0.2 figure sizes above the annotation's (joints 0.83). leg-column.ts splits the column.
    for (const seed of [8, 28, 29]) {
      const d = await makeSynthDrawing(seed, join(tmp, `together-${seed}.png`));
      const dir = join(tmp, `together-${seed}`);
      const r = await analyzeCharacterImage({ tools, imageFile: d.truth.imageFile, outDir: dir, thumbnail: false });
      const s = await scoreAnalysis(dir, r.analysis, r.textureFile, d.truth);
      const legs = s.misses.filter((i) => Number(i) >= 11);
      assert.deepEqual(legs, [], `seed ${seed} (${d.label}): leg joints missed ${legs.join(',')}`);
      assert.ok(s.joints >= 0.9, `seed ${seed} (${d.label}): joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
    }
  });

  it('on paper: light-pencil four-legged figure, its head along a ruled line', { skip }, async () => {
    // The head's top lies along a ruled line and went with it: the head lost (IoU 0.064). Only the mask is
    // checked: the outline seals at the largest closing only, which joins the legs, and the skeleton gives
    // way to the proportions (joints 0.17).
    const opts: PaperPhotoOptions = { orientation: 1, megapixels: 3, size: 0.3, pencil: true };
    const { r, s } = await analysePhoto('char6', 'pencil-head-along-a-line', opts);
    assert.equal(r.analysis.maskMethod, 'drawing');
    assert.ok(s.iou >= 0.94, `IoU ${s.iou.toFixed(3)}`);
  });

  for (const [what, id, opts, iouFloor, jointFloor] of variations) {
    it(`on paper: ${what}`, { skip }, async () => {
      const { r, s } = await analysePhoto(id, what.replace(/\W+/g, '-'), opts);
      assert.equal(r.analysis.maskMethod, 'drawing');
      assert.equal(r.analysis.poseMethod, 'skeleton');
      assert.ok(s.iou >= iouFloor, `IoU ${s.iou.toFixed(3)}`);
      assert.ok(s.joints >= jointFloor, `joints ${s.joints.toFixed(2)} (missed ${s.misses.join(',')})`);
      if (id !== 'char6') assert.ok(s.head <= 0.08, `head ${s.head.toFixed(3)} of the figure from the artist's`);
    });
  }
});

/** Share of the texture's rows whose opaque texels are on average darker than 0.93 x the median row around them. */
function darkRowShare(file: string): Promise<number> {
  return rowShare(file, 0.93);
}

/**
 * Share of the texture's rows whose opaque texels are on average darker than `factor` x the median row
 * around them (factor < 1), or lighter (factor > 1).
 */
async function rowShare(file: string, factor: number): Promise<number> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const mean = new Float64Array(h);
  const count = new Int32Array(h);
  for (let y = 0; y < h; y++) {
    let sum = 0;
    for (let x = 0; x < w; x++) {
      const p = (y * w + x) * 4;
      if (data[p + 3] < 255) continue;
      sum += (data[p] + data[p + 1] + data[p + 2]) / 3;
      count[y]++;
    }
    mean[y] = count[y] ? sum / count[y] : 0;
  }
  const r = Math.max(4, Math.round(h / 60));
  let rows = 0,
    dark = 0;
  for (let y = r; y < h - r; y++) {
    if (count[y] < 20) continue;
    const around: number[] = [];
    for (let d = -r; d <= r; d++) if (count[y + d] >= 20) around.push(mean[y + d]);
    around.sort((a, b) => a - b);
    rows++;
    const m = around[around.length >> 1];
    if (factor < 1 ? mean[y] < factor * m : mean[y] > factor * m) dark++;
  }
  return rows ? dark / rows : 0;
}
