/**
 * Large-media ingestion: a 150 MiB driving video goes through POST /v1/renders/prepare, the signed
 * PUT and POST /v1/renders {draft_id} against a real server process (SQLite, workers off), while
 * the server's resident memory is sampled from /proc/<pid>/status every 20 ms; the kernel's own
 * high-water mark (VmHWM) is read at the end as the authoritative peak. Target: peak RSS < 300 MB.
 *
 *   npm run bench -- ingest [--mib 150] [--keep]
 *
 * The video is synthetic (noise over a test pattern, 25 Mbit/s H.264): a 4 s clip is encoded once
 * and concatenated without re-encoding up to the size, so it is a real MP4 the service probes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { resolveTools } from '../src/engine/media/ffmpeg.js';
import { machineLine, writeSection } from './_report.js';

const ROOT = resolve(import.meta.dirname, '..');
const MB = 1024 * 1024;

function exec(cmd: string, args: string[]): Promise<void> {
  return new Promise((ok, fail) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? ok() : fail(new Error(`${cmd} exited ${code}: ${err.slice(-2000)}`))));
  });
}

async function makeVideo(dir: string, bytes: number): Promise<string> {
  const { ffmpeg } = resolveTools({});
  const clip = join(dir, 'clip.mp4');
  await exec(ffmpeg, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=s=1280x720:r=30,noise=alls=60:allf=t',
    '-t',
    '4',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-b:v',
    '25M',
    '-maxrate',
    '25M',
    '-bufsize',
    '50M',
    '-pix_fmt',
    'yuv420p',
    clip,
  ]);
  const copies = Math.ceil(bytes / (await stat(clip)).size) + 1;
  const list = join(dir, 'list.txt');
  await writeFile(list, Array.from({ length: copies }, () => `file '${clip}'`).join('\n'));
  const out = join(dir, 'driving.mp4');
  await exec(ffmpeg, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-c',
    'copy',
    '-fs',
    String(bytes),
    out,
  ]);
  await rm(clip);
  return out;
}

/** A small character picture made locally too, so the bench never names a URL outside the machine. */
async function makeImage(dir: string): Promise<string> {
  const out = join(dir, 'character.png');
  await exec(resolveTools({}).ffmpeg, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=s=512x768',
    '-frames:v',
    '1',
    out,
  ]);
  return out;
}

function rssOf(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`server did not come up at ${url}`);
}

function put(url: string, headers: Record<string, string>, file: string, size: number): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = request(url, { method: 'PUT', headers: { ...headers, 'content-length': String(size) } });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    createReadStream(file).pipe(req);
  });
}

export async function run(args: string[]): Promise<void> {
  if (!existsSync('/proc/self/status')) throw new Error('bench ingest reads /proc/<pid>/status (Linux only)');
  const { values } = parseArgs({ args, options: { mib: { type: 'string', default: '150' }, keep: { type: 'boolean', default: false } } });
  const bytes = Math.round(Number(values.mib) * MB);
  const dir = await mkdtemp(join(tmpdir(), 'marionette-ingest-'));
  let server: ChildProcess | undefined;
  try {
    process.stdout.write(`generating a ${values.mib} MiB driving video in ${dir} ...\n`);
    const video = await makeVideo(dir, bytes);
    const image = await makeImage(dir);
    const imageSize = (await stat(image)).size;
    const size = (await stat(video)).size;
    const hash = createHash('sha256');
    await pipeline(createReadStream(video), hash);
    const sha256 = hash.digest('hex');

    const port = 18000 + Math.floor(Math.random() * 1000);
    const base = `http://127.0.0.1:${port}`;
    const env = {
      MARIONETTE_DATA_DIR: join(dir, 'data'),
      MARIONETTE_HOST: '127.0.0.1',
      MARIONETTE_PORT: String(port),
      MARIONETTE_PUBLIC_URL: base,
      MARIONETTE_WORKERS: 'false',
      MARIONETTE_RATE_LIMITS: 'false',
      MARIONETTE_LOG_LEVEL: 'warn',
    };
    server = spawn(process.execPath, ['--import', 'tsx', 'src/main/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const pid = server.pid!;
    await waitFor(`${base}/v1/credits`);
    const apiKey = (await readFile(join(dir, 'data', 'demo-api-key'), 'utf8')).trim();
    const auth = { authorization: `Bearer ${apiKey}` };

    let peakSampled = 0;
    const sampler = setInterval(() => (peakSampled = Math.max(peakSampled, rssOf(pid).rss)), 20);
    const steps: { step: string; ms: number; rssAfter: number; status: number }[] = [];
    const idle = rssOf(pid).rss;
    const loadAtStart = loadavg()[0];
    const timed = async <T extends { status: number }>(step: string, f: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const r = await f();
      steps.push({ step, ms: Math.round(performance.now() - t0), rssAfter: rssOf(pid).rss, status: r.status });
      return r;
    };

    const prep = await timed('POST /v1/renders/prepare', () =>
      fetch(`${base}/v1/renders/prepare`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          image: { content_type: 'image/png', size_bytes: imageSize },
          motion_video: { content_type: 'video/mp4', size_bytes: size, sha256 },
        }),
      }),
    );
    const plan = (await prep.json()) as { draft_id: string; uploads: { field: string; url: string; headers: Record<string, string> }[] };
    if (prep.status !== 200) throw new Error(`prepare: ${prep.status} ${JSON.stringify(plan)}`);
    const target = (field: string) => plan.uploads.find((u) => u.field === field)!;
    const upImage = await put(target('image').url, target('image').headers, image, imageSize);
    if (upImage.status !== 200) throw new Error(`PUT image: ${upImage.status} ${upImage.body}`);
    const up = await timed(`PUT ${(size / MB).toFixed(1)} MiB video`, () =>
      put(target('motion_video').url, target('motion_video').headers, video, size),
    );
    if (up.status !== 200) throw new Error(`PUT: ${up.status} ${up.body}`);
    const created = await timed('POST /v1/renders {draft_id}', () =>
      fetch(`${base}/v1/renders`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': plan.draft_id },
        body: JSON.stringify({ draft_id: plan.draft_id }),
      }),
    );
    const render = (await created.json()) as { id?: string; error?: unknown };
    if (created.status !== 202) throw new Error(`draft render: ${created.status} ${JSON.stringify(render)}`);
    clearInterval(sampler);
    const { hwm } = rssOf(pid);

    const mb = (n: number) => (n / 1e6).toFixed(1);
    const verdict = hwm < 300e6 ? 'PASS' : 'FAIL';
    const md = [
      `## Ingest: ${(size / MB).toFixed(0)} MiB driving video through prepare → PUT → draft render`,
      '',
      `\`npm run bench -- ingest\` (${machineLine()}; ${cpus().length} CPUs, 1-min load average ${loadAtStart.toFixed(2)} at start and ${loadavg()[0].toFixed(2)} at the end, shared with other work, so times are upper bounds). Server: \`src/main/server.ts\` as its own process, SQLite, workers off.`,
      `Video: ${size} bytes (${(size / MB).toFixed(1)} MiB) synthetic H.264 MP4, sha256 declared. Memory from \`/proc/<pid>/status\`:`,
      "VmRSS sampled every 20 ms, and VmHWM (the kernel's peak resident set since the process started) read at the end.",
      '',
      '| step | HTTP | time (ms) | server RSS after (MB) |',
      '|---|---|---|---|',
      ...steps.map((s) => `| ${s.step} | ${s.status} | ${s.ms} | ${mb(s.rssAfter)} |`),
      '',
      `Server RSS idle before the upload: ${mb(idle)} MB; highest sample: ${mb(peakSampled)} MB; **peak (VmHWM): ${mb(hwm)} MB** — target < 300 MB: ${verdict}.`,
      `Render ${render.id} was accepted (202).`,
    ].join('\n');
    process.stdout.write(`\n${md}\n`);
    writeSection('ingest', md);
    if (verdict === 'FAIL') process.exitCode = 1;
  } finally {
    server?.kill('SIGTERM');
    if (!values.keep) await rm(dir, { recursive: true, force: true });
    else process.stdout.write(`kept ${dir}\n`);
  }
}
