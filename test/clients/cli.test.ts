import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasSharedMedia, NO_MEDIA_REASON, freePort, startService, type TestService } from '../helpers/harness.js';
import { ffprobe, prepareMedia } from '../helpers/media-prep.js';
import { runCli, runCliTty } from '../helpers/clients.js';

/** `marionette` as a child process, with and without a terminal, against a live service. */
describe('marionette CLI', { skip: !hasSharedMedia() && NO_MEDIA_REASON }, () => {
  let svc: TestService;
  let dir: string;
  let media: { dir: string; video: string; image: string };
  let env: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'marionette-cli-'));
    media = await prepareMedia({ seconds: 1 });
    svc = await startService({ db: 'sqlite', workers: true, credits: 200 });
    env = { MARIONETTE_API_KEY: svc.apiKey, MARIONETTE_BASE_URL: svc.baseUrl, MARIONETTE_CONFIG: join(dir, 'config.json') };
  });
  after(async () => {
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
    if (media) await rm(media.dir, { recursive: true, force: true });
  });

  test('--help on every command, exit 0; usage errors exit 2', async () => {
    const root = await runCli(['--help'], { env });
    assert.equal(root.code, 0);
    const commands = [...root.stdout.matchAll(/^ {2}([a-z]+)[ |]/gm)].map((m) => m[1]).filter((c) => c !== 'help');
    assert.ok(commands.length >= 10, commands.join(','));
    for (const c of ['render', 'characters', 'motions', 'videos', 'credits', 'export', 'login', 'mcp']) assert.ok(commands.includes(c), c);
    const groups: Record<string, string[]> = {};
    for (const c of commands) {
      const r = await runCli([c, '--help'], { env });
      assert.equal(r.code, 0, `${c} --help`);
      assert.match(r.stdout, new RegExp(`Usage: marionette ${c}`));
      groups[c] = [...r.stdout.matchAll(/^ {2}([a-z]+)[ |]/gm)].map((m) => m[1]).filter((x) => x !== 'help');
    }
    assert.deepEqual(groups.videos.sort(), ['download', 'generate', 'get', 'list']);
    assert.ok(['templates', 'import', 'create', 'export'].every((x) => groups.motions.includes(x)));
    for (const [g, subs] of Object.entries(groups)) {
      for (const s of subs) {
        const r = await runCli([g, s, '--help'], { env });
        assert.equal(r.code, 0, `${g} ${s} --help`);
        assert.match(r.stdout, /Usage:/);
      }
    }
    const unknown = await runCli(['frobnicate'], { env });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command/);
    const missingArg = await runCli(['videos', 'get'], { env });
    assert.equal(missingArg.code, 2);
    const badChoice = await runCli(['render', '--background', 'purple'], { env });
    assert.equal(badChoice.code, 2);
  });

  test('exit codes and --json errors: no key 3, bad key 3, not found 4, no service 10', async () => {
    const noKey = await runCli(['credits'], { env: { MARIONETTE_BASE_URL: svc.baseUrl, MARIONETTE_CONFIG: join(dir, 'none.json') } });
    assert.equal(noKey.code, 3);
    assert.match(noKey.stderr, /MARIONETTE_API_KEY/);
    const badKey = await runCli(['credits', '--json'], { env: { ...env, MARIONETTE_API_KEY: 'mk_live_wrong' } });
    assert.equal(badKey.code, 3);
    const body = JSON.parse(badKey.stdout);
    assert.equal(body.error.code, 'INVALID_CREDENTIAL');
    assert.equal(body.error.retryable, false);
    assert.ok(body.error.request_id);
    assert.equal(body.exit_code, 3);
    const missing = await runCli(['videos', 'get', 'render_00000000000000000000000000'], { env });
    assert.equal(missing.code, 4);
    assert.match(missing.stderr, /RENDER_NOT_FOUND|NOT_FOUND/);
    const down = await runCli(['credits', '--retries', '0'], {
      env: { ...env, MARIONETTE_BASE_URL: `http://127.0.0.1:${await freePort()}` },
    });
    assert.equal(down.code, 10);
  });

  test('login writes a 0600 config the other commands use; logout removes it', async () => {
    const cfg = join(dir, 'login', 'config.json');
    const login = await runCli(['login', '--base-url', svc.baseUrl], { env: { MARIONETTE_CONFIG: cfg }, input: `${svc.apiKey}\n` });
    assert.equal(login.code, 0, login.stderr);
    assert.equal((await stat(cfg)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await readFile(cfg, 'utf8')), { api_key: svc.apiKey, base_url: svc.baseUrl });
    const credits = await runCli(['credits', '--json'], { env: { MARIONETTE_CONFIG: cfg } });
    assert.equal(credits.code, 0, credits.stderr);
    assert.equal(typeof JSON.parse(credits.stdout).balance, 'number');
    const refused = await runCli(['login', '--key', 'mk_live_wrong', '--base-url', svc.baseUrl], {
      env: { MARIONETTE_CONFIG: join(dir, 'refused.json') },
    });
    assert.equal(refused.code, 3);
    await assert.rejects(stat(join(dir, 'refused.json')), /ENOENT/);
    const logout = await runCli(['logout'], { env: { MARIONETTE_CONFIG: cfg } });
    assert.equal(logout.code, 0);
    await assert.rejects(stat(cfg), /ENOENT/);
  });

  test('render under a terminal: upload and render bars, the video saved, exit 0', async () => {
    const out = join(dir, 'tty.mp4');
    const r = await runCliTty(['render', '--image', media.image, '--video', media.video, '-o', out], { env, cwd: dir, timeoutMs: 600_000 });
    assert.equal(r.code, 0, r.stdout);
    const screen = r.stdout;
    assert.match(screen, /upload image/);
    assert.match(screen, /upload video/);
    assert.match(screen, /render\s+\|/);
    assert.match(screen, /\u2588/, 'bars drawn');
    assert.match(screen, /\x1b\[/, 'terminal control sequences');
    assert.match(screen, /ready: saved/);
    const probe = await ffprobe(out);
    assert.ok(probe.durationS > 0.5 && probe.frames > 5, JSON.stringify(probe));
  });

  test('render without a terminal: plain progress lines, no escape codes; then --json list, get, download', async () => {
    const out = join(dir, 'plain.mp4');
    const r = await runCli(['render', '--background', '0,177,64', '-o', out], { env, cwd: dir, timeoutMs: 600_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr + r.stdout, /\x1b\[|\u2588/);
    assert.match(r.stderr, /^render: \d+%/m);
    assert.match(r.stderr, /^render: 100% ready$/m);
    assert.match(r.stdout, /^render_\w+ ready: saved .*plain\.mp4 \(\d+ bytes\)$/m);
    const id = /^(render_\w+)/m.exec(r.stdout)![1];
    assert.ok((await ffprobe(out)).frames > 5);

    const list = await runCli(['videos', 'list', '--json'], { env });
    assert.equal(list.code, 0);
    assert.ok(JSON.parse(list.stdout).items.some((v: { id: string }) => v.id === id));
    const got = await runCli(['videos', 'get', id, '--json'], { env });
    assert.equal(JSON.parse(got.stdout).status, 'ready');
    const dl = await runCli(['videos', 'download', id, '-o', join(dir, 'again.mp4'), '--json'], { env });
    assert.equal(dl.code, 0, dl.stderr);
    const saved = JSON.parse(dl.stdout);
    assert.equal(saved.bytes, (await stat(join(dir, 'again.mp4'))).size);
    assert.equal(dl.stderr, '', '--json prints no progress');
  });

  test('motions (templates, import, list, get, export), characters, credits, export and videos generate --prompt to a saved file', async () => {
    const templates = JSON.parse((await runCli(['motions', 'templates', '--json'], { env })).stdout);
    assert.ok(templates.items.some((t: { id: string }) => t.id === 'tpl_clap'));
    const imp = await runCli(['motions', 'import', 'tpl_clap', '--name', 'clap', '--wait', '--json'], { env });
    assert.equal(imp.code, 0, imp.stderr);
    const motion = JSON.parse(imp.stdout);
    assert.equal(motion.status, 'ready');
    const human = await runCli(['motions', 'list'], { env });
    assert.match(human.stdout, new RegExp(`${motion.id}\\s+ready`));
    assert.equal(JSON.parse((await runCli(['motions', 'get', motion.id, '--json'], { env })).stdout).name, 'clap');
    const exp = await runCli(['export', motion.id, '--json'], { env });
    assert.ok([0, 4, 5].includes(exp.code!), `export exit ${exp.code}: ${exp.stdout}`);
    const chars = await runCli(['characters', 'list', '--json'], { env });
    assert.deepEqual(JSON.parse(chars.stdout).items, []);
    const notChar = await runCli(['export', 'render_x'], { env });
    assert.equal(notChar.code, 2);
    const credits = JSON.parse((await runCli(['credits', '--json'], { env })).stdout);
    assert.equal(typeof credits.balance, 'number');

    const queued = await runCli(
      ['videos', 'generate', '--prompt', 'a puppet waves on a beach', '--duration', '3', '--resolution', '480p', '--no-wait', '--json'],
      { env },
    );
    assert.equal(queued.code, 0, queued.stderr);
    assert.match(JSON.parse(queued.stdout).id, /^vid_/);
    const out = join(dir, 'h3.mp4');
    const gen = await runCli(
      ['videos', 'generate', '--prompt', 'a puppet jumps in a forest', '--duration', '3', '--resolution', '480p', '-o', out],
      { env, timeoutMs: 600_000 },
    );
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stdout, /^vid_\w+ ready: saved .*h3\.mp4/m);
    assert.match(gen.stderr, /^render: 100% ready$/m);
    assert.ok((await ffprobe(out)).frames > 30);
    const noPrompt = await runCli(['videos', 'generate'], { env });
    assert.equal(noPrompt.code, 2);
  });
});
