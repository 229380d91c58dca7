/**
 * POST /v1/videos from creation to `ready`, with the real engine and in-process workers (SQLite), as
 * `npm start` runs it: a 5 s 768p H3 clip, a 5 s 1080p one, and a character-animation video of a
 * shared dance. Reports each time and the process's peak RSS; writes docs/benchmarks.md's section.
 *
 *   npm run bench -- videos [--seconds 5] [--runs 1] [--sheets DIR]
 *
 * With --sheets, every output is kept in DIR with a contact sheet (8 frames) and a waveform PNG of its
 * soundtrack, for looking at and listening to, plus five more prompts of different kinds.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createServer } from 'node:net';
import { loadConfig } from '../src/config/config.js';
import { createAccount } from '../src/domain/accounts/accounts.service.js';
import { resolveTools } from '../src/engine/media/ffmpeg.js';
import { startWorkers } from '../src/main/workers.js';
import { buildHttpApp, wire } from '../src/main/wire.js';
import { machineLine, writeSection } from './_report.js';

const run = promisify(execFile);
const MEDIA = resolve(import.meta.dirname, '../../shared/media');

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

/** Prompts of different kinds for --sheets: what a reviewer should look at and listen to. */
const SHEET_PROMPTS: Array<{ name: string; body: Record<string, unknown> }> = [
  {
    name: 'beach-dialogue',
    body: {
      prompt: 'A puppet walks along the beach and waves, saying "Hello everyone, welcome to the seaside!" The camera zooms in.',
      resolution: '480p',
      duration_s: 5,
      seed: 1,
    },
  },
  {
    name: 'night-dance',
    body: {
      prompt: 'An energetic dance on a stage at night under a purple spotlight, the camera pans right',
      resolution: '480p',
      duration_s: 5,
      seed: 2,
      aspect_ratio: '9:16',
    },
  },
  {
    name: 'snow-calm',
    body: {
      prompt: 'A calm figure stands in the snow, then bows slowly; soft white and blue',
      resolution: '480p',
      duration_s: 4,
      seed: 3,
      aspect_ratio: '1:1',
    },
  },
  {
    name: 'city-run-jump',
    body: {
      prompt: 'Someone runs down a city street, jumps and kicks; dramatic, the camera dollies out',
      resolution: '480p',
      duration_s: 6,
      seed: 4,
    },
  },
  {
    name: 'forest-tags',
    body: {
      prompt: 'a little scene',
      target_tags: ['forest', 'clap', 'spin', 'cheerful', 'green'],
      resolution: '480p',
      duration_s: 5,
      seed: 5,
      enhance_mode: 'prompt',
    },
  },
];

export async function run_(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { seconds: { type: 'string', default: '5' }, runs: { type: 'string', default: '1' }, sheets: { type: 'string' } },
  });
  const seconds = Number(values.seconds);
  const loadAtStart = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'marionette-bench-videos-'));
  const tools = resolveTools(process.env);
  const sheets = values.sheets ? resolve(values.sheets) : null;
  if (sheets) await mkdir(sheets, { recursive: true });
  const driving = join(dir, 'dance.mp4');
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    join(MEDIA, 'videos/animate-x--dance_1.mp4'),
    '-t',
    String(seconds),
    '-c',
    'copy',
    driving,
  ]);
  const image = join(MEDIA, 'images/mimicmotion--demo1.jpg');

  const port = await freePort();
  const config = loadConfig({
    MARIONETTE_DATA_DIR: join(dir, 'data'),
    MARIONETTE_PORT: String(port),
    MARIONETTE_HOST: '127.0.0.1',
    MARIONETTE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    MARIONETTE_LOG_LEVEL: 'silent',
    MARIONETTE_RATE_LIMITS: 'false',
    MARIONETTE_JOB_POLL_MS: '50',
  });
  const wired = await wire(config);
  const app = await buildHttpApp(wired.deps, { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  await startWorkers(wired.deps);
  const acct = await createAccount(wired.deps.db, { name: 'bench', credits: 10_000 });
  const auth = { authorization: `Bearer ${acct.apiKey}` };
  const base = `http://127.0.0.1:${port}`;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

  async function timeToReady(body: Record<string, unknown> | FormData, keepAs?: string): Promise<{ ms: number; status: string }> {
    const t0 = Date.now();
    const res =
      body instanceof FormData
        ? await fetch(`${base}/v1/videos`, { method: 'POST', headers: auth, body })
        : await fetch(`${base}/v1/videos`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
    const created = (await res.json()) as { id: string; error?: unknown };
    if (!created.id) throw new Error(`POST /v1/videos answered ${res.status}: ${JSON.stringify(created)}`);
    let v: { status: string; video_url: string | null; error: unknown };
    for (;;) {
      v = (await (await fetch(`${base}/v1/videos/${created.id}`, { headers: auth })).json()) as typeof v;
      if (['ready', 'failed', 'cancelled'].includes(v.status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const ms = Date.now() - t0;
    if (v.status !== 'ready') throw new Error(`${created.id} ${v.status}: ${JSON.stringify(v.error)}`);
    if (sheets && keepAs) await keep(v.video_url!, keepAs);
    return { ms, status: v.status };
  }

  async function keep(url: string, name: string): Promise<void> {
    const file = join(sheets!, `${name}.mp4`);
    await writeFile(file, Buffer.from(await (await fetch(url)).arrayBuffer()));
    const { stdout } = await run(tools.ffprobe, [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=nb_read_frames',
      '-of',
      'csv=p=0',
      file,
    ]);
    const every = Math.max(1, Math.floor(Number(stdout.trim()) / 8));
    await run(tools.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-i',
      file,
      '-vf',
      `select=not(mod(n\\,${every})),scale=320:-2,tile=4x2:padding=4`,
      '-frames:v',
      '1',
      join(sheets!, `${name}-sheet.png`),
    ]);
    await run(tools.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-i',
      file,
      '-filter_complex',
      'showwavespic=s=1200x240:split_channels=1',
      '-frames:v',
      '1',
      join(sheets!, `${name}-wave.png`),
    ]);
  }

  const lines: string[] = [];
  try {
    // Warm the models once (a worker that has run before), as a serving process is.
    await timeToReady({ prompt: 'warm up: a figure waves', resolution: '480p', duration_s: 3, seed: 0 });
    for (let i = 0; i < Number(values.runs); i++) {
      const h768 = await timeToReady(
        {
          prompt: 'A puppet walks along the beach and waves, saying "Hello there!"',
          resolution: '768p',
          duration_s: seconds,
          seed: 42 + i,
        },
        i === 0 ? 'h3-768p' : undefined,
      );
      const h1080 = await timeToReady(
        { prompt: 'A dancer spins on a stage at night, the camera zooms in', resolution: '1080p', duration_s: seconds, seed: 42 + i },
        i === 0 ? 'h3-1080p' : undefined,
      );
      const fd = new FormData();
      fd.append('character_image', new Blob([await readFile(image)], { type: 'image/jpeg' }), 'demo1.jpg');
      fd.append('driving_video', new Blob([await readFile(driving)], { type: 'video/mp4' }), 'dance.mp4');
      const anim = await timeToReady(fd, i === 0 ? 'anim-dance1' : undefined);
      lines.push(
        `- run ${i + 1}: **${seconds} s 768p H3: ${(h768.ms / 1000).toFixed(1)} s** from POST to ready; ${seconds} s 1080p H3: ${(h1080.ms / 1000).toFixed(1)} s; ` +
          `character animation (mimicmotion--demo1 on the first ${seconds} s of animate-x--dance_1, upload included): ${(anim.ms / 1000).toFixed(1)} s.`,
      );
    }
    if (sheets) for (const p of SHEET_PROMPTS) await timeToReady(p.body, p.name);
  } finally {
    clearInterval(sampler);
    await app.close();
    await wired.close();
    await rm(dir, { recursive: true, force: true });
  }
  const md = [
    '## Videos (POST /v1/videos)',
    '',
    `\`npm run bench -- videos --seconds ${seconds} --runs ${values.runs}\` (${machineLine()}; API and workers in one process on SQLite, models warm; ` +
      `${cpus().length} CPUs, 1-min load average ${loadAtStart.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end, so times are upper bounds when it is above 1). Target: a 5 s 768p clip in <= 10 s.`,
    '',
    ...lines,
    `- peak RSS of the process: **${Math.round(peakRss / 1048576)} MB**.`,
  ].join('\n');
  writeSection('videos', md);
  process.stdout.write(md + '\n');
}

export { run_ as run };
