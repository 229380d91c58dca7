import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, isAppError } from '../../contracts/errors.js';
import { ulid } from '../../contracts/ids.js';
import type { Db } from '../../infra/db/database.js';
import type { UploadsTable } from '../../infra/db/schema.js';
import { checkImageFile, checkVideoFile } from '../media/media-check.js';
import { contentMatchesDeclaration } from './draft-spec.js';
import { findDraftById, findUploadByKey, lockOpenDraft, setUploadStatus } from './drafts.repository.js';
import type { Ports } from '../ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'storage' | 'tmpDir'>;

/**
 * Receives the bytes of a draft upload (the signed PUT URL served by the API for disk storage).
 * The body streams to a private temp file while it is counted and hashed, so memory stays flat
 * whatever the size; only bytes that match the declaration (size, sha256 when declared, type by
 * content) and pass the media limits reach storage. A refused upload leaves no object behind and
 * the upload "pending" again, so a client can simply PUT once more while the URL is valid.
 */

class TooManyBytes extends Error {}

function mismatch(u: UploadsTable, message: string, details: Record<string, unknown>): AppError {
  return new AppError('UPLOAD_MISMATCH', message, { details: { draft_id: u.draft_id, field: u.field, ...details } });
}

export interface ReceivedUpload {
  draft_id: string;
  field: string;
  size_bytes: number;
  sha256: string;
  content_type: string;
  status: 'uploaded';
}

function draftStateError(draft: { id: string; status: string; render_id: string | null } | undefined): AppError {
  if (!draft) return new AppError('DRAFT_NOT_FOUND', 'This upload URL belongs to no draft.', { details: {} });
  if (draft.status === 'consumed') {
    return new AppError('DRAFT_ALREADY_CONSUMED', 'The draft of this upload was already used to create a render.', {
      details: { draft_id: draft.id, render_id: draft.render_id },
    });
  }
  return new AppError('UPLOAD_EXPIRED', 'The draft of this upload expired; prepare a new one.', { details: { draft_id: draft.id } });
}

/** Who the signed URL is for; checked before a single byte is read. */
async function uploadTarget(deps: Pick<Ports, 'clock' | 'db'>, key: string): Promise<UploadsTable> {
  const upload = await findUploadByKey(deps.db, key);
  const draft = upload ? await findDraftById(deps.db, upload.draft_id) : undefined;
  if (!upload || !draft || draft.status !== 'open' || draft.expires_at <= deps.clock.nowIso()) throw draftStateError(draft);
  return upload;
}

/**
 * Runs `fn` (which changes the stored object) while holding the draft's row lock, and only while the
 * draft is still open. Consuming a draft takes the same lock, so an object can never change after
 * its render was created from it: either the PUT's change commits first (and the render is created
 * from the new, verified bytes) or the draft is consumed first (and the PUT is refused untouched).
 * On SQLite the transactions run one after the other, which gives the same order.
 */
async function whileDraftOpen(deps: Pick<Ports, 'clock' | 'db'>, upload: UploadsTable, fn: (tx: Db) => Promise<void>): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    if (!(await lockOpenDraft(tx, upload.draft_id, deps.clock.nowIso()))) throw draftStateError(await findDraftById(tx, upload.draft_id));
    await fn(tx);
  });
}

/**
 * The last steps shared by both ways bytes arrive (through the API, or by a direct PUT to the object
 * store): the declared sha256, the content check, then, under the draft's lock, the object stored
 * (when it came through the API) and the upload marked done.
 */
async function finishUpload(deps: Deps, upload: UploadsTable, local: string, sha256: string, store: boolean): Promise<void> {
  if (upload.sha256 && upload.sha256 !== sha256) {
    throw mismatch(upload, 'The upload does not match the declared sha256.', {
      reason: 'sha256',
      declared_sha256: upload.sha256,
      actual_sha256: sha256,
    });
  }
  await checkContent(deps, upload, local);
  await whileDraftOpen(deps, upload, async (tx) => {
    if (store) await deps.storage.putFile(upload.storage_key, local);
    await setUploadStatus(tx, upload.id, 'uploaded', deps.clock.nowIso());
  });
}

/** A verdict on the bytes (mismatch, media limit): the object is deleted and the upload pending again. */
async function discard(deps: Deps, upload: UploadsTable): Promise<void> {
  await whileDraftOpen(deps, upload, async (tx) => {
    await deps.storage.delete(upload.storage_key);
    await setUploadStatus(tx, upload.id, 'pending', null);
  });
}

/** PUT of a draft upload, after the URL signature was verified. */
export async function acceptUpload(deps: Deps, key: string, body: Readable, contentLength: number | null): Promise<ReceivedUpload> {
  const upload = await uploadTarget(deps, key);
  try {
    return await receiveUpload(deps, upload, body, contentLength);
  } catch (e) {
    if (isAppError(e) && (e.code === 'UPLOAD_MISMATCH' || e.code === 'UNSUPPORTED_MEDIA')) await discard(deps, upload);
    throw e;
  }
}

/**
 * Nothing stored changes until the new bytes are complete and verified: a client that disconnects
 * mid-way (or a twin PUT that is still running) leaves the earlier state exactly as it was.
 */
async function receiveUpload(deps: Deps, upload: UploadsTable, body: Readable, contentLength: number | null): Promise<ReceivedUpload> {
  const declared = Number(upload.size_bytes);
  if (contentLength !== null && contentLength !== declared) {
    throw mismatch(upload, `The upload is ${contentLength} bytes; ${declared} were declared.`, {
      reason: 'size',
      declared_size_bytes: declared,
      actual_size_bytes: contentLength,
    });
  }
  const dir = join(deps.tmpDir, 'uploads');
  await mkdir(dir, { recursive: true });
  const local = join(dir, `put-${ulid()}`);
  try {
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _e, cb) {
        size += chunk.length;
        if (size > declared) return cb(new TooManyBytes());
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(body, meter, createWriteStream(local));
    } catch (e) {
      if (e instanceof TooManyBytes) {
        throw mismatch(upload, `The upload exceeds the ${declared} declared bytes.`, { reason: 'size', declared_size_bytes: declared });
      }
      throw e; // a client gone mid-upload: nothing to answer, the temp file goes below
    }
    if (size !== declared) {
      throw mismatch(upload, `The upload is ${size} bytes; ${declared} were declared.`, {
        reason: 'size',
        declared_size_bytes: declared,
        actual_size_bytes: size,
      });
    }
    const sha256 = hash.digest('hex');
    await finishUpload(deps, upload, local, sha256, true);
    return {
      draft_id: upload.draft_id,
      field: upload.field,
      size_bytes: size,
      sha256,
      content_type: upload.content_type,
      status: 'uploaded',
    };
  } finally {
    await rm(local, { force: true });
  }
}

/**
 * Type by content: bytes that are not the declared kind of media are a mismatch (422
 * UPLOAD_MISMATCH); media of the declared kind that breaks a limit is UNSUPPORTED_MEDIA, as for
 * every other way media enters the service.
 */
async function checkContent(deps: Deps, upload: UploadsTable, file: string): Promise<void> {
  const isImage = upload.field === 'image';
  let actual: { format?: string; container?: string };
  try {
    actual = isImage ? await deps.engine.probeImage(file) : await deps.engine.probeVideo(file);
  } catch {
    throw mismatch(upload, `The upload is not ${isImage ? 'an image' : 'a video'} of the declared type ${upload.content_type}.`, {
      reason: 'type',
      declared_content_type: upload.content_type,
    });
  }
  if (!contentMatchesDeclaration(upload.content_type, actual)) {
    throw mismatch(upload, `The upload is ${actual.format ?? actual.container}; ${upload.content_type} was declared.`, {
      reason: 'type',
      declared_content_type: upload.content_type,
      actual_format: actual.format ?? actual.container,
    });
  }
  if (isImage) await checkImageFile(deps, file);
  else await checkVideoFile(deps, file);
}

/**
 * Checks an upload that went straight to the object store (presigned PUT): the same verdicts as the
 * API's own upload route (size, sha256 when declared, type by content, media limits), on a copy in
 * scratch space that is removed afterwards. A missing object leaves the upload pending; a refused
 * one is deleted and the upload pending again (the client may PUT again while its URL is valid).
 */
export async function verifyDirectUpload(deps: Deps, upload: UploadsTable): Promise<void> {
  const st = await deps.storage.stat(upload.storage_key);
  if (!st) return;
  const declared = Number(upload.size_bytes);
  const local = join(deps.tmpDir, 'uploads', `verify-${ulid()}`);
  try {
    if (st.size !== declared) {
      throw mismatch(upload, `The upload is ${st.size} bytes; ${declared} were declared.`, {
        reason: 'size',
        declared_size_bytes: declared,
        actual_size_bytes: st.size,
      });
    }
    await deps.storage.getFile(upload.storage_key, local);
    const hash = createHash('sha256');
    await pipeline(createReadStream(local), async function* (src) {
      for await (const c of src) hash.update(c as Buffer);
    });
    await finishUpload(deps, upload, local, hash.digest('hex'), false);
  } catch (e) {
    if (isAppError(e) && (e.code === 'UPLOAD_MISMATCH' || e.code === 'UNSUPPORTED_MEDIA')) await discard(deps, upload);
    throw e;
  } finally {
    await rm(local, { force: true });
  }
}
