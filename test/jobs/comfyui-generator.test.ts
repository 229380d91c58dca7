import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { comfyUiGenerator, ComfyUiError } from '../../src/infra/generators/comfyui.js';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';
import { writeSoundtrack } from '../../src/engine/generate/generate.js';
import type { GenerationRequest } from '../../src/domain/ports/video-generator.js';
import { serveHttp, startService, type HttpOrigin, type TestService } from '../helpers/harness.js';
import { ledgerOf } from '../helpers/render-fixture.js';

/**
 * The ComfyUI generator adapter against a loopback server that speaks ComfyUI's HTTP API as its
 * documentation and server code describe it: `POST /upload/image` (multipart field `image`, answers
 * `{name, subfolder, type}`), `POST /prompt` (`{prompt, client_id}` → `{prompt_id, number,
 * node_errors}`), `GET /history/{id}` (`{}` while queued or running, then `{[id]: {outputs, status}}`),
 * `GET /view?filename&subfolder&type` (the file), `POST /interrupt` and `POST /queue` (`{delete: [id]}`).
 * The "GPU" here is ffmpeg: the server's output clip has another size, rate and length than asked,
 * and no audio, so the adapter's normalisation is what the assertions read.
 */
const run = promisify(execFile);
const tools = resolveTools(process.env);
const WORKFLOWS = resolve(import.meta.dirname, '../../workflows/comfyui');

interface FakeComfy {
  url: string;
  server: HttpOrigin;
  prompts: Array<{ prompt: Record<string, { class_type: string; inputs: Record<string, unknown> }>; client_id: string }>;
  uploads: string[];
  interrupts: number;
  deleted: string[];
  /** What /history answers once a prompt is done: 'success' (default), 'error' or 'never'. */
  outcome: 'success' | 'error' | 'never';
  /** Polls of /history before a prompt counts as done. */
  pollsBeforeDone: number;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((res, rej) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res(Buffer.concat(chunks)));
    req.on('error', rej);
  });
}

async function startFakeComfy(outputClip: string): Promise<FakeComfy> {
  const polls = new Map<string, number>();
  let next = 0;
  const fake: FakeComfy = {
    url: '',
    server: null as unknown as HttpOrigin,
    prompts: [],
    uploads: [],
    interrupts: 0,
    deleted: [],
    outcome: 'success',
    pollsBeforeDone: 2,
    close: () => fake.server.close(),
  };
  fake.server = await serveHttp(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    const raw = await body(req);
    if (req.method === 'POST' && url.pathname === '/upload/image') {
      const text = raw.toString('latin1');
      const m = /name="image"; filename="([^"]+)"/.exec(text);
      if (!m || !/multipart\/form-data/.test(req.headers['content-type'] ?? '')) return json(400, { error: 'no image part' });
      fake.uploads.push(m[1]);
      return json(200, { name: m[1], subfolder: '', type: 'input' });
    }
    if (req.method === 'POST' && url.pathname === '/prompt') {
      const p = JSON.parse(raw.toString('utf8'));
      if (!p.prompt || typeof p.prompt !== 'object') return json(400, { error: { type: 'no_prompt' }, node_errors: {} });
      fake.prompts.push(p);
      const id = `p-${++next}`;
      polls.set(id, 0);
      return json(200, { prompt_id: id, number: next, node_errors: {} });
    }
    const hist = /^\/history\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && hist) {
      const id = decodeURIComponent(hist[1]);
      const n = (polls.get(id) ?? 0) + 1;
      polls.set(id, n);
      if (fake.outcome === 'never' || n <= fake.pollsBeforeDone) return json(200, {});
      if (fake.outcome === 'error') {
        return json(200, {
          [id]: {
            outputs: {},
            status: { status_str: 'error', completed: false, messages: [['execution_error', { exception_message: 'CUDA out of memory' }]] },
          },
        });
      }
      return json(200, {
        [id]: {
          prompt: [n, id, {}, {}, ['11']],
          outputs: { '11': { images: [{ filename: 'h3_00001_.mp4', subfolder: 'marionette', type: 'output' }], animated: [true] } },
          status: { status_str: 'success', completed: true, messages: [] },
        },
      });
    }
    if (req.method === 'GET' && url.pathname === '/view') {
      if (
        url.searchParams.get('filename') !== 'h3_00001_.mp4' ||
        url.searchParams.get('subfolder') !== 'marionette' ||
        url.searchParams.get('type') !== 'output'
      ) {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return res.end(await readFile(outputClip));
    }
    if (req.method === 'POST' && url.pathname === '/interrupt') {
      fake.interrupts++;
      return json(200, {});
    }
    if (req.method === 'POST' && url.pathname === '/queue') {
      fake.deleted.push(...(JSON.parse(raw.toString('utf8')).delete ?? []));
      return json(200, {});
    }
    res.writeHead(404);
    res.end();
  });
  fake.url = fake.server.url;
  return fake;
}

async function probe(
  file: string,
): Promise<{ width: number; height: number; fps: number; frames: number; durationS: number; audio: boolean }> {
  const { stdout } = await run(tools.ffprobe, [
    '-v',
    'error',
    '-count_frames',
    '-show_entries',
    'stream=codec_type,width,height,avg_frame_rate,nb_read_frames:format=duration',
    '-of',
    'json',
    file,
  ]);
  const j = JSON.parse(stdout) as { streams: Array<Record<string, string | number>>; format: { duration: string } };
  const v = j.streams.find((s) => s.codec_type === 'video')!;
  const [n, d] = String(v.avg_frame_rate).split('/').map(Number);
  return {
    width: Number(v.width),
    height: Number(v.height),
    fps: n / d,
    frames: Number(v.nb_read_frames),
    durationS: Number(j.format.duration),
    audio: j.streams.some((s) => s.codec_type === 'audio'),
  };
}

let dir: string;
let clip: string;
let frame: string;
let fake: FakeComfy;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marionette-comfy-'));
  // What the GPU server "generated": 640x480 at 16 fps for 1.5 s, without audio.
  clip = join(dir, 'gpu-output.mp4');
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=640x480:rate=16',
    '-t',
    '1.5',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    clip,
  ]);
  frame = join(dir, 'first.png');
  await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .png()
    .toFile(frame);
  fake = await startFakeComfy(clip);
});
after(async () => {
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function request(over: Partial<GenerationRequest> & { workDir: string }): GenerationRequest {
  return {
    prompt: 'a fox dances in the snow',
    tags: ['fox', 'snow'],
    durationS: 3,
    width: 854,
    height: 480,
    resolution: '480p',
    aspectRatio: '16:9',
    seed: 4242,
    quality: 'low',
    enhance: false,
    watermark: false,
    firstFrameFile: null,
    lastFrameFile: null,
    signal: new AbortController().signal,
    onProgress: () => {},
    ...over,
  };
}

const generator = () =>
  comfyUiGenerator({
    baseUrl: fake.url,
    workflowDir: WORKFLOWS,
    ffmpeg: tools.ffmpeg,
    pollMs: 20,
    timeoutMs: 20_000,
    soundtrack: (req, durationS, file) =>
      writeSoundtrack({ prompt: req.prompt, tags: req.tags, seed: req.seed, durationS, workDir: req.workDir }, file),
  });

describe('ComfyUI generator adapter (loopback ComfyUI protocol server)', () => {
  test('text-to-video: the workflow is filled and queued, polled to completion, and the output normalised to the exact request', async () => {
    fake.outcome = 'success';
    const before = fake.prompts.length;
    const progress: number[] = [];
    const out = await generator().generate(request({ workDir: join(dir, 't2v'), onProgress: (p) => progress.push(p) }));
    assert.equal(fake.prompts.length, before + 1);
    const queued = fake.prompts.at(-1)!;
    assert.ok(queued.client_id, 'a client_id is sent');
    // Placeholders that stand alone become numbers; text placeholders are substituted in place.
    const sampler = Object.values(queued.prompt).find((n) => n.class_type === 'KSampler')!;
    assert.equal(sampler.inputs.seed, 4242);
    assert.equal(sampler.inputs.steps, 20, 'quality=low steps');
    const latent = Object.values(queued.prompt).find((n) => n.class_type === 'EmptyHunyuanLatentVideo')!;
    assert.deepEqual([latent.inputs.width, latent.inputs.height, latent.inputs.length], [854, 480, 72]);
    const texts = Object.values(queued.prompt)
      .filter((n) => n.class_type === 'CLIPTextEncode')
      .map((n) => n.inputs.text);
    assert.ok(texts.includes('a fox dances in the snow, fox, snow'), JSON.stringify(texts));
    assert.ok(!JSON.stringify(queued.prompt).includes('{{'), 'no placeholder left');
    // Exact size, 24 fps, exact duration (the 1.5 s GPU clip's last frame held), native audio added.
    const p = await probe(out.videoFile);
    assert.deepEqual([p.width, p.height], [854, 480]);
    assert.ok(Math.abs(p.fps - 24) < 0.01, `fps ${p.fps}`);
    assert.equal(p.frames, 72);
    assert.ok(Math.abs(p.durationS - 3) <= 1 / 24 + 0.03, `duration ${p.durationS}`);
    assert.ok(p.audio, 'the soundtrack is added when the server returns none');
    assert.equal(out.durationMs, 3000);
    assert.ok(progress.length >= 3 && progress.every((x, i) => i === 0 || x >= progress[i - 1]), `progress ${progress}`);
  });

  test('image-to-video: the first frame is uploaded and named in the i2v workflow; quality=high spends more steps', async () => {
    fake.outcome = 'success';
    const out = await generator().generate(
      request({ workDir: join(dir, 'i2v'), firstFrameFile: frame, quality: 'high', width: 768, height: 768, durationS: 2 }),
    );
    assert.ok(fake.uploads.length >= 1, 'the frame went up through /upload/image');
    const queued = JSON.stringify(fake.prompts.at(-1)!.prompt);
    assert.ok(queued.includes(fake.uploads.at(-1)!), 'the uploaded name is in the workflow');
    const sampler = Object.values(fake.prompts.at(-1)!.prompt).find((n) => n.class_type === 'KSampler')!;
    assert.equal(sampler.inputs.steps, 40);
    const p = await probe(out.videoFile);
    assert.deepEqual([p.width, p.height, p.frames], [768, 768, 48]);
  });

  test('a prompt ComfyUI fails is a non-retryable error carrying its message', async () => {
    fake.outcome = 'error';
    await assert.rejects(generator().generate(request({ workDir: join(dir, 'err') })), (e: unknown) => {
      assert.ok(e instanceof ComfyUiError);
      assert.equal(e.retryable, false);
      assert.match(e.message, /CUDA out of memory/);
      return true;
    });
    fake.outcome = 'success';
  });

  test('cancelling interrupts the server and removes the prompt from its queue', async () => {
    fake.outcome = 'never';
    const ac = new AbortController();
    const pending = generator().generate(request({ workDir: join(dir, 'cancel'), signal: ac.signal }));
    const before = fake.prompts.length;
    while (fake.prompts.length === before) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await assert.rejects(pending);
    const until = Date.now() + 2000;
    while ((fake.interrupts === 0 || fake.deleted.length === 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.ok(fake.interrupts >= 1, 'POST /interrupt');
    assert.ok(fake.deleted.includes('p-' + fake.prompts.length), `POST /queue delete ${fake.deleted}`);
    fake.outcome = 'success';
  });

  test('an unreachable server is a retryable error', async () => {
    const gen = comfyUiGenerator({
      baseUrl: 'http://127.0.0.1:9',
      workflowDir: WORKFLOWS,
      ffmpeg: tools.ffmpeg,
      pollMs: 20,
      soundtrack: async () => {},
    });
    await assert.rejects(gen.generate(request({ workDir: join(dir, 'down') })), (e: unknown) => e instanceof ComfyUiError && e.retryable);
  });
});

describe('POST /v1/videos with MARIONETTE_GENERATOR=comfyui (workers in process)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({
      db: 'sqlite',
      workers: true,
      credits: 100,
      env: { MARIONETTE_GENERATOR: 'comfyui', MARIONETTE_COMFYUI_URL: fake.url, MARIONETTE_JOB_HEARTBEAT_MS: '1000' },
    });
  });
  after(async () => svc?.close());

  async function settle(id: string): Promise<any> {
    const until = Date.now() + 60_000;
    for (;;) {
      const v = (await (await svc.request(`/v1/videos/${id}`)).json()) as any;
      if (['ready', 'failed', 'cancelled'].includes(v.status)) return v;
      if (Date.now() > until) throw new Error(`${id} still ${v.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const create = async (body: unknown) => {
    const res = await svc.request('/v1/videos', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as any).id as string;
  };

  test('an H3 request is generated by the ComfyUI server and settled at its price', async () => {
    fake.outcome = 'success';
    const id = await create({ prompt: 'a robot waves on a stage', duration_s: 3, resolution: '480p', aspect_ratio: '1:1', seed: 7 });
    const v = await settle(id);
    assert.equal(v.status, 'ready', JSON.stringify(v.error));
    assert.equal(v.seed, 7);
    const file = join(dir, `${id}.mp4`);
    await writeFile(file, Buffer.from(await (await fetch(v.video_url)).arrayBuffer()));
    const p = await probe(file);
    assert.deepEqual([p.width, p.height, p.frames], [480, 480, 72]);
    const ledger = await ledgerOf(svc.wired.deps.db, id);
    assert.deepEqual(
      ledger.map((l) => [l.kind, Number(l.amount_milli)]),
      [
        ['reserve', -3000],
        ['settle', 0],
      ],
    );
  });

  test('a prompt the server fails fails the video and releases its credits', async () => {
    fake.outcome = 'error';
    const id = await create({ prompt: 'a dragon breathes fire', duration_s: 4, resolution: '480p' });
    const v = await settle(id);
    fake.outcome = 'success';
    assert.equal(v.status, 'failed');
    assert.match(v.error.message, /CUDA out of memory/);
    const ledger = await ledgerOf(svc.wired.deps.db, id);
    assert.deepEqual(
      ledger.map((l) => l.kind),
      ['reserve', 'release'],
    );
    assert.equal(
      ledger.reduce((s, l) => s + Number(l.amount_milli), 0),
      0,
    );
  });
});
