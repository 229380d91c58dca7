import { Type } from '@sinclair/typebox';
import { BACKGROUND_MODES, LEGACY_ASSET_STATUSES, LEGACY_JOB_STATUSES } from '../enums.js';
import { NAME_MAX, OFFSET_MAX, OFFSET_PAGE } from '../limits.js';

/**
 * The deprecated Legacy surface under /api (docs/legacy.md, src/http/legacy): its request and
 * response schemas. Multipart forms are documented here and read by the Legacy routes, which rename
 * them onto the V1 forms.
 */
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const ASSET_STATUS = Type.Union(LEGACY_ASSET_STATUSES.map((s) => Type.Literal(s)));

export const LegacySuccessSchema = Type.Object({ success: Type.Literal(true) });

export const LegacyPageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: OFFSET_PAGE.min, maximum: OFFSET_PAGE.max, default: OFFSET_PAGE.default })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: OFFSET_MAX, default: 0 })),
});

// Characters

export const LegacyCharacterSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: ASSET_STATUS,
  created_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
});
export const LegacyCharacterListSchema = Type.Object({
  characters: Type.Array(LegacyCharacterSchema),
  total: Type.Integer({ description: 'Number of characters in this page.' }),
});
export const LegacyCharacterIdParams = Type.Object({ character_id: Type.String({ minLength: 1 }) });

/** POST /api/characters/preprocess; `price` is a render Character's price in credits. */
export function legacyPreprocessFormSchema(price: number) {
  return {
    type: 'object',
    description: `One of image / ref_image (file) or image_url / ref_image_url. Costs ${price} credit${price === 1 ? '' : 's'}, like POST /v1/characters.`,
    properties: {
      image: { type: 'string', format: 'binary' },
      ref_image: { type: 'string', format: 'binary' },
      image_url: { type: 'string', format: 'uri' },
      ref_image_url: { type: 'string', format: 'uri' },
      name: { type: 'string', maxLength: NAME_MAX, default: '' },
      model: { type: 'string', description: 'Accepted and recorded; no effect.' },
    },
  };
}

// Scenes (V1 Motions)

export const LegacySceneSchema = Type.Object({
  scene_id: Type.String(),
  id: Type.String({ description: 'Same as scene_id.' }),
  name: Type.String(),
  status: ASSET_STATUS,
  created_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
});
export const LegacySceneStartedSchema = Type.Object({
  scene_id: Type.String(),
  job_id: Type.String({ description: 'The scene is its own job: poll GET /api/scenes/{scene_id}.' }),
  status: ASSET_STATUS,
  message: Type.String(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
export const LegacySceneListSchema = Type.Object({
  scenes: Type.Array(LegacySceneSchema),
  total: Type.Integer({ description: 'Number of scenes in this page.' }),
});
export const LegacySceneIdParams = Type.Object({ scene_id: Type.String({ minLength: 1 }) });

/** POST /api/scenes. */
export const LegacySceneFormSchema = {
  type: 'object',
  properties: {
    driving_video: { type: 'string', format: 'binary' },
    video: { type: 'string', format: 'binary' },
    driving_video_url: { type: 'string', format: 'uri' },
    video_url: { type: 'string', format: 'uri' },
    name: { type: 'string', maxLength: NAME_MAX },
  },
};

/** POST /api/scenes/import (JSON; judged by the route, which answers in Legacy terms). */
export const LegacySceneImportSchema = {
  type: 'object',
  required: ['template_uuid'],
  properties: {
    template_uuid: { type: 'string', description: 'A template ID (GET /v1/motions/templates).' },
    name: { type: 'string' },
  },
};

// Credits

export const LegacyCreditsSchema = Type.Object({
  credits: Type.Number({ description: 'Credits that can still be spent (same as balance). 1 credit = $0.01.' }),
  balance: Type.Number(),
  reserved: Type.Number({ description: 'Credits held by renders in progress.' }),
  updated_at: Type.String({ format: 'date-time' }),
});

// Extraction (V1 3D outputs)

export const LegacyExtractStartedSchema = Type.Object({
  job_id: Type.String({ description: 'The new asset ID; poll poll_url.' }),
  status: Type.String(),
  message: Type.String(),
  poll_url: Type.String(),
  character_id: Type.Optional(Type.String()),
  scene_id: Type.Optional(Type.String()),
});
export const LegacyStaticBinSchema = Type.Object({
  character_id: Type.String(),
  status: Type.String(),
  bin_url: Nullable(Type.String({ description: 'The vsplat file (V1 vsplat_url); Legacy stripped_bin_url is gone.' })),
  vsplat_url: Nullable(Type.String()),
  thumbnail_url: Nullable(Type.String()),
});
export const LegacyDynamicFbxSchema = Type.Object({
  scene_id: Type.String(),
  status: Type.String(),
  fbx_url: Nullable(Type.String({ description: 'MetaHuman-rig FBX (V1 metahuman_url with download_type=fbx).' })),
  metahuman_url: Nullable(Type.String()),
  mixamo_url: Nullable(Type.String()),
});

/** What the extraction endpoints answer: the existing asset's export, or the asset they started. */
export const LegacyStaticBinAnswerSchema = Type.Union([LegacyStaticBinSchema, LegacyExtractStartedSchema]);
export const LegacyDynamicFbxAnswerSchema = Type.Union([LegacyDynamicFbxSchema, LegacyExtractStartedSchema]);

/** POST /api/extract/static-bin; `price` is a vsplat Character's price in credits. */
export function legacyStaticBinFormSchema(price: number) {
  return {
    type: 'object',
    description: `character_id of an existing vsplat Character (answers its export), or one image source (creates one: ${price} credits, as V1).`,
    properties: {
      character_id: { type: 'string' },
      image: { type: 'string', format: 'binary' },
      ref_image: { type: 'string', format: 'binary' },
      image_url: { type: 'string', format: 'uri' },
      ref_image_url: { type: 'string', format: 'uri' },
      name: { type: 'string' },
      render_thumbnail: { type: 'string', enum: ['true', 'false'] },
      task_id: { type: 'string' },
      model: { type: 'string', description: 'Accepted and recorded; the vsplat model choice is gone in V1.' },
      fp: { type: 'string', description: 'Accepted and ignored: gone in V1.' },
    },
  };
}

/** POST /api/extract/dynamic-fbx. */
export const LegacyDynamicFbxFormSchema = {
  type: 'object',
  description: 'scene_id of an existing glb scene (answers its export), or one video source (creates one, free).',
  properties: {
    scene_id: { type: 'string' },
    driving_video: { type: 'string', format: 'binary' },
    video: { type: 'string', format: 'binary' },
    driving_video_url: { type: 'string', format: 'uri' },
    video_url: { type: 'string', format: 'uri' },
    name: { type: 'string' },
    enable_smoothing: { type: 'string', enum: ['true', 'false'] },
    target_fps: { type: 'integer', minimum: 1, maximum: 60 },
    task_id: { type: 'string' },
  },
};

// Render jobs (V1 Renders)

export const LegacyJobParams = Type.Object({
  job_id: Type.String({ minLength: 1, description: 'The render ID (render_...), as returned in job_id.' }),
});

export const LegacyRenderCreatedSchema = Type.Object({
  job_id: Type.String(),
  status: Type.String({ description: 'queued at creation' }),
  mode: Type.String({ description: 'asset (character_id + scene_id), direct (uploads or URLs), mixed' }),
  enqueued_at: Type.String({ format: 'date-time' }),
  poll_url: Type.String({ description: '/api/render/{job_id}' }),
  status_url: Type.String({ description: '/api/render/{job_id}' }),
});

export const LegacyRenderJobSchema = Type.Object({
  job_id: Type.String(),
  status: Type.Union(LEGACY_JOB_STATUSES.map((s) => Type.Literal(s))),
  mode: Type.String(),
  progress: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()]),
  enqueued_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  cdn_url: Nullable(Type.String({ description: 'The finished video (signed, expires) once complete.' })),
  mask_cdn_url: Nullable(Type.String({ description: 'The alpha mask video for transparent output once complete.' })),
  error_code: Nullable(Type.String()),
  error: Nullable(Type.String({ description: 'Why the render failed.' })),
  poll_url: Type.String(),
  status_url: Type.String(),
  cancelled: Type.Optional(Type.Boolean({ description: 'DELETE only: whether this call cancelled the render.' })),
});

/** POST /api/render. */
export const LegacyRenderFormSchema = {
  type: 'object',
  description:
    'One character source (ref_image | ref_image_url | character_id) and one scene source (driving_video | driving_video_url | scene_id).',
  properties: {
    ref_image: { type: 'string', format: 'binary', description: 'Character image (PNG, JPEG or WebP).' },
    ref_image_url: { type: 'string', format: 'uri' },
    character_id: { type: 'string', description: 'A ready Character (char_...).' },
    driving_video: { type: 'string', format: 'binary', description: 'Driving video; at most 10 minutes and 100 MB.' },
    driving_video_url: { type: 'string', format: 'uri' },
    scene_id: { type: 'string', description: 'A ready scene (mot_...).' },
    model: { type: 'string', description: 'Accepted and recorded; no effect.' },
    background_mode: { type: 'string', enum: [...BACKGROUND_MODES], default: 'original' },
    bg_color: { type: 'string', description: 'R,G,B; only with background_mode=solid.' },
  },
};
