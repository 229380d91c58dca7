import { rm } from 'node:fs/promises';
import { storageKeys } from '../storage-keys.js';
import { AppError } from '../../contracts/errors.js';
import { isIdOf, newId } from '../../contracts/ids.js';
import type { Db } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { reserve } from '../billing/billing.service.js';
import { animationPriceMilli, renderReservationMilli } from '../billing/prices.js';
import { announceRenderEvent, appendRenderEvent } from '../events/render-events.js';
import { ORIGINAL_BACKGROUND, backgroundColumns } from './background.js';
import { parseRenderForm, type RenderForm, type RenderInput } from './render-input.js';
import {
  cheapCharacter,
  cheapMotion,
  defaultSources,
  probeSources,
  resolveInputShape,
  type PendingCharacter,
  type PendingMotion,
} from './render-sources.js';
import * as repo from './renders.repository.js';
import { findRenderById } from './render-state.repository.js';
import type { Ports } from '../ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

export type { RenderInput, CharacterSource, MotionSource } from './render-input.js';

export interface RenderContext {
  accountId: string;
  requestId: string;
  serviceSource: string | null;
}

export interface CreateRenderOptions {
  draftId?: string;
  /** Runs inside the creation transaction (draft consumption, idempotency record). */
  inTx?: (tx: Db, renderId: string) => Promise<void>;
  /**
   * `animation`: a character-animation video of POST /v1/videos (`anim_` ID): the same sources,
   * billing and job as a render, composited into the driving scene (see docs/generation.md).
   */
  family?: 'render' | 'animation';
  /** Recorded on the row (`params_json`, `seed`) for the worker. */
  params?: Record<string, unknown>;
  seed?: number | null;
}

/**
 * Creates a Render: validates its sources, then in ONE transaction inserts the row (queued,
 * progress 0), reserves the estimate, appends the `queued` event and enqueues `render.run`, so a
 * render never exists without its reservation and its job, and a refused reservation leaves
 * nothing behind. Direct uploads (`file` sources) are owned by this call: they are removed whatever
 * the outcome, after being copied into storage on success.
 *
 * A URL motion's duration is unknown until it is fetched: nothing is reserved here and the worker
 * reserves `ceil(measured seconds)` before rendering (docs/api-decisions.md, "Renders and Videos").
 */
export async function createRender(
  deps: Deps,
  ctx: RenderContext,
  input: RenderInput,
  opts: CreateRenderOptions = {},
): Promise<VideosTable> {
  const localFiles = [input.character, input.motion].flatMap((s) => (s?.kind === 'file' ? [s.path] : []));
  const family = opts.family ?? 'render';
  const renderId = newId(family);
  let stored = false;
  try {
    let character: PendingCharacter;
    let motion: PendingMotion;
    if (resolveInputShape(input) === 'defaults') {
      ({ character, motion } = await defaultSources(deps, ctx.accountId));
    } else {
      character = await cheapCharacter(deps, ctx.accountId, input.character!);
      motion = await cheapMotion(deps, ctx.accountId, input.motion!);
    }
    const resolved = await probeSources(deps, character, motion);
    stored = true;
    if (resolved.uploads.image) {
      await deps.storage.putFile(storageKeys.renderInput(renderId, 'image'), resolved.uploads.image);
      resolved.character = { kind: 'stored', key: storageKeys.renderInput(renderId, 'image') };
    }
    if (resolved.uploads.video) {
      await deps.storage.putFile(storageKeys.renderInput(renderId, 'video'), resolved.uploads.video);
      resolved.motion = { kind: 'stored', key: storageKeys.renderInput(renderId, 'video') };
    }

    const now = deps.clock.nowIso();
    const reservedMilli =
      resolved.estimatedMs === null
        ? 0
        : family === 'animation'
          ? animationPriceMilli(resolved.estimatedMs)
          : renderReservationMilli(resolved.estimatedMs);
    const row: VideosTable = {
      id: renderId,
      account_id: ctx.accountId,
      kind: family,
      params_json: opts.params ? JSON.stringify(opts.params) : null,
      seed: opts.seed ?? null,
      enhanced_prompt: null,
      status: 'queued',
      progress: 0,
      stage: null,
      ...backgroundColumns(input.background),
      character_source: JSON.stringify(resolved.character),
      motion_source: JSON.stringify(resolved.motion),
      video_key: null,
      alpha_key: null,
      estimated_ms: resolved.estimatedMs ?? 0,
      duration_ms: null,
      reserved_milli: reservedMilli,
      error_json: null,
      request_id: ctx.requestId,
      service_source: ctx.serviceSource,
      draft_id: opts.draftId ?? null,
      created_at: now,
      updated_at: now,
      started_at: null,
      completed_at: null,
    };
    await deps.db.transaction().execute(async (tx) => {
      await repo.insertVideo(tx, row);
      // Unknown estimate (URL motion): no ledger row yet, so the worker's reservation is the one.
      if (resolved.estimatedMs !== null) await reserve(tx, ctx.accountId, renderId, reservedMilli);
      await appendRenderEvent(tx, row, 'queued');
      await deps.queue.enqueueInTx(tx, {
        type: 'render.run',
        resourceId: renderId,
        payload: {},
        maxAttempts: deps.config.workers.maxAttempts,
      });
      if (opts.inTx) await opts.inTx(tx, renderId);
    });
    stored = false;
    await announceRenderEvent(deps.pubsub, renderId);
    deps.queue.notify();
    return row;
  } finally {
    await Promise.all(localFiles.map((f) => rm(f, { force: true })));
    // Refused after inputs were copied (e.g. INSUFFICIENT_CREDITS): nothing may stay in storage.
    if (stored) await deps.storage.deletePrefix(storageKeys.renderPrefix(renderId)).catch(() => {});
  }
}

/** POST /v1/renders with a multipart body: the direct form (spec 4.1). */
export async function createRenderFromForm(
  deps: Deps,
  ctx: RenderContext,
  form: RenderForm,
  opts: CreateRenderOptions = {},
): Promise<VideosTable> {
  let input: RenderInput;
  try {
    input = parseRenderForm(form);
  } catch (e) {
    await Promise.all(Object.values(form.files).map((f) => rm(f.path, { force: true })));
    throw e;
  }
  return createRender(deps, ctx, input, opts);
}

/** POST /v1/renders without a body (the README's first curl line): the project defaults. */
export async function createDefaultRender(deps: Deps, ctx: RenderContext): Promise<VideosTable> {
  return createRender(deps, ctx, { character: null, motion: null, background: ORIGINAL_BACKGROUND });
}

/**
 * A render read by its ID. With an account, only that account's render (others answer 404 like a
 * missing one). Without one, any render: the Legacy status URL is polled without a credential and its
 * 80 random bits are the capability (DECISIONS "Legacy interface"); the caller decides when that is allowed.
 */
export async function findRenderRow(deps: Pick<Ports, 'db'>, accountId: string | null, id: string): Promise<VideosTable> {
  const row = !isIdOf('render', id)
    ? undefined
    : accountId === null
      ? await findRenderById(deps.db, id)
      : await repo.findRender(deps.db, accountId, id);
  if (!row) throw new AppError('RENDER_NOT_FOUND', `No render ${id} exists for this account.`, { details: { render_id: id } });
  return row;
}

/** GET /v1/renders/{id}/download: a fresh signed URL of the finished video. */
export async function renderDownloadUrl(deps: Deps, accountId: string, id: string): Promise<string> {
  const row = isIdOf('render', id) ? await repo.findRender(deps.db, accountId, id) : undefined;
  if (!row) throw new AppError('RENDER_NOT_FOUND', `No render ${id} exists for this account.`, { details: { render_id: id } });
  if (row.status !== 'ready' || !row.video_key) {
    throw new AppError('INVALID_REQUEST', `Render ${id} is ${row.status}; its video can be downloaded once it is ready.`, {
      situation: 'conflict',
      action: row.status === 'queued' || row.status === 'processing' ? 'wait_until_ready' : 'correct_request',
      details: { render_id: id, status: row.status },
    });
  }
  return deps.storage.signedGetUrl(row.video_key, deps.config.outputUrlTtlSeconds, { downloadName: `${id}.mp4` });
}
