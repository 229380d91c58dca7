import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startService, type TestService } from '../helpers/harness.js';
import { ffprobe } from '../helpers/media-prep.js';
import { CLI_BIN } from '../helpers/clients.js';

/** `marionette mcp` driven by the MCP SDK's own client over stdio, through a full render. */
describe('marionette mcp', () => {
  let svc: TestService;
  let dir: string;
  let client: Client;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'marionette-mcp-'));
    svc = await startService({ db: 'sqlite', workers: true, credits: 100 });
    client = new Client({ name: 'marionette-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI_BIN, 'mcp'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          MARIONETTE_API_KEY: svc.apiKey,
          MARIONETTE_BASE_URL: svc.baseUrl,
          MARIONETTE_CONFIG: join(dir, 'c.json'),
        },
        stderr: 'pipe',
      }),
    );
  });
  after(async () => {
    await client?.close();
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('tools are described with input schemas', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'create_render',
      'create_video',
      'get_status',
      'list_videos',
      'download_video',
      'list_motion_templates',
      'import_motion_template',
      'get_balance',
    ]) {
      const t = byName.get(name);
      assert.ok(t, name);
      assert.ok((t.description ?? '').length > 40, `${name} description`);
      assert.equal(t.inputSchema.type, 'object');
    }
    const render = byName.get('create_render')!.inputSchema as { properties: Record<string, { description?: string }> };
    for (const f of ['image', 'video', 'character_id', 'motion_id', 'background_mode', 'output_path'])
      assert.ok(render.properties[f]?.description, f);
  });

  test('balance, templates, then a full render with progress notifications and resource links; list, status, download', async () => {
    const balance = await client.callTool({ name: 'get_balance', arguments: {} });
    assert.match((balance.content as { text: string }[])[0].text, /Balance 100 credits/);
    const templates = await client.callTool({ name: 'list_motion_templates', arguments: {} });
    assert.match((templates.content as { text: string }[])[0].text, /tpl_wave/);
    const motion = await client.callTool({ name: 'import_motion_template', arguments: { template_id: 'tpl_wave' } });
    assert.ok(!motion.isError, JSON.stringify(motion.content));
    const motionId = (motion.structuredContent as { motion: { id: string } }).motion.id;

    const out = join(dir, 'mcp.mp4');
    const progress: { progress: number; message?: string }[] = [];
    const partial = await client.callTool({ name: 'create_render', arguments: { image: join(dir, 'no-such.png'), motion_id: motionId } });
    assert.equal(partial.isError, true);
    assert.match((partial.content as { text: string }[])[0].text, /no-such\.png/);

    const full = await client.callTool({ name: 'create_render', arguments: { output_path: out } }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 600_000,
      resetTimeoutOnProgress: true,
    });
    assert.ok(!full.isError, JSON.stringify(full.content));
    assert.ok(progress.length >= 3, `${progress.length} progress notifications`);
    assert.ok(
      progress.every((p, i) => i === 0 || p.progress >= progress[i - 1].progress),
      'progress never goes back',
    );
    assert.equal(progress.at(-1)!.progress, 100);
    const links = (full.content as { type: string; uri?: string; mimeType?: string }[]).filter((c) => c.type === 'resource_link');
    const http = links.find((l) => l.uri!.startsWith('http'));
    const file = links.find((l) => l.uri!.startsWith('file:'));
    assert.ok(http && file, JSON.stringify(links));
    assert.equal(http.mimeType, 'video/mp4');
    assert.equal(fileURLToPath(file.uri!), out);
    assert.ok((await ffprobe(out)).frames > 5);
    const videoId = (full.structuredContent as { video: { id: string } }).video.id;

    const listed = await client.callTool({ name: 'list_videos', arguments: { status: 'ready' } });
    assert.ok((listed.structuredContent as { items: { id: string }[] }).items.some((v) => v.id === videoId));
    const status = await client.callTool({ name: 'get_status', arguments: { id: videoId } });
    assert.match((status.content as { text: string }[])[0].text, new RegExp(`${videoId}: ready`));
    const again = join(dir, 'again.mp4');
    const dl = await client.callTool({ name: 'download_video', arguments: { id: videoId, output_path: again } });
    assert.ok(!dl.isError);
    assert.equal((dl.structuredContent as { bytes: number }).bytes, (await stat(again)).size);
    const missing = await client.callTool({ name: 'get_status', arguments: { id: 'render_00000000000000000000000000' } });
    assert.equal(missing.isError, true);
    assert.match((missing.content as { text: string }[])[0].text, /NOT_FOUND.*request/);
  });
});
