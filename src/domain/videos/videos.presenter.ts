import { ERROR_CATALOGUE, type ErrorCode } from '../../contracts/errors.js';
import type { VideosTable } from '../../infra/db/schema.js';
import type { Ports } from '../ports/index.js';
import type { VideoViewRow } from './videos.repository.js';

/**
 * The Render object of spec 2.3, shared by render creation, Get Video and List Videos (the latter
 * two without `links`). Output URLs are signed at read time, so every read hands out a fresh one.
 */
export interface RenderErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  request_id: string | null;
  details: Record<string, unknown>;
  remediation: { action: string; retry_after_ms: number | null };
}

export interface RenderObject {
  id: string;
  status: VideosTable['status'];
  progress: number | null;
  stage: VideosTable['stage'];
  video_url: string | null;
  alpha_url: string | null;
  created_at: string | null;
  completed_at: string | null;
  error: RenderErrorBody | null;
  links?: { self: string; events: string; download: string };
  /** H3 (`vid_`): the seed used. */
  seed?: number;
  /** H3 with enhance_mode=prompt, once generated: the expanded prompt. */
  enhanced_prompt?: string;
}

type PresentDeps = Pick<Ports, 'storage' | 'config'>;

export async function signedOutputUrls(
  deps: PresentDeps,
  row: Pick<VideosTable, 'status' | 'video_key' | 'alpha_key'>,
): Promise<{ video_url: string | null; alpha_url: string | null }> {
  if (row.status !== 'ready') return { video_url: null, alpha_url: null };
  const ttl = deps.config.outputUrlTtlSeconds;
  return {
    video_url: row.video_key ? await deps.storage.signedGetUrl(row.video_key, ttl) : null,
    alpha_url: row.alpha_key ? await deps.storage.signedGetUrl(row.alpha_key, ttl) : null,
  };
}

/**
 * The stored failure as the spec's error envelope body. Whatever a worker stored, the client gets
 * every envelope field, with the catalogue's defaults filling gaps and the creating request's ID
 * as the correlation ID when the worker could not carry it.
 */
export function presentError(row: Pick<VideosTable, 'error_json' | 'request_id'>): RenderErrorBody | null {
  if (!row.error_json) return null;
  let raw: Record<string, any>;
  try {
    raw = JSON.parse(row.error_json) as Record<string, any>;
  } catch {
    raw = {};
  }
  const body = (raw.error && typeof raw.error === 'object' ? raw.error : raw) as Record<string, any>;
  const code = typeof body.code === 'string' && body.code in ERROR_CATALOGUE ? (body.code as ErrorCode) : 'INTERNAL_ERROR';
  const spec = ERROR_CATALOGUE[code];
  const remediation = (body.remediation ?? {}) as Record<string, unknown>;
  return {
    code,
    message: typeof body.message === 'string' ? body.message : 'The render failed.',
    retryable: typeof body.retryable === 'boolean' ? body.retryable : spec.retryable,
    request_id: typeof body.request_id === 'string' ? body.request_id : row.request_id,
    details: body.details && typeof body.details === 'object' ? (body.details as Record<string, unknown>) : {},
    remediation: {
      action: typeof remediation.action === 'string' ? remediation.action : typeof body.action === 'string' ? body.action : spec.action,
      retry_after_ms: typeof remediation.retry_after_ms === 'number' ? remediation.retry_after_ms : null,
    },
  };
}

export async function presentVideo(deps: PresentDeps, row: VideoViewRow, opts: { links: boolean }): Promise<RenderObject> {
  const urls = await signedOutputUrls(deps, row);
  const out: RenderObject = {
    id: row.id,
    status: row.status,
    progress: row.progress === null ? null : Math.max(0, Math.min(100, Math.round(Number(row.progress)))),
    // The spec defines stage only while processing; a leftover value on a terminal row means nothing.
    stage: row.status === 'processing' ? row.stage : null,
    video_url: urls.video_url,
    alpha_url: urls.alpha_url,
    created_at: row.created_at,
    completed_at: row.completed_at,
    error: row.status === 'failed' ? presentError(row) : null,
  };
  if (row.kind === 'h3' && row.seed !== null && row.seed !== undefined) out.seed = Number(row.seed);
  if (row.kind === 'h3' && row.enhanced_prompt) out.enhanced_prompt = row.enhanced_prompt;
  if (opts.links) {
    const base = `${deps.config.publicUrl}/v1/renders/${row.id}`;
    out.links = { self: base, events: `${base}/events`, download: `${base}/download` };
  }
  return out;
}
