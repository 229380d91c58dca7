/**
 * Child process of the engine benchmark: renders the default character on a template looped to
 * `seconds` and prints its own peak RSS (VmHWM) as JSON. Run in a fresh process so the peak belongs
 * to this render alone.
 *
 *   tsx bench/_engine-memory.ts <workDir> <seconds>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../src/engine/index.js';
import { resolveTools } from '../src/engine/media/ffmpeg.js';

const [work, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const engine = createEngine({ tools: resolveTools(process.env) });
const character = await engine.loadCharacter(join(work, 'character'));
const base = await engine.writeTemplateMotion('tpl_dance', join(work, `motion-${seconds}`));
const n = Math.round(seconds * base.track.fps);
const frames = Array.from({ length: n }, (_, i) => ({
  ...base.track.frames[i % base.track.frames.length],
  timeMs: Math.round((i * 1000) / base.track.fps),
}));
const motion = { ...base, track: { ...base.track, frames, frameCount: n, durationMs: Math.round((n * 1000) / base.track.fps) } };
const t = performance.now();
const r = await engine.render({ character, motion, background: { mode: 'transparent' }, outDir: join(work, `render-${seconds}`) });
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
console.log(
  JSON.stringify({
    seconds,
    frames: r.frameCount,
    elapsedMs: Math.round(performance.now() - t),
    peakRssMb: hwm ? Number(hwm[1]) / 1024 : process.resourceUsage().maxRSS / 1024,
  }),
);
