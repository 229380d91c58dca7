import { AppError, invalidRequest } from '../../contracts/errors.js';
import { storageKeys } from '../storage-keys.js';
import { isIdOf, newId } from '../../contracts/ids.js';
import { OFFSET_PAGE } from '../../contracts/limits.js';
import { isUniqueViolation } from '../../infra/db/database.js';
import type { CharactersTable } from '../../infra/db/schema.js';
import { charge } from '../billing/billing.service.js';
import { characterPriceMilli } from '../billing/prices.js';
import { checkImageFile } from '../media/media-check.js';
import { parseCharacterForm, type CharacterInput } from './characters.input.js';
import * as repo from './characters.repository.js';
import { assetNotFound, CHARACTER_FAMILY, taskIdConflict as sharedTaskIdConflict } from '../assets/asset-errors.js';
import { withoutEmpty, type Fields, type FormFile } from './form-fields.js';
import { isTaskConflict, replayOrConflict, taskFingerprint } from '../assets/task-fingerprint.js';
import type { Ports } from '../ports/index.js';

/** What this module uses; the composition root (src/main/) passes it. */
type Deps = Pick<Ports, 'clock' | 'config' | 'db' | 'engine' | 'queue' | 'storage'>;

/**
 * Characters: creation (validate, check media, store the source, charge and enqueue in one
 * transaction), reads, soft delete and export. Status changes live in characters.state.ts.
 */
export interface RequestCtx {
  accountId: string;
  requestId: string;
  serviceSource: string | null;
}

export const CHARACTERS_LIST_MAX = 100;
/** The vsplat file inside a Character's assets, written by the (later) extraction worker. */
export const VSPLAT_FILE = 'character.vsplat';
export const THUMBNAIL_FILE = 'thumbnail.png';

export function characterNotFound(id: string): AppError {
  return assetNotFound(CHARACTER_FAMILY, id);
}

const taskIdConflict = (taskId: string) => sharedTaskIdConflict(CHARACTER_FAMILY, taskId);

/** An active Character of the account; a malformed, foreign-family or other account's ID is a 404. */
export async function getCharacter(deps: Pick<Ports, 'db'>, accountId: string, id: string): Promise<CharactersTable> {
  if (!isIdOf('character', id)) throw characterNotFound(id);
  const row = await repo.findOwned(deps.db, accountId, id);
  if (!row) throw characterNotFound(id);
  return row;
}

export async function listCharacters(deps: Pick<Ports, 'db'>, accountId: string): Promise<CharactersTable[]> {
  return repo.listActive(deps.db, accountId, CHARACTERS_LIST_MAX);
}

/**
 * Offset paging over every active Character, newest first: the Legacy `GET /api/characters`
 * (`limit` 1-100, default 50; `offset` >= 0). IDs are ULIDs, so the order is stable while pages are
 * walked; a Character created meanwhile shifts later pages by one (offset paging's known trade-off).
 */
export async function listCharactersPage(
  deps: Pick<Ports, 'db'>,
  accountId: string,
  q: { limit?: number; offset?: number },
): Promise<CharactersTable[]> {
  const limit = q.limit ?? OFFSET_PAGE.default;
  const offset = q.offset ?? 0;
  if (!Number.isInteger(limit) || limit < OFFSET_PAGE.min || limit > OFFSET_PAGE.max) {
    throw invalidRequest(`limit must be an integer from ${OFFSET_PAGE.min} to ${OFFSET_PAGE.max}.`, {
      field: 'limit',
      value: q.limit,
    });
  }
  if (!Number.isInteger(offset) || offset < 0)
    throw invalidRequest('offset must be an integer of at least 0.', { field: 'offset', value: q.offset });
  return repo.listActiveOffset(deps.db, accountId, limit, offset);
}

export interface CreateCharacterOptions {
  /** The Legacy interface's `model` field: recorded on the row, no effect on processing. */
  legacyModel?: string | null;
}

/**
 * Creates a queued Character from a received form. The caller owns the form's temp files and
 * removes them afterwards, success or not; on refusal nothing of this Character remains in storage
 * or in the database.
 */
export async function createCharacter(
  deps: Deps,
  ctx: RequestCtx,
  form: { fields: Fields; files: Record<string, FormFile> },
  opts: CreateCharacterOptions = {},
): Promise<CharactersTable> {
  const sent = withoutEmpty(form);
  const input = parseCharacterForm(sent.fields, sent.files, deps.config);
  if (input.source.kind === 'file') await checkImageFile(deps, input.source.path);
  const fingerprint = input.taskId !== null ? await taskFingerprint(input) : null;
  const replay = async (): Promise<CharactersTable | null> => {
    if (input.taskId === null) return null;
    const existing = await repo.findByTaskId(deps.db, ctx.accountId, input.taskId);
    if (!existing) return null;
    const taskId = input.taskId;
    return getCharacter(
      deps,
      ctx.accountId,
      replayOrConflict(existing, fingerprint!, () => taskIdConflict(taskId)),
    );
  };
  // The same task_id with the same request: the existing Character, not charged again.
  const earlier = await replay();
  if (earlier) return earlier;
  const id = newId('character');
  const sourceKey = storageKeys.characterSource(id);
  if (input.source.kind === 'file') await deps.storage.putFile(sourceKey, input.source.path);
  let row: CharactersTable;
  try {
    row = await deps.db.transaction().execute(async (tx) => {
      if (input.taskId !== null && (await repo.findByTaskId(tx, ctx.accountId, input.taskId))) throw taskIdConflict(input.taskId);
      const row = {
        ...newRow(id, ctx, input, sourceKey, deps.clock.nowIso()),
        ...(opts.legacyModel ? { legacy_model: opts.legacyModel } : {}),
        ...(fingerprint !== null ? { task_fingerprint: fingerprint } : {}),
      };
      await repo.insertCharacter(tx, row);
      await charge(tx, ctx.accountId, id, row.charge_milli);
      await deps.queue.enqueueInTx(tx, {
        type: 'character.process',
        resourceId: id,
        payload: {},
        maxAttempts: deps.config.workers.maxAttempts,
      });
      return row;
    });
  } catch (e) {
    if (input.source.kind === 'file') await deps.storage.deletePrefix(storageKeys.characterPrefix(id));
    // Two concurrent creations with one task_id: the unique index refuses the second, which then
    // answers like a later retry (the first's Character when the requests are the same).
    if (input.taskId !== null && (isUniqueViolation(e) || isTaskConflict(e))) {
      const winner = await replay();
      if (winner) return winner;
      throw taskIdConflict(input.taskId);
    }
    throw e;
  }
  deps.queue.notify();
  return row;
}

function newRow(id: string, ctx: RequestCtx, input: CharacterInput, sourceKey: string, now: string): CharactersTable {
  return {
    id,
    account_id: ctx.accountId,
    name: input.name,
    type: input.type,
    status: 'queued',
    progress: 0,
    enhance: input.enhance ? 1 : 0,
    joint_set: input.jointSet,
    model_precision: input.modelPrecision,
    filter_low_quality: input.filterLowQuality ? 1 : 0,
    render_thumbnail: input.renderThumbnail ? 1 : 0,
    task_id: input.taskId,
    vsplat_status: input.type === 'render' ? null : 'queued',
    source_kind: input.source.kind === 'file' ? 'upload' : 'url',
    source_key: input.source.kind === 'file' ? sourceKey : null,
    source_url: input.source.kind === 'url' ? input.source.url : null,
    assets_key: null,
    failure_json: null,
    charge_milli: characterPriceMilli(input.type, input.enhance),
    request_id: ctx.requestId,
    service_source: ctx.serviceSource,
    created_at: now,
    updated_at: now,
    completed_at: null,
    deleted_at: null,
  };
}

/**
 * Soft delete: the row stays (ledger and renders refer to it) and its stored assets stay, so renders
 * that already used it keep working; every later read answers 404. A job still running for it is
 * asked to stop; its transitions become no-ops. The charge is not refunded: the caller chose to stop.
 */
export async function deleteCharacter(
  deps: Pick<Ports, 'clock' | 'db' | 'queue'>,
  accountId: string,
  id: string,
): Promise<{ id: string; status: 'deleted' }> {
  if (!isIdOf('character', id)) throw characterNotFound(id);
  const n = await repo.softDelete(deps.db, accountId, id, deps.clock.nowIso());
  if (n === 0) throw characterNotFound(id);
  await deps.queue.cancel(id);
  return { id, status: 'deleted' };
}

export interface CharacterExport {
  id: string;
  vsplat_url: string | null;
  thumbnail_url: string | null;
}

/**
 * Export (spec 4.3). `download_type=vsplat` (the only accepted value) asks for the vsplat file: it
 * is refused with 409 EXTRACTION_UNAVAILABLE when the Character did not request a vsplat (`render`)
 * or its extraction is not ready, and with 422 EXTRACTION_FAILED when the extraction failed.
 * `thumbnail_url` does not depend on `download_type`: it is set when the Character was created with
 * `render_thumbnail=true` and its processed assets include the thumbnail.
 */
export async function exportCharacter(
  deps: Pick<Ports, 'db' | 'storage' | 'config'>,
  accountId: string,
  id: string,
  downloadType: string | undefined,
): Promise<CharacterExport> {
  const row = await getCharacter(deps, accountId, id);
  if (downloadType !== undefined && downloadType !== 'vsplat') {
    throw invalidRequest('The query parameter download_type accepts only "vsplat" for Characters.', {
      field: 'download_type',
      value: downloadType.slice(0, 50),
    });
  }
  let vsplatUrl: string | null = null;
  if (downloadType === 'vsplat') {
    if (row.type === 'render') {
      throw new AppError(
        'EXTRACTION_UNAVAILABLE',
        'This Character was created with type=render and has no vsplat; create one with type=vsplat or type=all.',
        {
          details: { type: row.type, vsplat_status: null },
          action: 'fix_input',
        },
      );
    }
    if (row.vsplat_status === 'failed') {
      throw new AppError('EXTRACTION_FAILED', 'The vsplat extraction of this Character failed.', {
        details: { type: row.type, vsplat_status: row.vsplat_status },
      });
    }
    const key = row.assets_key === null ? null : storageKeys.assetFile(row.assets_key, VSPLAT_FILE);
    if (row.vsplat_status !== 'ready' || key === null || !(await deps.storage.stat(key))) {
      throw new AppError(
        'EXTRACTION_UNAVAILABLE',
        `The vsplat extraction of this Character is not ready (status ${row.vsplat_status ?? 'queued'}).`,
        {
          details: { type: row.type, vsplat_status: row.vsplat_status },
        },
      );
    }
    vsplatUrl = await deps.storage.signedGetUrl(key, deps.config.outputUrlTtlSeconds, { downloadName: `${row.id}.vsplat` });
  }
  let thumbnailUrl: string | null = null;
  // The thumbnail comes with the 2D part, so it can exist while a vsplat is still being extracted.
  if (row.render_thumbnail === 1 && row.assets_key !== null) {
    const key = storageKeys.assetFile(row.assets_key, THUMBNAIL_FILE);
    if (await deps.storage.stat(key)) thumbnailUrl = await deps.storage.signedGetUrl(key, deps.config.outputUrlTtlSeconds);
  }
  return { id: row.id, vsplat_url: vsplatUrl, thumbnail_url: thumbnailUrl };
}
