import { AppError, invalidRequest } from '../../contracts/errors.js';
import { backgroundOfFields } from '../renders/background.js';
import { storageKeys } from '../storage-keys.js';
import { isIdOf, newId } from '../../contracts/ids.js';
import { isUniqueViolation } from '../../infra/db/database.js';
import type { DraftsTable, UploadsTable, VideosTable } from '../../infra/db/schema.js';
import type { CharacterSource, MotionSource, RenderInput } from '../renders/render-input.js';
import { createRender } from '../renders/renders.service.js';
import { findCharacterForRender, findMotionForRender } from '../renders/renders.repository.js';
import { parsePrepareBody, type DraftSpec, type FileField } from './draft-spec.js';
import {
  consumeDraft,
  deleteDrafts,
  deleteExpiredIdempotencyKeys,
  expiredOpenDrafts,
  findDraft,
  insertDraft,
  insertIdempotencyKey,
  uploadsOf,
} from './drafts.repository.js';
import { verifyDirectUpload } from './draft-uploads.service.js';
import { IDEMPOTENCY_TTL_MS, parseIdempotencyKey, replayIdempotent, requestHash } from './idempotency.js';
import type { Ports } from '../ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'pubsub' | 'queue' | 'storage' | 'tmpDir'>;

/**
 * Drafts: a render declared first (`POST /v1/renders/prepare`), its media PUT straight to storage,
 * then created with `POST /v1/renders {draft_id}` under an Idempotency-Key. Large files thus never
 * pass through a multipart form, and a client on a flaky link can retry every step safely.
 */

export interface RequestCtx {
  accountId: string;
  requestId: string;
  serviceSource: string | null;
}

export interface PreparedDraft {
  draft_id: string;
  expires_at: string;
  uploads: { field: string; method: 'PUT'; url: string; headers: Record<string, string>; expires_at: string }[];
}

/** Expired drafts are kept this long before being swept, so a PUT that began just in time can finish. */
const SWEEP_GRACE_MS = 3600 * 1000;
const SWEEP_BATCH = 20;

/**
 * Expired open drafts lose their rows and uploaded bytes, stale idempotency keys their rows; consumed
 * drafts stay, since their renders read the uploads. `accountId` null sweeps every account. One batch
 * per call; returns how many drafts went.
 */
async function sweepExpired(deps: Pick<Ports, 'db' | 'storage'>, accountId: string | null, nowMs: number): Promise<number> {
  const stale = await expiredOpenDrafts(deps.db, accountId, new Date(nowMs - SWEEP_GRACE_MS).toISOString(), SWEEP_BATCH);
  for (const id of stale) await deps.storage.deletePrefix(storageKeys.draftPrefix(id));
  await deps.db.transaction().execute((tx) => deleteDrafts(tx, stale));
  await deleteExpiredIdempotencyKeys(deps.db, accountId, new Date(nowMs).toISOString());
  return stale.length;
}

/**
 * The workers' hourly sweep over every account, so drafts of accounts that never come back do not
 * keep their bytes (prepare also sweeps the caller's own, piggybacked on its request).
 */
export async function sweepAllExpiredDrafts(deps: Pick<Ports, 'db' | 'storage'>, nowMs = Date.now()): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await sweepExpired(deps, null, nowMs);
    total += n;
    if (n < SWEEP_BATCH) return total;
  }
}

export function draftUploadKey(draftId: string, field: FileField): string {
  return storageKeys.draftUpload(draftId, field);
}

/**
 * IDs named in a draft must exist for the account now; readiness is judged when the render is
 * created, since a Character may well finish processing while the client uploads its video.
 */
async function checkNamedAssets(deps: Deps, accountId: string, spec: DraftSpec): Promise<void> {
  if (spec.character?.kind === 'character') {
    const id = spec.character.id;
    if (!isIdOf('character', id) || !(await findCharacterForRender(deps.db, accountId, id))) {
      throw new AppError('CHARACTER_NOT_FOUND', `No Character ${id} exists for this account.`, { details: { character_id: id } });
    }
  }
  if (spec.motion?.kind === 'motion') {
    const id = spec.motion.id;
    if (!isIdOf('motion', id) || !(await findMotionForRender(deps.db, accountId, id))) {
      throw new AppError('MOTION_NOT_FOUND', `No Motion ${id} exists for this account.`, { details: { motion_id: id } });
    }
  }
}

export async function prepareDraft(deps: Deps, ctx: Pick<RequestCtx, 'accountId'>, body: unknown): Promise<PreparedDraft> {
  const { spec, declarations } = parsePrepareBody(body, deps.config);
  await checkNamedAssets(deps, ctx.accountId, spec);
  const nowMs = deps.clock.now().getTime();
  const draftId = newId('draft');
  const draftExpires = new Date(nowMs + deps.config.draftTtlSeconds * 1000).toISOString();
  // An upload URL never outlives its draft.
  const uploadTtl = Math.min(deps.config.uploadUrlTtlSeconds, deps.config.draftTtlSeconds);
  const uploadExpires = new Date((Math.floor(nowMs / 1000) + uploadTtl) * 1000).toISOString();
  const uploads: UploadsTable[] = [];
  const plans: PreparedDraft['uploads'] = [];
  for (const field of ['image', 'motion_video'] as const) {
    const d = declarations[field];
    if (!d) continue;
    const key = draftUploadKey(draftId, field);
    uploads.push({
      id: newId('upload'),
      draft_id: draftId,
      account_id: ctx.accountId,
      field,
      content_type: d.contentType,
      size_bytes: d.sizeBytes,
      sha256: d.sha256,
      storage_key: key,
      status: 'pending',
      expires_at: uploadExpires,
      uploaded_at: null,
    });
    const signed = await deps.storage.signedPutUrl(key, uploadTtl, d.contentType, {
      sizeBytes: d.sizeBytes,
      sha256: d.sha256 ?? undefined,
    });
    plans.push({ field, method: 'PUT', url: signed.url, headers: signed.headers, expires_at: uploadExpires });
  }
  const draft: DraftsTable = {
    id: draftId,
    account_id: ctx.accountId,
    spec_json: JSON.stringify(spec),
    status: 'open',
    render_id: null,
    expires_at: draftExpires,
    created_at: new Date(nowMs).toISOString(),
  };
  await deps.db.transaction().execute((tx) => insertDraft(tx, draft, uploads));
  // Housekeeping must not fail the client's request; what is left is swept on the next prepare.
  await sweepExpired(deps, ctx.accountId, nowMs).catch(() => undefined);
  return { draft_id: draftId, expires_at: draftExpires, uploads: plans };
}

function parseDraftBody(body: unknown): { draftId: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidRequest('The body must be a JSON object {"draft_id": "..."}.');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (k !== 'draft_id')
      throw invalidRequest(`Unknown field ${k}: the draft form takes only draft_id (everything else was declared at prepare).`, {
        field: k,
      });
  }
  if (b.draft_id === undefined || b.draft_id === '') throw invalidRequest('draft_id is required.', { field: 'draft_id' });
  if (typeof b.draft_id !== 'string')
    throw invalidRequest(`draft_id must be a string (got ${b.draft_id === null ? 'null' : typeof b.draft_id}).`, { field: 'draft_id' });
  return { draftId: b.draft_id };
}

function draftNotFound(id: string): AppError {
  return new AppError('DRAFT_NOT_FOUND', `No draft ${id} exists for this account.`, { details: { draft_id: id } });
}

/**
 * The uploads must all be there and still match their declaration; the object's size is checked
 * again here because with presigned storage URLs the PUT never passes through the API.
 */
async function readyInputs(deps: Deps, draft: DraftsTable, now: string): Promise<RenderInput> {
  if (draft.expires_at <= now) {
    throw new AppError('UPLOAD_EXPIRED', 'The draft expired; prepare a new one.', {
      details: { draft_id: draft.id, expired_at: draft.expires_at },
    });
  }
  let uploads = await uploadsOf(deps.db, draft.id);
  // Direct uploads (presigned PUTs to the object store) never passed through the API: their bytes
  // are checked now, as the API's own upload route checks them on arrival.
  if (deps.storage.direct && uploads.some((u) => u.status !== 'uploaded' && u.expires_at > now)) {
    for (const u of uploads) if (u.status !== 'uploaded') await verifyDirectUpload(deps, u);
    uploads = await uploadsOf(deps.db, draft.id);
  }
  const byField = new Map(uploads.map((u) => [u.field, u]));
  const missing = uploads.filter((u) => u.status !== 'uploaded');
  const expired = missing.filter((u) => u.expires_at <= now);
  if (expired.length > 0) {
    throw new AppError(
      'UPLOAD_EXPIRED',
      `The upload URL for ${expired.map((u) => u.field).join(', ')} expired before the upload; prepare a new draft.`,
      {
        details: { draft_id: draft.id, fields: expired.map((u) => u.field) },
      },
    );
  }
  if (missing.length > 0) {
    throw new AppError(
      'UPLOAD_REQUIRED',
      `The draft still waits for ${missing.map((u) => u.field).join(', ')}; PUT the bytes to the upload URL first.`,
      {
        details: { draft_id: draft.id, fields: missing.map((u) => u.field) },
      },
    );
  }
  for (const u of uploads) {
    const st = await deps.storage.stat(u.storage_key);
    if (!st)
      throw new AppError('UPLOAD_REQUIRED', `The upload for ${u.field} is missing; PUT it again.`, {
        details: { draft_id: draft.id, fields: [u.field] },
      });
    if (st.size !== Number(u.size_bytes)) {
      throw new AppError('UPLOAD_MISMATCH', `The upload for ${u.field} is ${st.size} bytes; ${u.size_bytes} were declared.`, {
        details: {
          draft_id: draft.id,
          field: u.field,
          reason: 'size',
          declared_size_bytes: Number(u.size_bytes),
          actual_size_bytes: st.size,
        },
      });
    }
  }
  const spec = JSON.parse(draft.spec_json) as DraftSpec;
  const stored = (field: FileField) => ({ kind: 'stored' as const, key: byField.get(field)!.storage_key });
  const character: CharacterSource | null =
    spec.character === null ? null : spec.character.kind === 'upload' ? stored('image') : spec.character;
  const motion: MotionSource | null = spec.motion === null ? null : spec.motion.kind === 'upload' ? stored('motion_video') : spec.motion;
  return { character, motion, background: backgroundOfFields(spec) };
}

/**
 * The draft form of POST /v1/renders. Same key + same body → the original render (also while 20
 * retries race: the loser's transaction dies on the key's primary key, then replays the winner).
 * Same key + other body → IDEMPOTENCY_KEY_REUSED. The draft is consumed, the key recorded and the
 * render created (with its reservation, event and job) in ONE transaction.
 */
export async function createRenderFromDraft(
  deps: Deps,
  ctx: RequestCtx,
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<VideosTable> {
  const key = parseIdempotencyKey(idempotencyKey);
  const { draftId } = parseDraftBody(body);
  const hash = requestHash(body);
  const now = deps.clock.nowIso();
  const replayed = await replayIdempotent(deps.db, ctx.accountId, key, hash, now);
  if (replayed) return replayed;

  if (!isIdOf('draft', draftId)) throw draftNotFound(draftId);
  const draft = await findDraft(deps.db, ctx.accountId, draftId);
  if (!draft) throw draftNotFound(draftId);
  if (draft.status === 'consumed') {
    throw new AppError(
      'DRAFT_ALREADY_CONSUMED',
      'This draft was already used to create a render; prepare a new draft for another render.',
      {
        details: { draft_id: draftId, render_id: draft.render_id },
      },
    );
  }
  const input = await readyInputs(deps, draft, now);
  try {
    return await createRender(deps, ctx, input, {
      draftId,
      inTx: async (tx, renderId) => {
        // The (account, key) primary key is where concurrent duplicates meet: PostgreSQL blocks the
        // second insert until the first transaction commits, then fails it; SQLite runs the
        // transactions one after the other. Either way the loser rolls back whole.
        await insertIdempotencyKey(tx, {
          account_id: ctx.accountId,
          key,
          request_hash: hash,
          render_id: renderId,
          created_at: now,
          expires_at: new Date(Date.parse(now) + IDEMPOTENCY_TTL_MS).toISOString(),
        });
        if (!(await consumeDraft(tx, draftId, renderId))) {
          throw new AppError(
            'DRAFT_ALREADY_CONSUMED',
            'This draft was already used to create a render; prepare a new draft for another render.',
            {
              details: { draft_id: draftId },
            },
          );
        }
        // The draft's row lock is held from here on, and PUTs change objects only under it: an
        // upload refused (object deleted) since readyInputs looked is caught here, not by the worker.
        const gone = (await uploadsOf(tx, draftId)).filter((u) => u.status !== 'uploaded');
        if (gone.length > 0) {
          throw new AppError(
            'UPLOAD_REQUIRED',
            `The upload for ${gone.map((u) => u.field).join(', ')} was refused while the render was being created; PUT it again.`,
            {
              details: { draft_id: draftId, fields: gone.map((u) => u.field) },
            },
          );
        }
      },
    });
  } catch (e) {
    // Whatever stopped this attempt (key conflict, draft taken, credits taken by the twin request),
    // a twin that committed with the same key decides the answer.
    const twin = await replayIdempotent(deps.db, ctx.accountId, key, hash, deps.clock.nowIso());
    if (twin) return twin;
    if (isUniqueViolation(e))
      throw new AppError('DRAFT_ALREADY_CONSUMED', 'This draft was already used to create a render.', { details: { draft_id: draftId } });
    throw e;
  }
}
