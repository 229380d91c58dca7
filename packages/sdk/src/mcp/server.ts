/**
 * `marionette mcp`: an MCP server over stdio for AI assistants. Tools create renders and videos
 * from local files or URLs, read status, list and download videos, list motion templates and read
 * the balance. Long jobs send progress notifications when the client passes a progressToken;
 * finished videos come back as resource links (the signed http URL, and a file:// link when saved).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { Marionette, isTerminal } from '../client.js';
import { MarionetteApiError } from '../errors.js';
import type { Video } from '../types.js';
import { SDK_VERSION } from '../version.js';

type Extra = {
  _meta?: { progressToken?: string | number };
  sendNotification: (n: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }) => Promise<void>;
  signal: AbortSignal;
};

type Content =
  { type: 'text'; text: string } | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string };

const STATUS = z.enum(['queued', 'processing', 'ready', 'failed', 'cancelled']);
const pathOrUrl = (what: string) =>
  z.string().min(1).describe(`${what}: an absolute local file path, or an http(s) URL the service fetches itself`);

function links(v: Video, saved?: string): Content[] {
  const out: Content[] = [];
  if (v.video_url)
    out.push({
      type: 'resource_link',
      uri: v.video_url,
      name: `${v.id}.mp4`,
      mimeType: 'video/mp4',
      description: 'Finished video (signed URL; it expires, read the video again for a fresh one)',
    });
  if (v.alpha_url)
    out.push({
      type: 'resource_link',
      uri: v.alpha_url,
      name: `${v.id}-alpha.mp4`,
      mimeType: 'video/mp4',
      description: 'Alpha mask of the transparent output',
    });
  if (saved)
    out.push({
      type: 'resource_link',
      uri: pathToFileURL(saved).href,
      name: saved.split('/').pop()!,
      mimeType: 'video/mp4',
      description: `Saved locally at ${saved}`,
    });
  return out;
}

function summary(v: Video): string {
  const err = v.error
    ? ` error ${v.error.code}: ${v.error.message} (request ${v.error.request_id ?? '-'}, retryable ${v.error.retryable})`
    : '';
  return `${v.id}: ${v.status}${v.progress !== null ? ` ${v.progress}%` : ''}${v.stage ? ` (${v.stage})` : ''}${err}`;
}

function failure(e: unknown): { content: Content[]; isError: true } {
  if (e instanceof MarionetteApiError) {
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `${e.code} (HTTP ${e.status}, retryable: ${e.retryable}, request ${e.requestId ?? '-'}): ${e.message}${e.remediation.action ? `\nNext step: ${e.remediation.action}` : ''}`,
        },
      ],
    };
  }
  return { isError: true, content: [{ type: 'text', text: (e as Error).message ?? String(e) }] };
}

export function createMcpServer(m: Marionette): McpServer {
  const server = new McpServer({ name: 'marionette', version: SDK_VERSION }, { capabilities: { tools: {} } });

  async function progress(extra: Extra, value: number, message: string): Promise<void> {
    const token = extra._meta?.progressToken;
    if (token === undefined) return;
    await extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, total: 100, message } })
      .catch(() => {});
  }

  /** Follows a job to its end, reporting progress; renders through the event stream, others by polling. */
  async function follow(id: string, extra: Extra): Promise<Video> {
    let last = -1;
    if (id.startsWith('render_')) {
      for await (const e of m.events(id, { signal: extra.signal })) {
        if (e.event === 'heartbeat') continue;
        const p = e.data.progress ?? 0;
        if (p !== last || isTerminal(e.data.status)) {
          last = p;
          await progress(extra, p, `${e.data.status}${e.data.stage ? ` (${e.data.stage})` : ''}`);
        }
        if (isTerminal(e.data.status)) break;
      }
    }
    return m.waitFor<Video>(id, {
      intervalMs: 2000,
      signal: extra.signal,
      onPoll: (v) => void progress(extra, v.progress ?? 0, v.status),
    });
  }

  async function finish(v: Video, wait: boolean, outputPath: string | undefined, extra: Extra) {
    if (!wait)
      return {
        content: [{ type: 'text' as const, text: `${summary(v)}\nCall get_status with this id to follow it.` }],
        structuredContent: { video: v },
      };
    const final = await follow(v.id, extra);
    let saved: string | undefined;
    if (final.status === 'ready' && outputPath) {
      saved = resolve(outputPath);
      await m.videos.downloadTo(final.id, saved);
    }
    return {
      content: [{ type: 'text' as const, text: summary(final) + (saved ? `\nSaved to ${saved}` : '') }, ...links(final, saved)],
      structuredContent: { video: final, ...(saved ? { saved_path: saved } : {}) },
      isError: final.status !== 'ready',
    };
  }

  server.registerTool(
    'create_render',
    {
      title: 'Animate a character with a driving video',
      description:
        'Makes a video of a character (from one picture) performing the motion of a person in a driving video. ' +
        'Give one character source (image, or character_id of a ready character) and one motion source (video, or motion_id of a ready motion); ' +
        "give neither to use the service's default character and motion. Costs 1 credit per second of output. " +
        'By default waits until the video is ready (sending progress notifications) and returns it as a resource link; set output_path to also save the MP4 locally.',
      inputSchema: {
        image: pathOrUrl('Character picture (PNG, JPEG or WebP), full body works best').optional(),
        character_id: z.string().startsWith('char_').describe('A ready Character (char_...) instead of image').optional(),
        video: pathOrUrl('Driving video of a person moving (MP4, MOV or WebM)').optional(),
        motion_id: z
          .string()
          .startsWith('mot_')
          .describe('A ready Motion (mot_...) instead of video, e.g. one imported from a template')
          .optional(),
        background_mode: z
          .enum(['original', 'solid', 'transparent'])
          .describe("original keeps the driving video's scene; solid uses bg_color; transparent adds an alpha video")
          .optional(),
        bg_color: z
          .string()
          .regex(/^\d{1,3},\d{1,3},\d{1,3}$/)
          .describe('R,G,B, only with background_mode solid, e.g. "0,177,64"')
          .optional(),
        wait: z.boolean().default(true).describe('Wait for the finished video (true) or return the queued render at once (false)'),
        output_path: z.string().describe('Absolute local path to save the finished MP4 to').optional(),
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      try {
        const r = await m.renders.create({
          character: a.image,
          characterId: a.character_id,
          motion: a.video,
          motionId: a.motion_id,
          backgroundMode: a.background_mode,
          bgColor: a.bg_color,
          signal: extra.signal,
        });
        await progress(extra as Extra, 0, 'queued');
        return await finish(r as unknown as Video, a.wait, a.output_path, extra as Extra);
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'create_video',
    {
      title: 'Generate a video from a prompt',
      description:
        'Generates a video with native audio from a text prompt (H3 mode), optionally starting from first_frame. ' +
        'With driving_video (and character_image or character_id) it instead animates the character with that motion. ' +
        'Costs 1 credit per second (5 per second at 4k). Waits for the result by default, with progress notifications, and returns it as a resource link.',
      inputSchema: {
        prompt: z.string().max(2000).describe('What the video shows (required unless driving_video is given)').optional(),
        duration_s: z.number().min(3).max(15).describe('Length in seconds (default 5)').optional(),
        resolution: z.enum(['480p', '768p', '1080p', '2k', '4k']).describe('Short side of the frame (default 768p)').optional(),
        aspect_ratio: z.enum(['16:9', '9:16', '1:1', '4:3', '3:4', '21:9']).optional(),
        quality: z.enum(['low', 'high']).describe('low iterates faster; high spends more time; same price').optional(),
        seed: z.number().int().min(0).describe('Same inputs and seed give the same video').optional(),
        first_frame: pathOrUrl('Image the video starts from').optional(),
        character_image: pathOrUrl('Animate mode: the character picture').optional(),
        character_id: z.string().startsWith('char_').describe('Animate mode: a ready Character instead of character_image').optional(),
        driving_video: pathOrUrl('Animate mode: the driving video').optional(),
        wait: z.boolean().default(true).describe('Wait for the finished video'),
        output_path: z.string().describe('Absolute local path to save the MP4 to').optional(),
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (a, extra) => {
      try {
        if (!a.prompt && !a.driving_video) return failure(new Error('Give prompt (H3 generation) or driving_video (character animation).'));
        const v = await m.videos.create({
          prompt: a.prompt,
          duration_s: a.duration_s,
          resolution: a.resolution,
          aspect_ratio: a.aspect_ratio,
          quality: a.quality,
          seed: a.seed,
          character_id: a.character_id,
          firstFrame: a.first_frame,
          character: a.character_image,
          drivingVideo: a.driving_video,
          signal: extra.signal,
        });
        return await finish(v, a.wait, a.output_path, extra as Extra);
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'get_status',
    {
      title: 'Status of a job',
      description:
        'Current state of a render (render_...), generated video (vid_..., anim_...), character (char_...) or motion (mot_...): status, progress, error, and the video as a resource link once ready. Poll every 3-5 seconds.',
      inputSchema: { id: z.string().min(1).describe('The full ID as returned, with its prefix') },
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      try {
        const r = await m.get(id);
        if ('video_url' in r) return { content: [{ type: 'text', text: summary(r) }, ...links(r)], structuredContent: { resource: r } };
        return {
          content: [{ type: 'text', text: `${r.id}: ${r.status}${r.progress !== null ? ` ${r.progress}%` : ''} (${r.name || 'unnamed'})` }],
          structuredContent: { resource: r },
        };
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'list_videos',
    {
      title: 'List videos',
      description:
        'Renders and generated videos of the account, newest first, one page at a time. Ready ones come with resource links. Pass next_cursor from the previous answer as cursor for the next page.',
      inputSchema: {
        status: STATUS.describe('Only videos in this state').optional(),
        limit: z.number().int().min(1).max(100).default(20),
        cursor: z.string().min(1).describe('next_cursor of the previous page').optional(),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ status, limit, cursor }) => {
      try {
        const page = await m.unwrap(m.api.GET('/v1/videos', { params: { query: { status, limit, cursor } } }));
        const items = page.items as Video[];
        const text = items.length ? items.map(summary).join('\n') : 'No videos.';
        return {
          content: [
            { type: 'text', text: text + (page.has_more ? `\nMore: call again with cursor ${page.next_cursor}` : '') },
            ...items.flatMap((v) => links(v)),
          ],
          structuredContent: { items, next_cursor: page.next_cursor, has_more: page.has_more },
        };
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'download_video',
    {
      title: 'Download a video',
      description: 'Saves a ready video (render_, vid_ or anim_ ID) as an MP4 on this machine and returns it as a file:// resource link.',
      inputSchema: {
        id: z.string().min(1).describe('ID of a ready video'),
        output_path: z.string().min(1).describe('Absolute path of the MP4 file to write'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async ({ id, output_path }) => {
      try {
        const path = resolve(output_path);
        const bytes = await m.videos.downloadTo(id, path);
        const v = await m.videos.get(id);
        return {
          content: [{ type: 'text', text: `Saved ${id} to ${path} (${bytes} bytes)` }, ...links(v, path)],
          structuredContent: { id, path, bytes },
        };
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'list_motion_templates',
    {
      title: 'List motion templates',
      description:
        'Ready-made motions (dance, wave, walk...). Import one with import_motion_template to get a motion_id for create_render.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => {
      try {
        const items = await m.motions.templates();
        return {
          content: [{ type: 'text', text: items.map((t) => `${t.id}: ${t.name} (${t.duration_s} s)`).join('\n') }],
          structuredContent: { items },
        };
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'import_motion_template',
    {
      title: 'Import a motion template',
      description: 'Creates a reusable Motion from a template (free) and waits until it is ready; returns its motion_id for create_render.',
      inputSchema: {
        template_id: z.string().min(1).describe('A template ID from list_motion_templates, e.g. tpl_wave'),
        name: z.string().max(256).optional(),
      },
      annotations: { idempotentHint: false },
    },
    async ({ template_id, name }, extra) => {
      try {
        const r = await m.motions.import(template_id, { name });
        const ready = await m.waitFor(r.id, { intervalMs: 1000, signal: extra.signal });
        return {
          content: [{ type: 'text', text: `${ready.id}: ${ready.status}` }],
          structuredContent: { motion: ready },
          isError: ready.status !== 'ready',
        };
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    'get_balance',
    {
      title: 'Credit balance',
      description:
        'Credits the account can still spend and credits held by running jobs (1 credit = $0.01; a render costs 1 credit per second of video).',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => {
      try {
        const c = await m.credits.get();
        return {
          content: [{ type: 'text', text: `Balance ${c.balance} credits (${c.reserved} reserved by running jobs)` }],
          structuredContent: c,
        };
      } catch (e) {
        return failure(e);
      }
    },
  );

  return server;
}

export async function serveStdio(opts: { apiKey: string; baseUrl: string }): Promise<void> {
  const m = new Marionette({ apiKey: opts.apiKey, baseUrl: opts.baseUrl, sourceLabel: `marionette-mcp/${SDK_VERSION}` });
  const server = createMcpServer(m);
  await server.connect(new StdioServerTransport());
}
