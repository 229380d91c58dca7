/**
 * Limbs keep their drawn shape (issue 10): an upper limb's skin region is the limb as drawn, not a wedge
 * of a wide body next to its shoulder or hip. Before, on a body much wider than its shoulder–hip span
 * (char3, a candy-corn with thin arms and legs), the upper arms took a wedge of each side of the body
 * and the thighs its lower corners, and the dances tore the body into slices.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine, type Rig } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { distanceToOutside } from '../../src/engine/rig/mask.js';
import { BONES, BONE_COUNT, type Point } from '../../src/engine/rig/skeleton.js';
import { regionField } from '../../src/engine/rig/weights.js';
import { discBodyFigure, mediaPath, missingMedia, workDir } from '../helpers/engine-fixtures.js';

const engine = createEngine({ tools: resolveTools(process.env) });
const CHAR3 = 'images/animateddrawings--char3-texture.png';
const work = workDir('marionette-limbs-');

/** Distance from (x, y) to the segment a–e. */
function segmentDistance(x: number, y: number, a: Point, e: Point): number {
  const vx = e.x - a.x,
    vy = e.y - a.y;
  const t = Math.max(0, Math.min(1, ((x - a.x) * vx + (y - a.y) * vy) / (vx * vx + vy * vy || 1)));
  return Math.hypot(x - a.x - t * vx, y - a.y - t * vy);
}

test('a thin limb joining a round body wider than its shoulders claims only its own width', () => {
  // A disc body (radius 50) with shoulders and hips well inside it, thin arms (9 px) out to the sides,
  // thin legs down from its bottom.
  const m = discBodyFigure();
  const { w, h, data } = m;
  const P = (x: number, y: number): Point => ({ x, y });
  // RIG_JOINTS order: root, neck, head, left arm, right arm, left leg, right leg.
  const joints = [P(100, 130), P(100, 75), P(100, 45), P(75, 75), P(35, 75), P(12, 75), P(125, 75), P(165, 75), P(188, 75)];
  joints.push(P(80, 130), P(80, 168), P(80, 192), P(120, 130), P(120, 168), P(120, 192));
  const torso = 55;
  const f = regionField(m, distanceToOutside(m), joints);
  for (const b of [2, 4, 6, 8]) {
    const a = joints[BONES[b].from],
      e = joints[BONES[b].to];
    let far = 0,
      n = 0;
    for (let i = 0; i < w * h; i++) {
      if (!data[i]) continue;
      let win = 0;
      for (let c = 1; c < BONE_COUNT; c++) if (f.scores[c][i] < f.scores[win][i]) win = c;
      if (win !== b) continue;
      n++;
      far = Math.max(far, segmentDistance((i % w) + 0.5, Math.floor(i / w) + 0.5, a, e));
    }
    assert.ok(n > 100, `${BONES[b].name} keeps its limb (${n} px)`);
    // Before: 23-35 px (wedges of the disc); the limb itself is 4.5 px from its bone.
    assert.ok(far <= 0.3 * torso, `${BONES[b].name} reaches ${far.toFixed(1)} px from its bone`);
  }
});

test('char3: the upper arms and thighs do not take wedges of the body', { skip: missingMedia(CHAR3) }, async () => {
  const c = await engine.analyzeCharacter({ imageFile: mediaPath(CHAR3), outDir: join(work(), 'char3'), thumbnail: false });
  const rig = (JSON.parse(await readFile(join(c.dir, c.characterFile), 'utf8')) as { rig: Rig }).rig;
  const labels = rig.labels!;
  const lab = Buffer.from(labels.data, 'base64');
  const k = labels.width / rig.textureWidth;
  const J = (i: number): Point => ({ x: rig.joints[i].x * k, y: rig.joints[i].y * k });
  const torso = Math.hypot(J(1).x - J(0).x, J(1).y - J(0).y);
  // Chain code, then shoulder/hip, elbow/knee, wrist/ankle. Pixels nearer the forearm or shin (hands and
  // feet included) are the lower bone's and not measured.
  for (const [code, s, el, wr] of [
    [2, 3, 4, 5],
    [3, 6, 7, 8],
    [4, 9, 10, 11],
    [5, 12, 13, 14],
  ]) {
    let far = 0;
    for (let i = 0; i < lab.length; i++) {
      if (lab[i] !== code) continue;
      const x = (i % labels.width) + 0.5,
        y = Math.floor(i / labels.width) + 0.5;
      const du = segmentDistance(x, y, J(s), J(el));
      if (du <= segmentDistance(x, y, J(el), J(wr))) far = Math.max(far, du);
    }
    // Before: 0.80-1.06 torso lengths (a wedge of the body's side down to the hip, the body's lower
    // corners); after 0.31-0.46.
    assert.ok(far <= 0.55 * torso, `limb chain ${code} reaches ${(far / torso).toFixed(2)} torso lengths from its upper bone`);
  }
});
