/**
 * A drawn arm raised against the head stays joined to the body (issue 10): generated dress seed 29
 * raises one arm beside its head, and the arm's region meets the head and the dress's shoulder along
 * one long seam (rig/build-rig.ts armRoots). Frames are painted in process by the renderer's frame
 * painter, sampled at 6 frames/s like the bench.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../src/engine/index.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { makeSynthDrawing } from '../../bench/_drawing-synth.js';
import { workDir } from '../helpers/engine-fixtures.js';
import { framesSplit } from '../helpers/engine-render.js';

const engine = createEngine({ tools: resolveTools(process.env) });
const work = workDir('marionette-raised-arm-');

test("a dress's arm raised against its head stays joined as it comes down (tpl_dance, tpl_jacks)", async () => {
  // Before: seed 29's raised arm opened like a hinge along its root seam, tpl_dance 9 of 36 frames in
  // pieces, tpl_jacks 8 of 24.
  const file = join(work(), 'dress-29.png');
  const d = await makeSynthDrawing(29, file);
  const c = await engine.analyzeCharacter({ imageFile: file, outDir: join(work(), 'c-29'), thumbnail: false });
  for (const name of ['tpl_dance', 'tpl_jacks'] as const) {
    const m = await engine.writeTemplateMotion(name, join(work(), `m-${name}`));
    const r = await framesSplit(c, m);
    assert.ok(r.split / r.sampled <= 0.05, `seed 29 (${d.label}) on ${name}: in pieces on ${r.split}/${r.sampled} frames`);
  }
});
