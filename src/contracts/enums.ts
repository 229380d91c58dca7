/**
 * Every enumeration of the interface, declared once. Request/response schemas, input parsing and the
 * database row types (src/infra/db/schema.ts) all derive from these lists, so adding a value is a
 * one-line change here (plus a migration when a database CHECK constraint names the values).
 */
export const ASSET_STATUSES = ['queued', 'processing', 'ready', 'failed', 'cancelled'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

export const BACKGROUND_MODES = ['original', 'solid', 'transparent'] as const;
export type BackgroundMode = (typeof BACKGROUND_MODES)[number];

export const CHARACTER_TYPES = ['render', 'vsplat', 'all'] as const;
export type CharacterType = (typeof CHARACTER_TYPES)[number];

export const MOTION_TYPES = ['render', 'glb', 'all'] as const;
export type MotionType = (typeof MOTION_TYPES)[number];

/** Media types a draft may declare for its uploads (the bytes are checked by content). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export const VIDEO_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'] as const;

export const JOINT_SETS = ['body', 'expression', 'full'] as const;
export type JointSet = (typeof JOINT_SETS)[number];

/** Rows of the `videos` table: renders (`render_`), character-animation videos (`anim_`) and H3 videos (`vid_`). */
export const VIDEO_KINDS = ['render', 'h3', 'animation'] as const;
export type VideoKind = (typeof VIDEO_KINDS)[number];

export const RENDER_STAGES = ['analyzing', 'rendering', 'finishing'] as const;
export type RenderStage = (typeof RENDER_STAGES)[number];

/** POST /v1/videos (DECISIONS "Videos"). */
export const VIDEO_MODES = ['h3', 'animate'] as const;
export const H3_RESOLUTIONS = ['480p', '768p', '1080p', '2k', '4k'] as const;
export type H3Resolution = (typeof H3_RESOLUTIONS)[number];
export const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const QUALITIES = ['low', 'high'] as const;
export const ENHANCE_MODES = ['off', 'prompt'] as const;

/** Statuses of the deprecated Legacy surface (/api, docs/legacy.md): assets and render jobs. */
export const LEGACY_ASSET_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export const LEGACY_JOB_STATUSES = ['queued', 'processing', 'complete', 'failed', 'cancelled'] as const;
