import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../contracts/errors.js';
import type { SdkBundle } from '../../infra/console/sdk-bundle.js';

/** Where the console's static files are and how its SDK module is built (src/main/wire.ts decides). */
export interface ConsoleSettings {
  /** The console/ folder of the checkout: index.html, styles, ES modules. */
  dir: string;
  sdk: SdkBundle;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Everything from this origin, nothing from elsewhere (no CDN, no external font), except what the
 * API hands out: signed output URLs, which an S3-style store serves from another host (media and
 * downloads), and blob: URLs of pictures fetched with the key.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob: https: http:",
  "connect-src 'self' https: http:",
  "font-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else if (TYPES[extname(e.name)]) out.push(p);
  }
  return out;
}

function secure(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .type(type)
    .header('Content-Security-Policy', CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-cache');
}

/**
 * The web console (docs/console.md) at /console: static files read once at start, and `sdk.js`, the
 * SDK bundled for the browser. No authentication here: the page holds no data, and every call it
 * makes sends the key the person typed (kept in the tab's sessionStorage) to /v1 like any client.
 */
export async function consoleRoutes(app: FastifyInstance, settings: ConsoleSettings): Promise<void> {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const file of await listFiles(settings.dir)) {
    const path = relative(settings.dir, file).split(sep).join('/');
    files.set(path, { body: await readFile(file), type: TYPES[extname(file)]! });
  }
  const index = files.get('index.html');
  if (!index) throw new Error(`console: no index.html in ${settings.dir}`);

  app.get('/console', async (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', async (_request, reply) => secure(reply, index.type).send(index.body));
  app.get<{ Params: { '*': string } }>('/console/*', async (request, reply) => {
    const path = request.params['*'];
    if (path === 'sdk.js') return secure(reply, TYPES['.js']!).send(await settings.sdk.code());
    const file = files.get(path);
    if (!file)
      throw new AppError('INVALID_REQUEST', `No console file ${path.slice(0, 100)}.`, {
        status: 404,
        details: { path: path.slice(0, 100) },
      });
    return secure(reply, file.type).send(file.body);
  });
}
