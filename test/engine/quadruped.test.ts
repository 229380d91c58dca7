/**
 * Four-legged figures (issue 10, item 6): the shared pig drawing, analysed by the real engine, is
 * animated with its body level (not stood up along the performer's spine) while the performer's arms
 * drive its front legs and legs its hind legs. Body tilt is measured on the rendered figure's coverage
 * (transparent frames sampled at 6 frames/s): the turn of the covered pixels' principal axis from the
 * drawing's own axis at rest.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { createEngine, type Rig } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { figurePieces } from '../../src/engine/render/figure-metrics.js';
import { createFrameRenderer } from '../../src/engine/render/render-video.js';
import type { Point } from '../../src/engine/rig/skeleton.js';
import { mediaPath, missingMedia, workDir } from '../helpers/engine-fixtures.js';

const engine = createEngine({ tools: resolveTools(process.env) });
const PIG = 'images/animateddrawings--char6-image.png';
const work = workDir('marionette-quadruped-');

/** Signed angle (degrees, 0 = horizontal) of the principal axis of the pixels with alpha >= 128, and the box. */
function coverageAxis(
  frame: Uint8Array,
  W: number,
  H: number,
  stride = 4,
): { angle: number; width: number; height: number; touchesEdge: boolean } {
  let n = 0,
    sx = 0,
    sy = 0,
    sxx = 0,
    syy = 0,
    sxy = 0;
  let x0 = W,
    x1 = -1,
    y0 = H,
    y1 = -1;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (frame[(y * W + x) * stride + stride - 1] < 128) continue;
      n++;
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  const mx = sx / n,
    my = sy / n;
  const cxx = sxx / n - mx * mx,
    cyy = syy / n - my * my,
    cxy = sxy / n - mx * my;
  const angle = (0.5 * Math.atan2(2 * cxy, cxx - cyy) * 180) / Math.PI;
  return { angle, width: x1 - x0 + 1, height: y1 - y0 + 1, touchesEdge: x0 === 0 || x1 === W - 1 };
}

test('a quadruped drawing keeps its body level while its legs follow the performer', { skip: missingMedia(PIG) }, async () => {
  const c = await engine.analyzeCharacter({ imageFile: mediaPath(PIG), outDir: join(work(), 'pig'), thumbnail: false });
  assert.equal(c.analysis.figure, 'quadruped');
  const rig = (JSON.parse(await readFile(join(c.dir, c.characterFile), 'utf8')) as { rig: Rig }).rig;
  // No leg's region reaches into the body behind its shoulder or hip (issue 10): before, a hind leg took the
  // rump and a column up through the body (0.77 torso lengths deep), which tore away as the leg turned.
  const labels = rig.labels!;
  const lab = Buffer.from(labels.data, 'base64');
  const k = labels.width / rig.textureWidth;
  const J = (i: number): Point => ({ x: rig.joints[i].x * k, y: rig.joints[i].y * k });
  const torso = Math.hypot(J(1).x - J(0).x, J(1).y - J(0).y);
  for (const [code, from, to] of [
    [2, 3, 4],
    [3, 6, 7],
    [4, 9, 10],
    [5, 12, 13],
  ]) {
    const a = J(from),
      e = J(to);
    const len = Math.hypot(e.x - a.x, e.y - a.y);
    let deepest = 0;
    for (let i = 0; i < lab.length; i++) {
      if (lab[i] !== code) continue;
      const x = (i % labels.width) + 0.5,
        y = Math.floor(i / labels.width) + 0.5;
      deepest = Math.max(deepest, -((x - a.x) * (e.x - a.x) + (y - a.y) * (e.y - a.y)) / len);
    }
    assert.ok(deepest <= 0.2 * torso, `leg chain ${code} reaches ${(deepest / torso).toFixed(2)} torso lengths behind its joint`);
  }
  // The head's region is the head, beyond the neck (issue 10): before, the head bone ran from the belly
  // line up to an ear's tip and its region was a diagonal wedge of the body reaching 0.4 of the figure's
  // length behind the neck, so a nod creased the back.
  {
    const neck = rig.joints[1],
      side = Math.sign(neck.x - rig.joints[0].x);
    let lo = Infinity,
      hi = -Infinity,
      behind = 0;
    for (let v = 0; v < rig.vertices.length; v += 2) [lo, hi] = [Math.min(lo, rig.vertices[v]), Math.max(hi, rig.vertices[v])];
    for (let t = 0; t < rig.triangleBones.length; t++) {
      if (rig.triangleBones[t] !== 1) continue;
      for (let q = 0; q < 3; q++) behind = Math.max(behind, side * (neck.x - rig.vertices[rig.triangles[t * 3 + q] * 2]));
    }
    assert.ok(behind <= 0.1 * (hi - lo), `the head's region reaches ${(behind / (hi - lo)).toFixed(2)} of the length behind the neck`);
  }
  // The drawing's own axis at rest (a pig's head and tail need not sit level): tilt is measured from it.
  const tex = await sharp(join(c.dir, c.textureFile)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const rest = coverageAxis(tex.data, tex.info.width, tex.info.height).angle;
  for (const id of ['tpl_jacks', 'tpl_dance']) {
    const m = await engine.writeTemplateMotion(id, join(work(), `m-${id}`));
    const fr = await createFrameRenderer({ rig, textureFile: join(c.dir, c.textureFile), motion: m, background: { mode: 'transparent' } });
    const { width: W, height: H } = fr;
    const frame = new Uint8Array(W * H * 4);
    const step = Math.max(1, Math.round(m.track.fps / 6));
    const tilts: number[] = [];
    let split = 0;
    // Front legs (arm slots: wrists 5 and 8) must move with the performer's arms: their spread over the clip.
    const wrists: Point[][] = [[], []];
    for (let i = 0; i < fr.frameCount; i += step) {
      const joints: Point[] = [];
      fr.draw(i, frame, joints);
      const a = coverageAxis(frame, W, H);
      tilts.push(Math.abs(a.angle - rest));
      if (figurePieces(frame, W, H, { stride: 4, offset: 3 }).pieces > 1) split++;
      assert.ok(a.width > a.height, `${id} frame ${i}: ${a.width}x${a.height}, stood up`);
      assert.ok(!a.touchesEdge, `${id} frame ${i}: the body runs off the frame`);
      wrists[0].push(joints[5]);
      wrists[1].push(joints[8]);
    }
    const worst = Math.max(...tilts);
    console.log(
      `${id}: body tilt max ${worst.toFixed(1)} deg, median ${tilts.sort((p, q) => p - q)[tilts.length >> 1].toFixed(1)} over ${tilts.length} frames; ${split} in pieces`,
    );
    // The axis of the whole figure also turns a little with the legs swinging and the head nodding (up
    // to 3.4 deg measured with the body exactly level); stood up along the performer's spine, ~90.
    assert.ok(worst <= 8, `${id}: body tilted by up to ${worst.toFixed(1)} deg`);
    // Whole (issue 10): a leg's region once took the rump and a column of body above the hip, which tore
    // away as the leg turned (a slit through the rump, a loose wedge); at most 5 % of frames in pieces.
    assert.ok(split <= 0.05 * tilts.length, `${id}: ${split} of ${tilts.length} frames in pieces`);
    const spread = (pts: Point[]): number => Math.max(...pts.map((p) => p.y)) - Math.min(...pts.map((p) => p.y));
    assert.ok(Math.max(spread(wrists[0]), spread(wrists[1])) > 0.02 * H, `${id}: the front legs do not move`);
  }
});
