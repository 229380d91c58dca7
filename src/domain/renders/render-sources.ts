import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, internalError } from '../../contracts/errors.js';
import { isIdOf, ulid } from '../../contracts/ids.js';
import { checkUrlAtDoor } from '../../infra/net/safe-fetch.js';
import { checkImageFile, checkVideoFile } from '../media/media-check.js';
import type { CharacterSource, MotionSource, RenderInput, StoredCharacterSource, StoredMotionSource } from './render-input.js';
import * as repo from './renders.repository.js';
import { renderPartUsable } from '../assets/asset-state.js';
import type { Ports } from '../ports/index.js';

/**
 * Turns the sources of a render request into what the `videos` row records, enforcing spec 4.1 and
 * DECISIONS "Renders": owned and ready assets, public URLs, media checked by content, and the
 * estimated duration the reservation is based on. Cheap checks (IDs, URLs) run before media probes
 * so an obviously wrong request is refused without decoding anything.
 */

/** A source that passed the cheap checks; `file`/`stored` still need their media probe. */
export type PendingCharacter =
  | { kind: 'character'; id: string }
  | { kind: 'url'; url: string }
  | { kind: 'builtin' }
  | { kind: 'file'; path: string }
  | { kind: 'stored'; key: string; path?: string };
export type PendingMotion =
  | { kind: 'motion'; id: string; durationMs: number }
  | { kind: 'template'; id: string; durationMs: number }
  | { kind: 'url'; url: string }
  | { kind: 'file'; path: string }
  | { kind: 'stored'; key: string; path?: string };

/** Templates tried in order for the built-in default motion; otherwise the engine's first one. */
const PREFERRED_DEFAULT_TEMPLATES = ['tpl_wave', 'tpl_idle'];

type Deps = Pick<Ports, 'db' | 'engine' | 'config' | 'storage' | 'tmpDir'>;

export async function checkCharacterId(
  deps: Deps,
  accountId: string,
  id: string,
  isDefault = false,
): Promise<{ kind: 'character'; id: string }> {
  const extra = isDefault ? { project_default: true } : {};
  const row = isIdOf('character', id) ? await repo.findCharacterForRender(deps.db, accountId, id) : undefined;
  if (!row)
    throw new AppError('CHARACTER_NOT_FOUND', `No Character ${id} exists for this account.`, { details: { character_id: id, ...extra } });
  const usable = row.status === 'ready' || renderPartUsable(row);
  if (!usable && (row.status === 'failed' || row.status === 'cancelled')) {
    // Terminal: waiting cannot help, so this is an input problem (422), not a timing one (409).
    throw new AppError('INVALID_CHARACTER', `Character ${id} is ${row.status} and cannot be used in a render.`, {
      details: { character_id: id, status: row.status, ...extra },
    });
  }
  if (!usable) {
    throw new AppError('INVALID_CHARACTER', `Character ${id} is ${row.status}; it must be ready before it is used in a render.`, {
      situation: 'conflict',
      action: 'wait_until_ready',
      details: { character_id: id, status: row.status, ...extra },
    });
  }
  return { kind: 'character', id };
}

export async function checkMotionId(deps: Deps, accountId: string, id: string, isDefault = false): Promise<PendingMotion> {
  const extra = isDefault ? { project_default: true } : {};
  const row = isIdOf('motion', id) ? await repo.findMotionForRender(deps.db, accountId, id) : undefined;
  if (!row) throw new AppError('MOTION_NOT_FOUND', `No Motion ${id} exists for this account.`, { details: { motion_id: id, ...extra } });
  const usable = row.status === 'ready' || renderPartUsable(row);
  if (!usable && (row.status === 'failed' || row.status === 'cancelled')) {
    throw new AppError('INVALID_MOTION', `Motion ${id} is ${row.status} and cannot be used in a render.`, {
      details: { motion_id: id, status: row.status, ...extra },
    });
  }
  if (!usable) {
    throw new AppError('MOTION_NOT_READY', `Motion ${id} is ${row.status}; it must be ready before it is used in a render.`, {
      details: { motion_id: id, status: row.status, ...extra },
    });
  }
  let durationMs = Number(row.duration_ms ?? 0);
  if (row.duration_ms === null && row.template_id) durationMs = templateDurationMs(deps, row.template_id) ?? 0;
  return { kind: 'motion', id, durationMs };
}

function templateDurationMs(deps: Pick<Ports, 'engine'>, id: string): number | null {
  const t = deps.engine.listTemplates().find((x) => x.id === id);
  return t ? Math.round(t.durationS * 1000) : null;
}

export function builtinTemplate(deps: Pick<Ports, 'engine'>): { kind: 'template'; id: string; durationMs: number } {
  const all = deps.engine.listTemplates();
  const pick = PREFERRED_DEFAULT_TEMPLATES.map((id) => all.find((t) => t.id === id)).find((t) => t !== undefined) ?? all[0];
  if (!pick) throw internalError('No built-in motion template is available for the default render.', false);
  return { kind: 'template', id: pick.id, durationMs: Math.round(pick.durationS * 1000) };
}

/** The door check of a URL input (safe-fetch), the refusal naming the form field that carried it. */
export function checkInputUrl(deps: Pick<Ports, 'config'>, url: string, field: string): string {
  try {
    return checkUrlAtDoor(url, deps.config.urlAllowList);
  } catch (e) {
    // Name the form field so the client knows which of its URLs was refused.
    if (e instanceof AppError && e.code === 'INVALID_REQUEST')
      throw new AppError('INVALID_REQUEST', e.message, { details: { ...e.details, field } });
    throw e;
  }
}

/** Spec 4.1 rule 3: neither family given → the project's defaults, else the built-in ones. */
export async function defaultSources(deps: Deps, accountId: string): Promise<{ character: PendingCharacter; motion: PendingMotion }> {
  const defaults = await repo.accountDefaults(deps.db, accountId);
  const character: PendingCharacter = defaults?.default_character_id
    ? await checkCharacterId(deps, accountId, defaults.default_character_id, true)
    : { kind: 'builtin' };
  const motion: PendingMotion = defaults?.default_motion_id
    ? await checkMotionId(deps, accountId, defaults.default_motion_id, true)
    : builtinTemplate(deps);
  return { character, motion };
}

export async function cheapCharacter(deps: Deps, accountId: string, src: CharacterSource): Promise<PendingCharacter> {
  switch (src.kind) {
    case 'character':
      return checkCharacterId(deps, accountId, src.id);
    case 'url':
      return { kind: 'url', url: checkInputUrl(deps, src.url, 'image_url') };
    default:
      return src;
  }
}

export async function cheapMotion(deps: Deps, accountId: string, src: MotionSource): Promise<PendingMotion> {
  switch (src.kind) {
    case 'motion':
      return checkMotionId(deps, accountId, src.id);
    case 'url':
      return { kind: 'url', url: checkInputUrl(deps, src.url, 'motion_video_url') };
    default:
      return src;
  }
}

/** Runs `check` on a local copy of a stored object (downloaded when no local path was given). */
async function withLocalCopy<T>(deps: Deps, key: string, path: string | undefined, check: (file: string) => Promise<T>): Promise<T> {
  if (path) return check(path);
  if (!(await deps.storage.stat(key)))
    throw new AppError('UPLOAD_REQUIRED', 'The uploaded media is missing from storage.', { details: {} });
  const local = join(deps.tmpDir, `probe-${ulid()}`);
  try {
    await deps.storage.getFile(key, local);
    return await check(local);
  } finally {
    await rm(local, { force: true });
  }
}

export interface ResolvedSources {
  character: StoredCharacterSource;
  motion: StoredMotionSource;
  /** The estimate the reservation is based on; null when unknown at the door (URL motions). */
  estimatedMs: number | null;
  /** Local files to copy into storage under the render's inputs once its ID exists. */
  uploads: { image?: string; video?: string };
}

/** Media probes (422 UNSUPPORTED_MEDIA) and the duration estimate. */
export async function probeSources(deps: Deps, c: PendingCharacter, m: PendingMotion): Promise<ResolvedSources> {
  const uploads: ResolvedSources['uploads'] = {};
  let character: StoredCharacterSource;
  if (c.kind === 'file') {
    await checkImageFile(deps, c.path);
    uploads.image = c.path;
    character = { kind: 'stored', key: '' };
  } else if (c.kind === 'stored') {
    await withLocalCopy(deps, c.key, c.path, (f) => checkImageFile(deps, f));
    character = { kind: 'stored', key: c.key };
  } else {
    character = c;
  }
  let motion: StoredMotionSource;
  let estimatedMs: number | null;
  if (m.kind === 'file') {
    estimatedMs = (await checkVideoFile(deps, m.path)).durationMs;
    uploads.video = m.path;
    motion = { kind: 'stored', key: '' };
  } else if (m.kind === 'stored') {
    estimatedMs = (await withLocalCopy(deps, m.key, m.path, (f) => checkVideoFile(deps, f))).durationMs;
    motion = { kind: 'stored', key: m.key };
  } else if (m.kind === 'url') {
    estimatedMs = null;
    motion = { kind: 'url', url: m.url };
  } else {
    estimatedMs = m.durationMs;
    motion = { kind: m.kind, id: m.id };
  }
  return { character, motion, estimatedMs, uploads };
}

export function resolveInputShape(input: RenderInput): 'defaults' | 'explicit' {
  if (input.character === null && input.motion === null) return 'defaults';
  if (input.character === null || input.motion === null) {
    const missing = input.character === null ? 'character' : 'motion';
    throw new AppError(
      'INVALID_REQUEST',
      `A ${missing} source is missing: send one source of each family, or neither to use the project defaults.`,
      {
        details: { family: missing, fields: [] },
      },
    );
  }
  return 'explicit';
}
