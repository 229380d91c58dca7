/**
 * A drawn arm raised against the head stays joined to the body (issue 10): generated dress seed 29
 * raises one arm beside its head, and the arm's region meets the head and the dress's shoulder along
 * one long seam (rig/build-rig.ts armRoots). Frames are painted in process by the renderer's frame
 * painter, sampled at 6 frames/s like the bench.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine, type CharacterAssets, type MotionAssets, type Rig } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { figurePieces } from '../../src/engine/render/figure-metrics.js';
import { createFrameRenderer } from '../../src/engine/render/render-video.js';
import { makeSynthDrawing } from '../../bench/_drawing-synth.js';
import { workDir } from '../helpers/engine-fixtures.js';

const engine = createEngine({ tools: resolveTools(process.env) });
const work = workDir('marionette-raised-arm-');

/** Frames in two or more pieces, of the frames sampled at 6 frames/s. */
async function split(c: CharacterAssets, m: MotionAssets): Promise<{ split: number; sampled: number }> {
  const rig = (JSON.parse(await readFile(join(c.dir, c.characterFile), 'utf8')) as { rig: Rig }).rig;
  const fr = await createFrameRenderer({ rig, textureFile: join(c.dir, c.textureFile), motion: m, background: { mode: 'transparent' } });
  const step = Math.max(1, Math.round(m.track.fps / 6));
  const frame = new Uint8Array(fr.width * fr.height * 4);
  let n = 0,
    sampled = 0;
  for (let i = 0; i < fr.frameCount; i++) {
    fr.draw(i, frame, []);
    if (i % step) continue;
    sampled++;
    if (figurePieces(frame, fr.width, fr.height, { stride: 4, offset: 3 }).pieces > 1) n++;
  }
  return { split: n, sampled };
}

test("a dress's arm raised against its head stays joined as it comes down (tpl_dance, tpl_jacks)", async () => {
  // Before: seed 29's raised arm opened like a hinge along its root seam, tpl_dance 9 of 36 frames in
  // pieces, tpl_jacks 8 of 24.
  const file = join(work(), 'dress-29.png');
  const d = await makeSynthDrawing(29, file);
  const c = await engine.analyzeCharacter({ imageFile: file, outDir: join(work(), 'c-29'), thumbnail: false });
  for (const name of ['tpl_dance', 'tpl_jacks'] as const) {
    const m = await engine.writeTemplateMotion(name, join(work(), `m-${name}`));
    const r = await split(c, m);
    assert.ok(r.split / r.sampled <= 0.05, `seed 29 (${d.label}) on ${name}: in pieces on ${r.split}/${r.sampled} frames`);
  }
});
