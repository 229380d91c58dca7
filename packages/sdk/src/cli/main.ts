/**
 * `marionette`: the command line for the Marionette service. Every command has --help; --json
 * prints one JSON document on stdout (also for errors) for scripts; exit codes are in exit-codes.ts.
 */
import { Command, CommanderError, Option } from 'commander';
import { createInterface } from 'node:readline/promises';
import { join, resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { Marionette, isTerminal } from '../client.js';
import { JobFailedError, MarionetteApiError, MarionetteError } from '../errors.js';
import type { Character, Motion, Video } from '../types.js';
import { SDK_VERSION, API_VERSION } from '../version.js';
import { removeStored, resolveSettings, writeStored, DEFAULT_BASE_URL, configPath, readStored } from './config.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { createProgress, type Progress } from './progress.js';

interface Globals {
  retries?: number;
  apiKey?: string;
  baseUrl?: string;
  json?: boolean;
  progress?: boolean;
  color?: boolean;
}

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

class UsageError extends MarionetteError {}

export async function run(argv: string[], io: CliIo): Promise<number> {
  const tty = io.stderr.isTTY === true;
  let globals: Globals = {};
  const color = () => tty && globals.color !== false && !io.env.NO_COLOR;
  const paint = (code: string, s: string) => (color() ? `\x1b[${code}m${s}\x1b[0m` : s);
  const print = (s: string) => io.stdout.write(s.endsWith('\n') ? s : s + '\n');
  const json = (v: unknown) => print(JSON.stringify(v, null, 2));
  const note = (s: string) => {
    if (!globals.json) io.stderr.write(s + '\n');
  };
  const progress = (): Progress => createProgress(globals.json || globals.progress === false ? 'off' : tty ? 'tty' : 'lines', io.stderr);

  async function client(): Promise<Marionette> {
    const s = await resolveSettings({ apiKey: globals.apiKey, baseUrl: globals.baseUrl }, io.env);
    if (!s.apiKey)
      throw new UsageError(
        `no API key: set MARIONETTE_API_KEY, pass --api-key, or run \`marionette login\` (config file ${s.configPath})`,
        { cause: 'auth' },
      );
    return new Marionette({
      apiKey: s.apiKey,
      baseUrl: s.baseUrl,
      sourceLabel: `marionette-cli/${SDK_VERSION}`,
      maxRetries: globals.retries,
      onRetry: (r) =>
        note(
          paint(
            '33',
            `retrying ${r.method} ${new URL(r.url).pathname} in ${(r.delayMs / 1000).toFixed(1)} s (${'code' in r.error ? r.error.code : r.error.message})`,
          ),
        ),
    });
  }

  /** Prints a resource: JSON in --json mode, else the given lines. */
  function show(v: unknown, lines: () => string[]): void {
    if (globals.json) json(v);
    else print(lines().join('\n'));
  }
  const assetLine = (a: Character | Motion) =>
    `${a.id}  ${a.status.padEnd(10)} ${a.type.padEnd(6)} ${a.name ? JSON.stringify(a.name) : ''}  ${a.created_at ?? ''}`.trimEnd();
  const videoLine = (v: Video) =>
    `${v.id}  ${v.status.padEnd(10)} ${v.progress ?? ''}${v.progress !== null ? '%' : ''}  ${v.created_at ?? ''}`.trimEnd();
  const detail = (o: Record<string, unknown>) =>
    Object.entries(o)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k.padEnd(14)} ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`);

  /** Follows a render's event stream with a bar; falls back to polling for vid_/anim_ jobs. */
  async function follow(m: Marionette, id: string, bars: Progress): Promise<Video> {
    const task = bars.task('render', 100, 'percent');
    if (id.startsWith('render_')) {
      for await (const e of m.events(id, {
        onReconnect: (r) => note(`event stream dropped; resuming after ${r.lastEventId ?? 'the start'}`),
      })) {
        if (e.event === 'heartbeat') continue;
        const d = e.data;
        if (isTerminal(d.status)) break;
        task.update(d.progress ?? 0, d.stage ?? d.status);
      }
    }
    const final = await m.waitFor<Video>(id, {
      intervalMs: 3000,
      onPoll: (v) => !isTerminal(v.status) && task.update(v.progress ?? 0, v.status),
    });
    if (final.status === 'ready') task.done('ready');
    else task.update(final.progress ?? 0, final.status);
    return final;
  }

  async function download(m: Marionette, id: string, out: string, bars: Progress): Promise<number> {
    let task: ReturnType<Progress['task']> | null = null;
    const n = await m.videos.downloadTo(id, out, (loaded, total) => {
      task ??= bars.task('download', total ?? 0, 'bytes');
      task.update(loaded);
    });
    (task as ReturnType<Progress['task']> | null)?.done();
    return n;
  }

  async function finishJob(m: Marionette, id: string, opts: { output?: string; wait?: boolean }, created: unknown): Promise<void> {
    if (opts.wait === false) {
      show(created, () => [`${id} queued`, `follow it with: marionette wait ${id}`]);
      return;
    }
    const bars = progress();
    try {
      const final = await follow(m, id, bars);
      if (final.status !== 'ready') {
        bars.stop();
        throw new JobFailedError(final);
      }
      const out = opts.output ? resolve(opts.output) : resolve(`${id}.mp4`);
      const bytes = await download(m, id, out, bars);
      bars.stop();
      show({ ...final, output: out, bytes }, () => [`${id} ready: saved ${out} (${bytes} bytes)`]);
    } finally {
      bars.stop();
    }
  }

  const program = new Command('marionette')
    .description(
      `Command line for the Marionette character-animation service (API ${API_VERSION}).\nKey and base URL: --api-key/--base-url, MARIONETTE_API_KEY/MARIONETTE_BASE_URL, or \`marionette login\`.`,
    )
    .version(SDK_VERSION, '-V, --version')
    .option('--api-key <key>', 'API key (default: $MARIONETTE_API_KEY, then the login config)')
    .option('--base-url <url>', `service URL (default: $MARIONETTE_BASE_URL, then the login config, then ${DEFAULT_BASE_URL})`)
    .option('--json', 'print one JSON document on stdout (errors too) and no progress')
    .option('--no-progress', 'no progress bars or progress lines')
    .option('--no-color', 'no colours (also NO_COLOR=1)')
    .option('--retries <n>', 'automatic retries of retryable failures (default 4)', (v) => Number(v))
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `\nExit codes: ${Object.entries(EXIT)
        .map(([k, v]) => `${v} ${k.toLowerCase()}`)
        .join(', ')}.`,
    )
    .hook('preAction', (cmd) => {
      globals = cmd.opts() as Globals;
    });
  program.exitOverride();
  program.configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  program
    .command('render')
    .description(
      "Render a character performing a motion and save the video. With no inputs at all, the service's default character and motion are used.",
    )
    .option('-i, --image <path|url>', 'character picture (PNG, JPEG, WebP): a file or an http(s) URL')
    .option('-c, --character <id>', 'a ready Character (char_...) instead of --image')
    .option('-v, --video <path|url>', 'driving video (MP4, MOV, WebM): a file or an http(s) URL')
    .option('-m, --motion <id>', 'a ready Motion (mot_...) instead of --video')
    .option('-b, --background <mode>', 'original (default), transparent, solid, or a colour R,G,B (implies solid)')
    .option('--bg-color <R,G,B>', 'colour for --background solid')
    .addOption(
      new Option(
        '--upload <how>',
        'how files are sent: draft (direct uploads with progress, default for files), direct (one multipart request)',
      )
        .choices(['draft', 'direct', 'auto'])
        .default('draft'),
    )
    .option('-o, --output <file>', 'where to save the video (default: <render id>.mp4)')
    .option('--no-wait', 'print the queued render and exit without waiting')
    .action(async (o) => {
      if (o.image && o.character) throw new UsageError('give --image or --character, not both');
      if (o.video && o.motion) throw new UsageError('give --video or --motion, not both');
      let backgroundMode = o.background as string | undefined;
      let bgColor = o.bgColor as string | undefined;
      if (backgroundMode && /^\d{1,3},\d{1,3},\d{1,3}$/.test(backgroundMode)) {
        bgColor = backgroundMode;
        backgroundMode = 'solid';
      }
      if (backgroundMode && !['original', 'solid', 'transparent'].includes(backgroundMode))
        throw new UsageError(`--background must be original, transparent, solid or R,G,B (got ${backgroundMode})`);
      const m = await client();
      const bars = progress();
      const tasks = new Map<string, ReturnType<Progress['task']>>();
      let render;
      try {
        render = await m.renders.create({
          character: o.image,
          characterId: o.character,
          motion: o.video,
          motionId: o.motion,
          backgroundMode: backgroundMode as never,
          bgColor,
          upload: o.upload,
          onUploadProgress: (p) => {
            let t = tasks.get(p.field);
            if (!t) tasks.set(p.field, (t = bars.task(`upload ${p.field === 'image' ? 'image' : 'video'}`, p.total, 'bytes')));
            if (p.loaded >= p.total) t.done();
            else t.update(p.loaded);
          },
        });
      } finally {
        bars.stop();
      }
      note(`${render.id} ${render.status}`);
      await finishJob(m, render.id, o, render);
    });

  program
    .command('wait <id>')
    .description(
      'Wait for a render, video, character or motion to finish (event stream for renders, polling otherwise); exit 8 if it failed',
    )
    .option('-o, --output <file>', 'for videos: save the result here when ready')
    .action(async (id: string, o) => {
      const m = await client();
      if (id.startsWith('char_') || id.startsWith('mot_')) {
        const a = await m.waitFor<Character | Motion>(id, {
          onPoll: (r) => note(`${r.id} ${r.status}${r.progress !== null ? ` ${r.progress}%` : ''}`),
        });
        if (a.status !== 'ready') throw new JobFailedError(a);
        show(a, () => detail(a));
        return;
      }
      if (o.output) return finishJob(m, id, { output: o.output }, null);
      const bars = progress();
      try {
        const v = await follow(m, id, bars);
        bars.stop();
        if (v.status !== 'ready') throw new JobFailedError(v);
        show(v, () => detail(v));
      } finally {
        bars.stop();
      }
    });

  const characters = program.command('characters').alias('character').description('Reusable characters made from one picture');
  characters
    .command('list')
    .description('The newest characters of the account (at most 100)')
    .action(async () => {
      const items = await (await client()).characters.list().toArray();
      show({ items }, () => (items.length ? items.map(assetLine) : ['no characters']));
    });
  characters
    .command('get <id>')
    .description('One character')
    .action(async (id: string) => {
      const c = await (await client()).characters.get(id);
      show(c, () => detail(c));
    });
  characters
    .command('create <image>')
    .description('Create a character from a picture (file path or http(s) URL)')
    .option('-n, --name <name>', 'display name')
    .addOption(new Option('-t, --type <type>', 'what to extract').choices(['render', 'vsplat', 'all']))
    .option('--thumbnail', 'also render the standard thumbnail')
    .option('--wait', 'wait until it is ready (exit 8 if it fails)')
    .action(async (image: string, o) => {
      const m = await client();
      let c = await m.characters.create(image, { name: o.name, type: o.type, render_thumbnail: o.thumbnail });
      if (o.wait) {
        c = await m.waitFor<Character>(c.id, { onPoll: (r) => note(`${r.id} ${r.status}`) });
        if (c.status !== 'ready') throw new JobFailedError(c);
      }
      show(c, () => detail(c));
    });
  characters
    .command('delete <id>')
    .description('Delete a character')
    .action(async (id: string) => {
      const r = await (await client()).characters.delete(id);
      show(r, () => [`${r.id} deleted`]);
    });
  characters
    .command('export <id>')
    .description('Export URLs of a character (vsplat, thumbnail)')
    .action(async (id: string) => {
      const r = await (await client()).characters.export(id, { downloadType: 'vsplat' });
      show(r, () => detail(r));
    });

  const motions = program.command('motions').alias('motion').description('Reusable motions made from a driving video or a template');
  motions
    .command('list')
    .description('Motions of the account, newest first (all pages)')
    .option('-l, --limit <n>', 'at most this many', (v) => Number(v))
    .action(async (o) => {
      const items = await (await client()).motions.list({ limit: Math.min(o.limit ?? 100, 100) }).toArray(o.limit ?? Infinity);
      show({ items }, () => (items.length ? items.map(assetLine) : ['no motions']));
    });
  motions
    .command('templates')
    .description('The motion templates the service offers (use with `motions import`)')
    .action(async () => {
      const items = await (await client()).motions.templates();
      show({ items }, () => items.map((t) => `${t.id.padEnd(12)} ${t.name.padEnd(16)} ${t.duration_s} s`));
    });
  motions
    .command('import <template_id>')
    .description('Create a motion from a template (free)')
    .option('-n, --name <name>', "display name (default: the template's)")
    .option('--wait', 'wait until it is ready')
    .action(async (templateId: string, o) => {
      const m = await client();
      let r = await m.motions.import(templateId, { name: o.name });
      if (o.wait) {
        r = await m.waitFor<Motion>(r.id, { intervalMs: 1000 });
        if (r.status !== 'ready') throw new JobFailedError(r);
      }
      show(r, () => detail(r));
    });
  motions
    .command('create <video>')
    .description('Create a motion from a driving video (file path or http(s) URL)')
    .option('-n, --name <name>', 'display name')
    .addOption(new Option('-t, --type <type>', 'what to extract').choices(['render', 'glb', 'all']))
    .option('--wait', 'wait until it is ready')
    .action(async (video: string, o) => {
      const m = await client();
      let r = await m.motions.create(video, { name: o.name, type: o.type });
      if (o.wait) {
        r = await m.waitFor<Motion>(r.id, { onPoll: (x) => note(`${x.id} ${x.status}`) });
        if (r.status !== 'ready') throw new JobFailedError(r);
      }
      show(r, () => detail(r));
    });
  motions
    .command('get <id>')
    .description('One motion')
    .action(async (id: string) => {
      const r = await (await client()).motions.get(id);
      show(r, () => detail(r));
    });
  motions
    .command('delete <id>')
    .description('Delete a motion')
    .action(async (id: string) => {
      const r = (await (await client()).motions.delete(id)) as Record<string, unknown>;
      show(r, () => [`${id} deleted`]);
    });
  motions
    .command('export <id>')
    .description('Export URLs of a motion (MetaHuman and Mixamo rigs)')
    .addOption(new Option('-t, --type <type>', 'file format').choices(['glb', 'fbx']).default('glb'))
    .action(async (id: string, o) => {
      const r = await (await client()).motions.export(id, { downloadType: o.type });
      show(r, () => detail(r));
    });

  const videos = program.command('videos').alias('video').description('Renders, generated videos and character animations');
  videos
    .command('list')
    .description('Videos of the account, newest first')
    .addOption(new Option('-s, --status <status>', 'only this status').choices(['queued', 'processing', 'ready', 'failed', 'cancelled']))
    .option('-l, --limit <n>', 'at most this many (default 20)', (v) => Number(v), 20)
    .option('-a, --all', 'every page')
    .action(async (o) => {
      const it = (await client()).videos.list({ status: o.status, limit: Math.min(o.limit, 100) });
      const items = await it.toArray(o.all ? Infinity : o.limit);
      show({ items }, () => (items.length ? items.map(videoLine) : ['no videos']));
    });
  videos
    .command('get <id>')
    .description('One video (render_, vid_ or anim_ ID)')
    .action(async (id: string) => {
      const v = await (await client()).videos.get(id);
      show(v, () => detail(v));
    });
  videos
    .command('download <id>')
    .description('Save a ready video')
    .option('-o, --output <file>', 'file to write (default: <id>.mp4)')
    .action(async (id: string, o) => {
      const out = resolve(o.output ?? `${id}.mp4`);
      const bars = progress();
      try {
        const bytes = await download(await client(), id, out, bars);
        bars.stop();
        show({ id, output: out, bytes }, () => [`saved ${out} (${bytes} bytes)`]);
      } finally {
        bars.stop();
      }
    });
  videos
    .command('generate')
    .description('Generate a video with native audio from a prompt (H3), or animate a character with --driving-video')
    .option('-p, --prompt <text>', 'what the video shows')
    .option('-d, --duration <seconds>', 'length, 3-15 s (default 5)', (v) => Number(v))
    .addOption(new Option('-r, --resolution <r>', 'short side').choices(['480p', '768p', '1080p', '2k', '4k']))
    .addOption(new Option('--aspect-ratio <ratio>', 'frame shape').choices(['16:9', '9:16', '1:1', '4:3', '3:4', '21:9']))
    .addOption(new Option('-q, --quality <q>', 'low = faster iteration, high = more fidelity (same price)').choices(['low', 'high']))
    .option('--seed <n>', 'same inputs and seed give the same video', (v) => Number(v))
    .option('--first-frame <path|url>', 'image the video starts from')
    .option('--character-image <path|url>', 'animate mode: the character picture')
    .option('--driving-video <path|url>', 'animate mode: the driving video')
    .option('-o, --output <file>', 'where to save the video (default: <id>.mp4)')
    .option('--no-wait', 'print the queued job and exit')
    .action(async (o) => {
      if (!o.prompt && !o.drivingVideo) throw new UsageError('give --prompt (or --driving-video for a character animation)');
      const m = await client();
      const v = await m.videos.create({
        prompt: o.prompt,
        duration_s: o.duration,
        resolution: o.resolution,
        aspect_ratio: o.aspectRatio,
        quality: o.quality,
        seed: o.seed,
        firstFrame: o.firstFrame,
        character: o.characterImage,
        drivingVideo: o.drivingVideo,
      });
      note(`${v.id} ${v.status}`);
      await finishJob(m, v.id, o, v);
    });

  program
    .command('credits')
    .description('Balance of the account (1 credit = $0.01)')
    .action(async () => {
      const c = await (await client()).credits.get();
      show(c, () => [`balance  ${c.balance} credits`, `reserved ${c.reserved} credits`]);
    });

  program
    .command('export <id>')
    .description('Export URLs of a character (char_: vsplat, thumbnail) or a motion (mot_: MetaHuman/Mixamo rigs); -o saves the files')
    .addOption(new Option('-t, --type <type>', 'motions: file format').choices(['glb', 'fbx']).default('glb'))
    .option('-o, --output-dir <dir>', 'download every available file into this directory')
    .action(async (id: string, o) => {
      const m = await client();
      const r: Record<string, unknown> = id.startsWith('char_')
        ? await m.characters.export(id, { downloadType: 'vsplat' })
        : id.startsWith('mot_')
          ? await m.motions.export(id, { downloadType: o.type })
          : (() => {
              throw new UsageError('export takes a character (char_...) or motion (mot_...) ID');
            })();
      const saved: Record<string, string> = {};
      if (o.outputDir) {
        await mkdir(o.outputDir, { recursive: true });
        const { saveBody } = await import('../node.js');
        for (const [k, url] of Object.entries(r)) {
          if (!k.endsWith('_url') || typeof url !== 'string') continue;
          const res = await m.transport.ok(new Request(url), false);
          const ext = new URL(url).pathname.split('.').pop() ?? 'bin';
          const file = join(resolve(o.outputDir), `${id}-${k.replace(/_url$/, '')}.${ext}`);
          await saveBody(res.body!, file);
          saved[k] = file;
        }
      }
      show({ ...r, ...(o.outputDir ? { saved } : {}) }, () => [
        ...detail(r),
        ...Object.entries(saved).map(([k, f]) => `saved ${k.replace(/_url$/, '')} -> ${f}`),
      ]);
    });

  program
    .command('login')
    .description('Store an API key (and base URL) in the config file, readable only by you (0600); checks the key first')
    .option('--key <key>', 'the API key (default: prompted, or read from stdin when it is not a terminal)')
    .action(async (o) => {
      const path = configPath(io.env);
      const stored = await readStored(path);
      let key: string | undefined = o.key ?? globals.apiKey;
      if (!key) {
        if (io.stdin.isTTY) {
          const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
          key = (await rl.question('API key: ')).trim();
          rl.close();
        } else {
          let text = '';
          for await (const chunk of io.stdin) text += chunk;
          key = text.trim();
        }
      }
      if (!key) throw new UsageError('no API key given');
      const baseUrl = globals.baseUrl ?? io.env.MARIONETTE_BASE_URL ?? stored.base_url ?? DEFAULT_BASE_URL;
      const m = new Marionette({ apiKey: key, baseUrl, sourceLabel: `marionette-cli/${SDK_VERSION}`, maxRetries: 1 });
      const credits = await m.credits.get();
      await writeStored(path, { api_key: key, base_url: baseUrl });
      show({ config: path, base_url: baseUrl, balance: credits.balance }, () => [
        `logged in to ${baseUrl} (balance ${credits.balance} credits); key saved in ${path}`,
      ]);
    });
  program
    .command('logout')
    .description('Remove the stored config file')
    .action(async () => {
      const path = configPath(io.env);
      const removed = await removeStored(path);
      show({ config: path, removed }, () => [removed ? `removed ${path}` : `no config at ${path}`]);
    });

  program
    .command('mcp')
    .description('Run the MCP server over stdio (for AI assistants): tools for renders, videos, templates and the balance')
    .action(async () => {
      const s = await resolveSettings({ apiKey: globals.apiKey, baseUrl: globals.baseUrl }, io.env);
      if (!s.apiKey) throw new UsageError('no API key: set MARIONETTE_API_KEY or run `marionette login`', { cause: 'auth' });
      const { serveStdio } = await import('../mcp/server.js');
      await serveStdio({ apiKey: s.apiKey, baseUrl: s.baseUrl });
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.OK;
      return EXIT.USAGE;
    }
    const code = e instanceof UsageError ? (e.cause === 'auth' ? EXIT.AUTH : EXIT.USAGE) : exitCodeFor(e);
    if (globals.json) {
      const err =
        e instanceof MarionetteApiError
          ? {
              code: e.code,
              message: e.message,
              retryable: e.retryable,
              request_id: e.requestId,
              remediation: e.remediation,
              details: e.details,
              status: e.status,
            }
          : e instanceof JobFailedError
            ? {
                code: e.code ?? (e.status === 'cancelled' ? 'CANCELLED' : 'FAILED'),
                message: e.message,
                id: e.id,
                status: e.status,
                request_id: e.requestId,
                resource: e.resource,
              }
            : { code: code === EXIT.CONNECTION ? 'CONNECTION_ERROR' : 'CLI_ERROR', message: (e as Error).message };
      json({ error: err, exit_code: code });
    } else {
      let msg = `${paint('31', 'error:')} ${(e as Error).message}`;
      if (e instanceof MarionetteApiError && e.remediation.action) msg += `\n  next step: ${e.remediation.action}`;
      io.stderr.write(msg + '\n');
    }
    return code;
  }
}
