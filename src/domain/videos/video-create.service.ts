import { rm } from 'node:fs/promises';
import { ORIGINAL_BACKGROUND, backgroundColumns } from '../renders/background.js';
import { storageKeys } from '../storage-keys.js';
import { newId } from '../../contracts/ids.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { reserve } from '../billing/billing.service.js';
import { h3PriceMilli } from '../billing/prices.js';
import { announceRenderEvent, appendRenderEvent } from '../events/render-events.js';
import { checkImageFile } from '../media/media-check.js';
import { createRender, type RenderContext } from '../renders/renders.service.js';
import { checkInputUrl } from '../renders/render-sources.js';
import * as repo from '../renders/renders.repository.js';
import { parseVideoRequest, type H3Request, type ImageSource, type RawVideoRequest } from './video-request.js';
import type { Ports } from '../ports/index.js';

/**
 * POST /v1/videos. Character animation (`anim_`) is a render composited into the driving scene:
 * the render path does the sources, the reservation (ceil of the driving seconds) and the job.
 * H3 (`vid_`) reserves its price, records the validated request and enqueues `video.generate`.
 * Uploaded files are owned by this call and removed whatever the outcome.
 */
type Deps = Pick<Ports, 'clock' | 'db' | 'storage' | 'config' | 'engine' | 'pubsub' | 'queue' | 'tmpDir'>;

/** Where an H3 video's input frames are kept (beside a render's inputs, same layout). */

/** How an H3 row records its frames (`params_json`). */
export type StoredFrame = { kind: 'stored'; key: string } | { kind: 'url'; url: string } | null;

export interface H3Params {
  prompt: string;
  quality: 'low' | 'high';
  duration_s: number;
  resolution: string;
  aspect_ratio: string;
  width: number;
  height: number;
  enhance_mode: 'off' | 'prompt';
  target_tags: string[];
  watermark: boolean;
  model: string | null;
  first_frame: StoredFrame;
  last_frame: StoredFrame;
}

export async function createVideo(deps: Deps, ctx: RenderContext, raw: RawVideoRequest): Promise<VideosTable> {
  const files = Object.values(raw.files).map((f) => f.path);
  try {
    const req = parseVideoRequest(raw);
    if (req.mode === 'animate') {
      return await createRender(
        deps as Deps,
        ctx,
        { character: req.character, motion: req.motion, background: ORIGINAL_BACKGROUND },
        {
          family: 'animation',
          params: { prompt: req.prompt, watermark: req.watermark, model: req.model },
          seed: req.seed,
        },
      );
    }
    return await createH3(deps, ctx, req);
  } finally {
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
}

async function createH3(deps: Deps, ctx: RenderContext, req: H3Request): Promise<VideosTable> {
  // Cheap checks first, then the media probes; nothing is stored before both pass.
  const frames: Array<[ImageSource | null, 'first_frame' | 'last_frame']> = [
    [req.firstFrame, 'first_frame'],
    [req.lastFrame, 'last_frame'],
  ];
  for (const [src, which] of frames) if (src?.kind === 'url') checkInputUrl(deps, src.url, `${which}_image_url`);
  for (const [src] of frames) if (src?.kind === 'file') await checkImageFile(deps, src.path);

  const id = newId('h3Video');
  const stored = async (src: ImageSource | null, which: 'first_frame' | 'last_frame'): Promise<StoredFrame> => {
    if (!src) return null;
    if (src.kind === 'url') return { kind: 'url', url: src.url };
    await deps.storage.putFile(storageKeys.renderInput(id, which), src.path);
    return { kind: 'stored', key: storageKeys.renderInput(id, which) };
  };
  let committed = false;
  try {
    const params: H3Params = {
      prompt: req.prompt,
      quality: req.quality,
      duration_s: req.durationS,
      resolution: req.resolution,
      aspect_ratio: req.aspectRatio,
      width: req.width,
      height: req.height,
      enhance_mode: req.enhance ? 'prompt' : 'off',
      target_tags: req.tags,
      watermark: req.watermark,
      model: req.model,
      first_frame: await stored(req.firstFrame, 'first_frame'),
      last_frame: await stored(req.lastFrame, 'last_frame'),
    };
    const price = h3PriceMilli(req.durationS, req.resolution);
    const now = deps.clock.nowIso();
    const row: VideosTable = {
      id,
      account_id: ctx.accountId,
      kind: 'h3',
      status: 'queued',
      progress: 0,
      stage: null,
      ...backgroundColumns(ORIGINAL_BACKGROUND),
      character_source: JSON.stringify(params.first_frame ?? { kind: 'builtin' }),
      motion_source: JSON.stringify({ kind: 'generated' }),
      params_json: JSON.stringify(params),
      seed: req.seed,
      enhanced_prompt: null,
      video_key: null,
      alpha_key: null,
      estimated_ms: Math.round(req.durationS * 1000),
      duration_ms: null,
      reserved_milli: price,
      error_json: null,
      request_id: ctx.requestId,
      service_source: ctx.serviceSource,
      draft_id: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      completed_at: null,
    };
    await deps.db.transaction().execute(async (tx) => {
      await repo.insertVideo(tx, row);
      await reserve(tx, ctx.accountId, id, price);
      await appendRenderEvent(tx, row, 'queued');
      await deps.queue.enqueueInTx(tx, {
        type: 'video.generate',
        resourceId: id,
        payload: {},
        maxAttempts: deps.config.workers.maxAttempts,
      });
    });
    committed = true;
    await announceRenderEvent(deps.pubsub, id);
    deps.queue.notify();
    return row;
  } finally {
    // Refused after the frames were copied (e.g. INSUFFICIENT_CREDITS): nothing may stay in storage.
    if (!committed) await deps.storage.deletePrefix(storageKeys.renderPrefix(id)).catch(() => {});
  }
}
