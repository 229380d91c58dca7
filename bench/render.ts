/**
 * Time from render creation to `ready` for a real clip with the real engine, in one `npm start`-like
 * process (API + in-process workers, SQLite): POST /v1/renders with a picture and a driving video
 * trimmed to `--seconds`, then the event stream until the terminal event.
 *
 *   npm run bench -- render [--seconds 5] [--width 512] [--runs 3] [--no-warmup]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import { createAccount } from '../src/domain/accounts/accounts.service.js';
import { resolveTools } from '../src/engine/media/ffmpeg.js';
import { startWorkers } from '../src/main/workers.js';
import { lastExtractionStats } from '../src/engine/motion/extract-motion.js';
import { buildHttpApp, wire } from '../src/main/wire.js';
import { cpus, loadavg } from 'node:os';
import { machineLine, writeSection } from './_report.js';
import { freePort } from './_net.js';

/** The machine is shared (other builds and tests run on it): say how busy it was. */
function loadNote(atStart: number): string {
  return `${cpus().length} CPUs, 1-min load average ${atStart.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end; the CPU was shared with other work, so times are upper bounds`;
}

const run = promisify(execFile);
const MEDIA = resolve(import.meta.dirname, '../../shared/media');

export async function run_(argv: string[]): Promise<void> {
  const loadAtStart = loadavg()[0];
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '5' },
      width: { type: 'string', default: '512' },
      runs: { type: 'string', default: '3' },
      'no-warmup': { type: 'boolean', default: false },
    },
  });
  const seconds = Number(values.seconds);
  const dir = await mkdtemp(join(tmpdir(), 'marionette-bench-render-'));
  const tools = resolveTools(process.env);
  const video = join(dir, 'driving.mp4');
  const image = join(dir, 'character.jpg');
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    join(MEDIA, 'videos/animate-x--dance_1.mp4'),
    '-t',
    String(seconds),
    '-vf',
    `scale=${values.width}:-2`,
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    video,
  ]);
  await run(tools.ffmpeg, ['-v', 'error', '-y', '-i', join(MEDIA, 'images/mimicmotion--demo1.jpg'), '-vf', 'scale=540:-2', image]);
  const port = await freePort();
  const config = loadConfig({
    MARIONETTE_DATA_DIR: join(dir, 'data'),
    MARIONETTE_PORT: String(port),
    MARIONETTE_HOST: '127.0.0.1',
    MARIONETTE_LOG_LEVEL: 'silent',
    MARIONETTE_RATE_LIMITS: 'false',
    MARIONETTE_JOB_POLL_MS: '100',
  });
  const wired = await wire(config);
  const app = await buildHttpApp(wired.deps, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  await startWorkers(wired.deps);
  const acct = await createAccount(wired.deps.db, { name: 'bench', credits: 1000 });
  const auth = { authorization: `Bearer ${acct.apiKey}` };
  const lines: string[] = [];
  const totals: number[] = [];
  /** One render from POST to its terminal event; null when the POST was refused. */
  const once = async (label: string) => {
    const fd = new FormData();
    fd.append('image', new Blob([await readFile(image)], { type: 'image/jpeg' }), 'c.jpg');
    fd.append('motion_video', new Blob([await readFile(video)], { type: 'video/mp4' }), 'm.mp4');
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    const res = await fetch(`http://127.0.0.1:${port}/v1/renders`, { method: 'POST', headers: auth, body: fd });
    const body = (await res.json()) as { id?: string };
    if (!res.ok || !body.id) throw new Error(`POST /v1/renders answered ${res.status}: ${JSON.stringify(body)}`);
    const id = body.id;
    const tCreated = Date.now();
    const stream = await fetch(`http://127.0.0.1:${port}/v1/renders/${id}/events`, { headers: auth });
    const stages: Record<string, number> = {};
    let last = '';
    let text = '';
    for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
      text += Buffer.from(chunk).toString('utf8');
      for (const m of text.matchAll(/event: (\w+)\ndata: (.+)\n/g)) {
        const d = JSON.parse(m[2]);
        last = m[1];
        if (d.stage && !(d.stage in stages)) stages[d.stage] = Date.now() - t0;
      }
    }
    const total = Date.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const row = await wired.deps.db.selectFrom('videos').select(['duration_ms', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    const stats = lastExtractionStats();
    lines.push(
      `- ${label}: ${seconds} s clip (${values.width} px wide), POST answered in ${tCreated - t0} ms; **${(total / 1000).toFixed(1)} s from POST to \`${last}\`** ` +
        `(stage first seen at: ${Object.entries(stages)
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
          .join(', ')}); output ${Number(row.duration_ms) / 1000} s; ` +
        `pose detector on ${stats ? `${stats.detected} of ${stats.frames} frames (${stats.interpolated} interpolated)` : '?'}; ` +
        (stats
          ? `extraction (from its start): frames posed ${(stats.timings.posedMs / 1000).toFixed(1)} s, plate (${stats.plateSamples} segmented samples) ${(stats.timings.plateMs / 1000).toFixed(1)} s, done ${(stats.timings.doneMs / 1000).toFixed(1)} s; `
          : '') +
        `CPU of this process (API + workers, ffmpeg not counted) ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; load ${loadavg()[0].toFixed(2)}.`,
    );
    return total;
  };
  try {
    // "A warm worker": the first job after start also pays for compiling the models' kernels and
    // the first ffmpeg spawns; one render of the same inputs goes first and is reported apart.
    if (!values['no-warmup']) await once('warm-up (not counted)');
    for (let i = 0; i < Number(values.runs); i++) totals.push(await once(`run ${i + 1}`));
  } finally {
    await app.close();
    await wired.close();
    await rm(dir, { recursive: true, force: true });
  }
  const sorted = [...totals].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  lines.push(
    `- **median ${(median / 1000).toFixed(1)} s, best ${(sorted[0] / 1000).toFixed(1)} s** over ${totals.length} runs (target <= 4 s on an otherwise idle machine).`,
  );
  const md = [
    `## Render time (creation to ready)`,
    '',
    `\`npm run bench -- render --seconds ${seconds} --width ${values.width}\` (SQLite, 1 worker, ${machineLine()}; ${loadNote(loadAtStart)})`,
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(md + '\n');
  writeSection('render', md);
}

export { run_ as run };
