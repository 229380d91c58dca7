import type { AssetStatus, CharactersTable, MotionsTable, VideosTable } from '../../infra/db/schema.js';
import type { LEGACY_ASSET_STATUSES, LEGACY_JOB_STATUSES } from '../../contracts/enums.js';

/**
 * The Legacy interface's vocabulary mapped onto V1's, both ways (spec 9.1 and 9.3, DECISIONS "Legacy
 * interface"). Pure functions: no rule of the service lives here, only names and shapes. IDs are
 * V1 IDs unchanged (a `job_id` is the render's `render_` ID, a `scene_id` a Motion's `mot_` ID).
 */

/** A render's status: spec 9.3 shows `queued` at creation and 9.1 maps `complete` to `ready`. */
export type LegacyRenderStatus = (typeof LEGACY_JOB_STATUSES)[number];
/** Characters and scenes: spec 9.3 lists `pending`, `processing`, `ready`, `failed`. */
export type LegacyAssetStatus = (typeof LEGACY_ASSET_STATUSES)[number];

const RENDER_STATUS: Record<VideosTable['status'], LegacyRenderStatus> = {
  queued: 'queued',
  processing: 'processing',
  ready: 'complete',
  failed: 'failed',
  cancelled: 'cancelled',
};

const ASSET_STATUS: Record<AssetStatus, LegacyAssetStatus> = {
  queued: 'pending',
  processing: 'processing',
  ready: 'ready',
  failed: 'failed',
  // Legacy has no cancelled asset; an asset whose processing was stopped is not usable.
  cancelled: 'failed',
};

export function legacyRenderStatus(s: VideosTable['status']): LegacyRenderStatus {
  return RENDER_STATUS[s];
}

export function legacyAssetStatus(s: AssetStatus): LegacyAssetStatus {
  return ASSET_STATUS[s];
}

/** The other way: the V1 status a Legacy render status stands for. */
export function v1RenderStatus(s: LegacyRenderStatus): VideosTable['status'] {
  return (Object.keys(RENDER_STATUS) as VideosTable['status'][]).find((k) => RENDER_STATUS[k] === s)!;
}

/** The other way for assets (`failed` reads back as V1 `failed`; `cancelled` has no Legacy name). */
export function v1AssetStatus(s: LegacyAssetStatus): AssetStatus {
  return s === 'pending' ? 'queued' : s;
}

/** Legacy request field → V1 field of POST /v1/renders (spec 9.1). */
export const RENDER_FIELDS = {
  ref_image: 'image',
  ref_image_url: 'image_url',
  character_id: 'character_id',
  driving_video: 'motion_video',
  driving_video_url: 'motion_video_url',
  scene_id: 'motion_id',
  background_mode: 'background_mode',
  bg_color: 'bg_color',
} as const;

/** Legacy character-image fields → V1 POST /v1/characters (integrations send either spelling). */
export const CHARACTER_FIELDS = {
  image: 'image',
  ref_image: 'image',
  image_url: 'image_url',
  ref_image_url: 'image_url',
  name: 'name',
} as const;

/** Legacy scene video fields → V1 POST /v1/motions. */
export const SCENE_FIELDS = {
  driving_video: 'video',
  video: 'video',
  driving_video_url: 'video_url',
  video_url: 'video_url',
  name: 'name',
} as const;

/** V1 field → Legacy field, for messages and `details` of errors raised by the V1 services. */
export function invert(map: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [legacy, v1] of Object.entries(map)) if (legacy !== v1 && !(v1 in out)) out[v1] = legacy;
  return out;
}

/**
 * How a render's inputs were given, as the Legacy `mode`: `asset` (stored Character and scene),
 * `direct` (one-time uploads or URLs), `mixed`, or `default` (the project defaults, V1 only).
 */
export function renderMode(row: Pick<VideosTable, 'character_source' | 'motion_source'>): 'asset' | 'direct' | 'mixed' | 'default' {
  const kind = (json: string) => {
    try {
      return (JSON.parse(json) as { kind?: string }).kind ?? '';
    } catch {
      return '';
    }
  };
  const c = kind(row.character_source);
  const m = kind(row.motion_source);
  if (c === 'builtin') return 'default';
  const asset = (k: string) => k === 'character' || k === 'motion' || k === 'template';
  if (asset(c) && asset(m)) return 'asset';
  if (!asset(c) && !asset(m)) return 'direct';
  return 'mixed';
}

export interface LegacyCharacter {
  id: string;
  name: string;
  status: LegacyAssetStatus;
  created_at: string | null;
  completed_at: string | null;
}

export function presentLegacyCharacter(row: CharactersTable): LegacyCharacter {
  return { id: row.id, name: row.name, status: legacyAssetStatus(row.status), created_at: row.created_at, completed_at: row.completed_at };
}

export interface LegacyScene {
  scene_id: string;
  id: string;
  name: string;
  status: LegacyAssetStatus;
  created_at: string | null;
  completed_at: string | null;
}

export function presentLegacyScene(row: MotionsTable): LegacyScene {
  return {
    scene_id: row.id,
    id: row.id,
    name: row.name,
    status: legacyAssetStatus(row.status),
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
