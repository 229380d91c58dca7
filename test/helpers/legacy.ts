import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { resolveTools } from '../../src/engine/media/ffmpeg.js';

/** Helpers shared by the Legacy /api suites. */

export type Part = string | { file: string; name?: string } | { bytes: Buffer | Uint8Array; name: string };

export async function form(parts: Record<string, Part>): Promise<FormData> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') fd.append(k, v);
    else if ('file' in v) fd.append(k, new Blob([await readFile(v.file)]), v.name ?? 'upload.bin');
    else fd.append(k, new Blob([v.bytes]), v.name);
  }
  return fd;
}

/** A Legacy error: status, `detail.error_code` (or the 401 string) and the whole body. */
export async function legacyError(res: Response): Promise<{ status: number; code: string | null; detail: any; body: any }> {
  const body = (await res.json()) as any;
  const code = typeof body?.detail === 'object' && body.detail !== null ? body.detail.error_code : null;
  return { status: res.status, code, detail: body?.detail, body };
}

/** Every Legacy answer says it is deprecated and names its V1 successor. */
export function assertDeprecated(res: Response, successorPath: string | RegExp): void {
  assert.equal(res.headers.get('deprecation'), 'true', `${res.url}: Deprecation header`);
  const link = res.headers.get('link') ?? '';
  const m = /^<([^>]+)>; rel="successor-version"$/.exec(link);
  assert.ok(m, `${res.url}: Link header ${link}`);
  const path = new URL(m[1]).pathname;
  if (typeof successorPath === 'string') assert.equal(path, successorPath);
  else assert.match(path, successorPath);
  assert.ok(res.headers.get('x-request-id'), 'X-Request-Id as in V1');
}

const run = promisify(execFile);

/** A tiny synthetic driving video of `seconds` (64x64 test pattern, 10 fps): cheap to make and probe. */
export async function syntheticVideo(dir: string, seconds: number): Promise<string> {
  const tools = resolveTools(process.env);
  const out = join(dir, `synthetic-${seconds}s.mp4`);
  await run(tools.ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=64x64:rate=10:duration=${seconds}`,
    '-g',
    '20',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    out,
  ]);
  return out;
}
