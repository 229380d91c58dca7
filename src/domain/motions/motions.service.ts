import { AppError, invalidRequest } from '../../contracts/errors.js';
import { storageKeys } from '../storage-keys.js';
import { isIdOf, newId } from '../../contracts/ids.js';
import { MOTIONS_PAGE_DEFAULT, MOTIONS_PAGE_MAX } from '../../contracts/limits.js';
import { isUniqueViolation, type Db } from '../../infra/db/database.js';
import type { MotionsTable } from '../../infra/db/schema.js';
import type { RequestCtx } from '../characters/characters.service.js';
import { withoutEmpty, type Fields, type FormFile } from '../characters/form-fields.js';
import { checkVideoFile } from '../media/media-check.js';
import { parseMotionForm, type MotionInput } from './motions.input.js';
import * as repo from './motions.repository.js';
import { assetNotFound, MOTION_FAMILY, taskIdConflict as sharedTaskIdConflict } from '../assets/asset-errors.js';
import type { Ports } from '../ports/index.js';
import { isTaskConflict, replayOrConflict, taskFingerprint } from '../assets/task-fingerprint.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'queue' | 'storage'>;

/**
 * Motions: creation from a driving video or a template, reads, a cursor list, soft delete and
 * export. Motions cost nothing (DECISIONS "Credits"). Status changes live in motions.state.ts.
 */
/** The 3D exports inside a Motion's assets, written by the (later) glb extraction worker. */
export const EXPORT_FILES = { metahuman: 'metahuman', mixamo: 'mixamo' } as const;

export function motionNotFound(id: string): AppError {
  return assetNotFound(MOTION_FAMILY, id);
}

const taskIdConflict = (taskId: string) => sharedTaskIdConflict(MOTION_FAMILY, taskId);

export async function getMotion(deps: Pick<Ports, 'db'>, accountId: string, id: string): Promise<MotionsTable> {
  if (!isIdOf('motion', id)) throw motionNotFound(id);
  const row = await repo.findOwned(deps.db, accountId, id);
  if (!row) throw motionNotFound(id);
  return row;
}

export interface TemplateView {
  id: string;
  name: string;
  duration_s: number;
}

export function listTemplates(deps: Pick<Ports, 'engine'>): TemplateView[] {
  return deps.engine.listTemplates().map((t) => ({ id: t.id, name: t.name, duration_s: t.durationS }));
}

/** Inserts the row and its `motion.extract` job in one transaction, then wakes the workers. */
async function insertWithJob(deps: Pick<Ports, 'db' | 'queue' | 'config'>, row: MotionsTable): Promise<MotionsTable> {
  const replay = async (): Promise<MotionsTable | null> => {
    if (row.task_id === null) return null;
    const existing = await repo.findByTaskId(deps.db, row.account_id, row.task_id);
    if (!existing) return null;
    const taskId = row.task_id;
    return getMotion(
      deps,
      row.account_id,
      replayOrConflict(existing, row.task_fingerprint ?? '', () => taskIdConflict(taskId)),
    );
  };
  // The same task_id with the same request: the existing Motion (DECISIONS "3D outputs").
  const earlier = await replay();
  if (earlier) return earlier;
  try {
    await deps.db.transaction().execute(async (tx: Db) => {
      if (row.task_id !== null && (await repo.findByTaskId(tx, row.account_id, row.task_id))) throw taskIdConflict(row.task_id);
      await repo.insertMotion(tx, row);
      await deps.queue.enqueueInTx(tx, {
        type: 'motion.extract',
        resourceId: row.id,
        payload: {},
        maxAttempts: deps.config.workers.maxAttempts,
      });
    });
  } catch (e) {
    // Two concurrent creations with one task_id: the unique index refuses the second, which then
    // answers like a later retry.
    if (row.task_id !== null && (isUniqueViolation(e) || isTaskConflict(e))) {
      const winner = await replay();
      if (winner) return winner;
      throw taskIdConflict(row.task_id);
    }
    throw e;
  }
  deps.queue.notify();
  return row;
}

/**
 * Creates a queued Motion from a received form. The caller owns the form's temp files and removes
 * them afterwards; on refusal nothing of this Motion remains in storage or in the database.
 */
export async function createMotion(
  deps: Deps,
  ctx: RequestCtx,
  form: { fields: Fields; files: Record<string, FormFile> },
): Promise<MotionsTable> {
  const sent = withoutEmpty(form);
  const input = parseMotionForm(sent.fields, sent.files, deps.config);
  // Probed at the door, so renders can estimate their cost from a Motion before it is processed.
  const durationMs = input.source.kind === 'file' ? (await checkVideoFile(deps, input.source.path)).durationMs : null;
  const id = newId('motion');
  const sourceKey = storageKeys.motionSource(id);
  const fingerprint = input.taskId !== null ? await taskFingerprint(input) : null;
  if (input.source.kind === 'file') await deps.storage.putFile(sourceKey, input.source.path);
  try {
    const row = await insertWithJob(deps, {
      ...newRow(id, ctx, input, { sourceKey, durationMs }, deps.clock.nowIso()),
      task_fingerprint: fingerprint,
    });
    // A task_id replay answered the earlier Motion: this request's copy of the source is not needed.
    if (row.id !== id && input.source.kind === 'file') await deps.storage.deletePrefix(storageKeys.motionPrefix(id));
    return row;
  } catch (e) {
    if (input.source.kind === 'file') await deps.storage.deletePrefix(storageKeys.motionPrefix(id));
    throw e;
  }
}

/** Imports a template (JSON `{template_id, name?}`): a queued Motion whose worker writes the template's assets. */
export async function importMotion(deps: Deps, ctx: RequestCtx, body: { template_id: string; name?: string }): Promise<MotionsTable> {
  const template = deps.engine.listTemplates().find((t) => t.id === body.template_id);
  if (!template) {
    throw new AppError(
      'MOTION_TEMPLATE_NOT_FOUND',
      `No motion template ${body.template_id.slice(0, 80)}; GET /v1/motions/templates lists them.`,
      {
        details: { template_id: body.template_id.slice(0, 80) },
      },
    );
  }
  const now = deps.clock.nowIso();
  return insertWithJob(deps, {
    ...baseRow(newId('motion'), ctx, now),
    name: body.name ?? template.name,
    source_kind: 'template',
    template_id: template.id,
    duration_ms: Math.round(template.durationS * 1000),
  });
}

function baseRow(id: string, ctx: RequestCtx, now: string): MotionsTable {
  return {
    id,
    account_id: ctx.accountId,
    name: '',
    type: 'render',
    status: 'queued',
    progress: 0,
    enable_smoothing: 1,
    target_fps: null,
    joint_set: 'body',
    task_id: null,
    glb_status: null,
    source_kind: 'upload',
    source_key: null,
    source_url: null,
    template_id: null,
    assets_key: null,
    duration_ms: null,
    failure_json: null,
    request_id: ctx.requestId,
    service_source: ctx.serviceSource,
    created_at: now,
    updated_at: now,
    completed_at: null,
    deleted_at: null,
  };
}

function newRow(
  id: string,
  ctx: RequestCtx,
  input: MotionInput,
  src: { sourceKey: string; durationMs: number | null },
  now: string,
): MotionsTable {
  return {
    ...baseRow(id, ctx, now),
    name: input.name,
    type: input.type,
    enable_smoothing: input.enableSmoothing ? 1 : 0,
    target_fps: input.targetFps,
    joint_set: input.jointSet,
    task_id: input.taskId,
    glb_status: input.type === 'render' ? null : 'queued',
    source_kind: input.source.kind === 'file' ? 'upload' : 'url',
    source_key: input.source.kind === 'file' ? src.sourceKey : null,
    source_url: input.source.kind === 'url' ? input.source.url : null,
    duration_ms: src.durationMs,
  };
}

/** Cursors are opaque to clients: a version tag and the last ID of the page, base64url-encoded. */
const CURSOR_TAG = 'm1:';

function encodeCursor(lastId: string): string {
  return Buffer.from(CURSOR_TAG + lastId, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = raw.startsWith(CURSOR_TAG) ? raw.slice(CURSOR_TAG.length) : '';
  if (!isIdOf('motion', id)) throw invalidRequest('The cursor is not valid; use next_cursor from a previous page.', { field: 'cursor' });
  return id;
}

export interface MotionPage {
  rows: MotionsTable[];
  nextCursor: string | null;
  hasMore: boolean;
}

export async function listMotions(
  deps: Pick<Ports, 'db'>,
  accountId: string,
  query: { limit?: number; cursor?: string },
): Promise<MotionPage> {
  const limit = query.limit ?? MOTIONS_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MOTIONS_PAGE_MAX) {
    throw invalidRequest(`The query parameter limit must be an integer from 1 to ${MOTIONS_PAGE_MAX}.`, { field: 'limit' });
  }
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
  // One extra row tells whether another page exists without a COUNT.
  const rows = await repo.listPage(deps.db, accountId, limit + 1, before);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  return { rows: page, hasMore, nextCursor: hasMore ? encodeCursor(page[page.length - 1].id) : null };
}

/** Offset paging over every active Motion, newest first (Legacy `GET /api/scenes`; limits as Characters). */
export async function listMotionsByOffset(
  deps: Pick<Ports, 'db'>,
  accountId: string,
  q: { limit?: number; offset?: number },
): Promise<MotionsTable[]> {
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MOTIONS_PAGE_MAX) {
    throw invalidRequest(`limit must be an integer from 1 to ${MOTIONS_PAGE_MAX}.`, { field: 'limit', value: q.limit });
  }
  if (!Number.isInteger(offset) || offset < 0)
    throw invalidRequest('offset must be an integer of at least 0.', { field: 'offset', value: q.offset });
  return repo.listActiveOffset(deps.db, accountId, limit, offset);
}

/** Soft delete; stored assets stay so renders that used the Motion keep working (DECISIONS "Motions"). */
export async function deleteMotion(
  deps: Pick<Ports, 'clock' | 'db' | 'queue'>,
  accountId: string,
  id: string,
): Promise<{ id: string; status: 'deleted' }> {
  if (!isIdOf('motion', id)) throw motionNotFound(id);
  const n = await repo.softDelete(deps.db, accountId, id, deps.clock.nowIso());
  if (n === 0) throw motionNotFound(id);
  await deps.queue.cancel(id);
  return { id, status: 'deleted' };
}

export interface MotionExport {
  id: string;
  metahuman_url: string | null;
  mixamo_url: string | null;
}

/**
 * Export (spec 4.4): `download_type` `glb` or `fbx` picks the file format of the 3D animation.
 * A Motion created with type=render has none (409 EXTRACTION_UNAVAILABLE); while the glb
 * extraction is not ready: 409 EXTRACTION_UNAVAILABLE; when it failed: 422 EXTRACTION_FAILED.
 */
export async function exportMotion(
  deps: Pick<Ports, 'db' | 'storage' | 'config'>,
  accountId: string,
  id: string,
  downloadType: string,
): Promise<MotionExport> {
  const row = await getMotion(deps, accountId, id);
  if (downloadType !== 'glb' && downloadType !== 'fbx') {
    throw invalidRequest('The query parameter download_type must be glb or fbx.', { field: 'download_type' });
  }
  if (row.type === 'render') {
    throw new AppError(
      'EXTRACTION_UNAVAILABLE',
      'This Motion was created with type=render and has no 3D animation; create one with type=glb or type=all.',
      {
        details: { type: row.type, glb_status: null },
        action: 'fix_input',
      },
    );
  }
  if (row.glb_status === 'failed') {
    throw new AppError('EXTRACTION_FAILED', 'The 3D animation extraction of this Motion failed.', {
      details: { type: row.type, glb_status: row.glb_status },
    });
  }
  const keyOf = (base: string) => (row.assets_key === null ? null : storageKeys.assetFile(row.assets_key, `${base}.${downloadType}`));
  const metahuman = keyOf(EXPORT_FILES.metahuman);
  if (row.glb_status !== 'ready' || metahuman === null || !(await deps.storage.stat(metahuman))) {
    throw new AppError('EXTRACTION_UNAVAILABLE', `The 3D animation of this Motion is not ready (status ${row.glb_status ?? 'queued'}).`, {
      details: { type: row.type, glb_status: row.glb_status },
    });
  }
  const ttl = deps.config.outputUrlTtlSeconds;
  const mixamo = keyOf(EXPORT_FILES.mixamo)!;
  return {
    id: row.id,
    metahuman_url: await deps.storage.signedGetUrl(metahuman, ttl, { downloadName: `${row.id}-metahuman.${downloadType}` }),
    mixamo_url: (await deps.storage.stat(mixamo))
      ? await deps.storage.signedGetUrl(mixamo, ttl, { downloadName: `${row.id}-mixamo.${downloadType}` })
      : null,
  };
}
