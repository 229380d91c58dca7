import { AppError } from '../../contracts/errors.js';
import type { CharactersTable, MotionsTable } from '../../infra/db/schema.js';
import { storageKeys } from '../storage-keys.js';
import type { Ports } from '../ports/index.js';
import type { MotionTrack } from '../ports/engine.js';
import { getCharacter } from '../characters/characters.service.js';
import { getMotion } from '../motions/motions.service.js';
import { motionThumbnailSvg } from './motion-thumbnail.js';

/**
 * Gallery pictures of Characters and Motions (additions to the interface, docs/api-decisions.md
 * "Thumbnails"), for the web console and any client that lists assets. A Character shows its
 * analysed cut-out (`texture.png`, transparent around the figure) once ready, its uploaded picture
 * before; a Motion shows its performer's pose track drawn as a few stick figures across the clip,
 * which templates (no video) have too.
 */
const TEXTURE_FILE = 'texture.png';
const TRACK_FILE = 'track.json';

function notYet(family: 'Character' | 'Motion', id: string, status: string): AppError {
  return new AppError('INVALID_REQUEST', `${family} ${id} is ${status}; its thumbnail exists once it is ready.`, {
    situation: 'conflict',
    action: status === 'queued' || status === 'processing' ? 'wait_until_ready' : 'correct_request',
    details: { id, status },
  });
}

/** A fresh signed URL of the Character's picture (GET /v1/characters/{id}/thumbnail answers 302 to it). */
export async function characterThumbnailUrl(
  deps: Pick<Ports, 'db' | 'storage' | 'config'>,
  accountId: string,
  id: string,
): Promise<string> {
  const row: CharactersTable = await getCharacter(deps, accountId, id);
  const texture = row.status === 'ready' && row.assets_key !== null ? storageKeys.assetFile(row.assets_key, TEXTURE_FILE) : null;
  for (const key of [texture, row.source_key]) {
    if (key !== null && (await deps.storage.stat(key))) return deps.storage.signedGetUrl(key, deps.config.outputUrlTtlSeconds);
  }
  throw notYet('Character', id, row.status);
}

/** The Motion's pose track as an SVG picture (GET /v1/motions/{id}/thumbnail). */
export async function motionThumbnail(deps: Pick<Ports, 'db' | 'storage'>, accountId: string, id: string): Promise<string> {
  const row: MotionsTable = await getMotion(deps, accountId, id);
  const key = row.status === 'ready' && row.assets_key !== null ? storageKeys.assetFile(row.assets_key, TRACK_FILE) : null;
  if (key === null || !(await deps.storage.stat(key))) throw notYet('Motion', id, row.status);
  const chunks: Buffer[] = [];
  for await (const c of deps.storage.read(key)) chunks.push(c as Buffer);
  return motionThumbnailSvg(JSON.parse(Buffer.concat(chunks).toString('utf8')) as MotionTrack);
}
