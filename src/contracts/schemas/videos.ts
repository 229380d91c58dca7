import { Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE } from '../errors.js';
import { ASPECT_RATIOS, ASSET_STATUSES, ENHANCE_MODES, H3_RESOLUTIONS, QUALITIES, VIDEO_MODES } from '../enums.js';
import { DURATION, PROMPT_MAX, SEED_MAX, TAGS } from '../limits.js';

/** Page sizes of GET /v1/videos. */
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
export const VIDEO_STATUSES = ASSET_STATUSES;

/**
 * Wire schemas (the single source for validation, serialization and OpenAPI) of the Render object (spec 2.3) and the Videos list: Fastify serializes responses
 * with them and OpenAPI is generated from them, so the documentation cannot drift from the replies.
 */
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const StatusSchema = Type.Union(VIDEO_STATUSES.map((s) => Type.Literal(s)));

export const RenderErrorSchema = Type.Object(
  {
    code: Type.Union(Object.keys(ERROR_CATALOGUE).map((c) => Type.Literal(c))),
    message: Type.String(),
    retryable: Type.Boolean(),
    request_id: Type.Union([Type.String(), Type.Null()]),
    details: Type.Object({}, { additionalProperties: true }),
    remediation: Type.Object({ action: Type.String(), retry_after_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]) }),
  },
  { description: 'The error envelope body (spec section 7); set when status is failed.' },
);

const renderFields = {
  id: Type.String({ description: 'render_..., vid_... or anim_...' }),
  status: StatusSchema,
  progress: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()]),
  stage: Type.Union([Type.Literal('analyzing'), Type.Literal('rendering'), Type.Literal('finishing'), Type.Null()], {
    description: 'Set while processing.',
  }),
  video_url: Nullable(Type.String({ format: 'uri', description: 'Signed, expiring URL of the video; set when ready.' })),
  alpha_url: Nullable(
    Type.String({ format: 'uri', description: 'Signed URL of the greyscale alpha-mask video; transparent renders when ready.' }),
  ),
  created_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  error: Type.Union([RenderErrorSchema, Type.Null()]),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'H3 (vid_) only: the seed used.' })),
  enhanced_prompt: Type.Optional(Type.String({ description: 'H3 with enhance_mode=prompt, once generated: the expanded prompt.' })),
};

export const VideoSchema = Type.Object(renderFields, { description: 'Render-shaped video object (no links).' });

export const RenderCreatedSchema = Type.Object(
  {
    ...renderFields,
    links: Type.Object({
      self: Type.String({ format: 'uri', description: 'Retired path (answers 405); read the render with GET /v1/videos/{id}.' }),
      events: Type.String({ format: 'uri' }),
      download: Type.String({ format: 'uri' }),
    }),
  },
  { description: 'The created Render (status queued, progress 0).' },
);

export const VideoPageSchema = Type.Object({
  items: Type.Array(VideoSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page.' }),
  has_more: Type.Boolean(),
});

export const VideoListQuerySchema = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: [...VIDEO_STATUSES], description: 'Only videos in this status.' })),
    cursor: Type.Optional(Type.String({ minLength: 1, description: 'next_cursor of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default })),
  },
  // As on every list: a mistyped filter (`?stauts=ready`) is refused, never silently ignored.
  { additionalProperties: false },
);

export const VideoIdParamsSchema = Type.Object({ video_id: Type.String({ minLength: 1, description: 'render_, vid_ or anim_ ID.' }) });

/** The documented form of POST /v1/videos (multipart or JSON; validation itself is domain/videos/video-request.ts). */
export const VideoFormSchema = {
  type: 'object',
  description:
    'mode h3 (default without a driving video): prompt (+ optional first/last frame, tags). mode animate (default with a driving video): one character source and one driving source.',
  properties: {
    mode: { type: 'string', enum: [...VIDEO_MODES] },
    model: { type: 'string', enum: ['h3'], description: 'Names the H3 mode (integrations send {"model":"h3","prompt":...}).' },
    prompt: { type: 'string', maxLength: PROMPT_MAX, description: 'Required in h3 mode; optional in animate mode.' },
    seed: { type: 'integer', minimum: 0, maximum: SEED_MAX, description: 'Same inputs and seed give the same video; random when absent.' },
    watermark: { type: 'boolean', default: false },
    quality: { type: 'string', enum: [...QUALITIES], default: 'low', description: 'h3: high spends more time; same price.' },
    duration_s: { type: 'number', minimum: DURATION.min, maximum: DURATION.max, default: DURATION.default },
    resolution: {
      type: 'string',
      enum: [...H3_RESOLUTIONS],
      default: '768p',
      description: 'The short side: 480, 768, 1080, 1440 (2k), 2160 (4k).',
    },
    aspect_ratio: { type: 'string', enum: [...ASPECT_RATIOS], default: '16:9' },
    first_frame_image: { type: 'string', format: 'binary' },
    first_frame_image_url: { type: 'string', format: 'uri' },
    last_frame_image: { type: 'string', format: 'binary', description: 'Only together with a first frame.' },
    last_frame_image_url: { type: 'string', format: 'uri' },
    enhance_mode: { type: 'string', enum: [...ENHANCE_MODES], default: 'off' },
    target_tags: {
      type: 'array',
      maxItems: TAGS.max,
      items: { type: 'string', maxLength: TAGS.maxLength },
      description: 'Ordered; repeat the multipart field.',
    },
    character_image: { type: 'string', format: 'binary' },
    character_image_url: { type: 'string', format: 'uri' },
    character_id: { type: 'string' },
    driving_video: { type: 'string', format: 'binary' },
    driving_video_url: { type: 'string', format: 'uri' },
    motion_id: { type: 'string' },
  },
};
