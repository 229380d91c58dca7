/**
 * A thick drawn arm keeps its shoulder's outline as it swings (issue 10: "limbs keep their drawn shape
 * while they move", "nothing of the character's picture disappears"; rig/drawings.ts, capWeights). char1's
 * sleeves are as wide as its torso is long and their upper edges run on into the shoulders' top. The
 * armpit seam runs from the armpit through the shoulder pivot to the shoulder's top, and the part of the
 * shoulder above the pivot stayed with the torso: lowered, the arm turned its outline out from under it
 * and left the torso's fill there as a grey wedge with a cut edge and no outline (animate-x dance_3,
 * frames 76 and 127).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine, type Rig } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { createFrameRenderer } from '../../src/engine/render/render-video.js';
import { AFFINE } from '../../src/engine/render/retarget.js';
import { BONE_COUNT } from '../../src/engine/rig/skeleton.js';
import { mediaPath, missingMedia, workDir } from '../helpers/engine-fixtures.js';

const engine = createEngine({ tools: resolveTools(process.env) });
const CHAR1 = 'images/animateddrawings--char1-texture.png';
const work = workDir('marionette-shoulder-cap-');

/**
 * Edge pixels of the figure within `R` px of (cx, cy) (a covered pixel with an uncovered 4-neighbour) and
 * how many of them are bare: no covered pixel within `r` px darker than luma `ink` (figure-metrics'
 * bareEdge, kept to a disc round the shoulder so the rest of the figure does not dilute it).
 */
function bareNear(
  rgba: Uint8Array,
  w: number,
  h: number,
  cx: number,
  cy: number,
  R: number,
  r: number,
  ink: number,
): { edge: number; bare: number } {
  const covered = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < w && y < h && rgba[(y * w + x) * 4 + 3] >= 128;
  let edge = 0,
    bare = 0;
  for (let y = Math.max(0, Math.floor(cy - R)); y < Math.min(h, Math.ceil(cy + R)); y++) {
    for (let x = Math.max(0, Math.floor(cx - R)); x < Math.min(w, Math.ceil(cx + R)); x++) {
      if (Math.hypot(x + 0.5 - cx, y + 0.5 - cy) > R || !covered(x, y)) continue;
      if (covered(x - 1, y) && covered(x + 1, y) && covered(x, y - 1) && covered(x, y + 1)) continue;
      edge++;
      let dark = false;
      for (let dy = -r; dy <= r && !dark; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          if (dx * dx + dy * dy > r * r || !covered(x + dx, y + dy)) continue;
          const p = ((y + dy) * w + x + dx) * 4;
          if ((0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2]) * (255 / rgba[p + 3]) < ink) {
            dark = true;
            break;
          }
        }
      }
      if (!dark) bare++;
    }
  }
  return { edge, bare };
}

test('char1: a thick arm lowered about its shoulder takes the shoulder outline with it', { skip: missingMedia(CHAR1) }, async () => {
  const c = await engine.analyzeCharacter({ imageFile: mediaPath(CHAR1), outDir: join(work(), 'char1'), thumbnail: false });
  assert.equal(c.analysis.poseMethod, 'skeleton');
  const rig = (JSON.parse(await readFile(join(c.dir, c.characterFile), 'utf8')) as { rig: Rig }).rig;
  const motion = await engine.writeTemplateMotion('tpl_dance', join(work(), 'motion'));
  const W = 1024,
    H = 1024;
  const fr = await createFrameRenderer({
    rig,
    textureFile: join(c.dir, c.textureFile),
    motion,
    output: { width: W, height: H },
    background: { mode: 'transparent' },
  });
  const k = fr.retarget.scale;
  const ox = W / 2 - (k * rig.textureWidth) / 2,
    oy = H / 2 - (k * rig.textureHeight) / 2;
  const J = rig.joints;
  const torso = Math.hypot(J[1].x - J[0].x, J[1].y - J[0].y);
  // The torso still, one arm (upper arm and forearm) turned by `turn` radians about its shoulder.
  let arm = 2,
    turn = 0;
  fr.retarget.pose = (_i, out) => {
    const p = J[rig.bones[arm].from];
    for (let b = 0; b < BONE_COUNT; b++) {
      const t = b === arm || b === arm + 1 ? turn : 0;
      const cs = Math.cos(t),
        sn = Math.sin(t);
      const e = p.x - cs * p.x + sn * p.y,
        f = p.y - sn * p.x - cs * p.y;
      out.set([k * cs, k * sn, -k * sn, k * cs, k * e + ox, k * f + oy], b * AFFINE);
    }
  };
  const frame = new Uint8Array(W * H * 4);
  let edge = 0,
    bare = 0,
    raisedBare = 0;
  for (const b of [2, 4]) {
    const s = J[rig.bones[b].from],
      wr = J[rig.bones[b + 1].to];
    // Positive turns lower an arm held out to the side (its hand swings down), negative ones raise it.
    const down = Math.sign(wr.x - s.x) || 1;
    for (const deg of [30, 60, 90, -30, -60]) {
      arm = b;
      turn = (down * deg * Math.PI) / 180;
      fr.draw(0, frame);
      const n = bareNear(frame, W, H, k * s.x + ox, k * s.y + oy, 0.6 * torso * k - 3, Math.round(0.01 * H), 110);
      if (deg > 0) {
        edge += n.edge;
        bare += n.bare;
      } else raisedBare += n.bare;
    }
  }
  // Lowered 30-90 degrees: 718 of 1,860 edge pixels round the shoulders were bare fill before (the
  // torso's wedge), none now. Raised, the arm covers the seam: none before or after.
  assert.ok(bare <= 0.05 * Math.max(edge, 1), `lowered: ${bare} of ${edge} edge pixels near the shoulders bare`);
  assert.equal(raisedBare, 0, `raised: ${raisedBare} edge pixels near the shoulders bare`);
});
