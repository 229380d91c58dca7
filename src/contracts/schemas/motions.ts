import { Type } from '@sinclair/typebox';
import { JOINT_SETS, MOTION_TYPES } from '../enums.js';
import { MOTIONS_PAGE_DEFAULT, MOTIONS_PAGE_MAX, NAME_MAX } from '../limits.js';
import { AssetSchema } from './assets.js';
import { boolField, nameField, taskIdField } from './form-fields.js';

const videoFile = {
  type: 'string',
  format: 'binary',
  description: 'MP4, MOV or WebM (by content); at most 200 MB, 0.5-300 s, 64-4096 px per side by default.',
};
const videoUrl = { type: 'string', format: 'uri', description: 'Public http(s) URL of the driving video; fetched by the worker.' };

/** POST /v1/motions (spec 4.4). */
export const MotionFormSchema = {
  type: 'object',
  description: 'Exactly one of video / video_url / motion_video / motion_video_url (the last two are aliases).',
  properties: {
    video: videoFile,
    video_url: videoUrl,
    motion_video: { ...videoFile, description: 'Alias of video.' },
    motion_video_url: { ...videoUrl, description: 'Alias of video_url.' },
    name: nameField,
    type: { type: 'string', enum: MOTION_TYPES, default: 'render' },
    enable_smoothing: { ...boolField('Temporal smoothing of the extracted track.'), default: 'true' },
    target_fps: { type: 'integer', minimum: 1, maximum: 60, description: 'Default: the source rate, capped at 30.' },
    joint_set: { type: 'string', enum: JOINT_SETS, default: 'body', description: 'Only for glb/all.' },
    task_id: taskIdField,
  },
};

export const MotionIdParams = Type.Object({ motion_id: Type.String({ minLength: 1 }) });

export const MotionImportBody = Type.Object(
  {
    template_id: Type.String({ minLength: 1, maxLength: 128 }),
    name: Type.Optional(Type.String({ maxLength: NAME_MAX, description: "Default: the template's name." })),
  },
  { additionalProperties: false },
);

export const MotionTemplatesSchema = Type.Object({
  items: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), duration_s: Type.Number() })),
});

export const MotionListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MOTIONS_PAGE_MAX, default: MOTIONS_PAGE_DEFAULT })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page (opaque).' })),
  },
  { additionalProperties: false },
);
export const MotionPageSchema = Type.Object({
  items: Type.Array(AssetSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});

export const MotionExportQuery = Type.Object({ download_type: Type.Union([Type.Literal('glb'), Type.Literal('fbx')]) });
export const MotionExportSchema = Type.Object({
  id: Type.String(),
  metahuman_url: Type.Union([Type.String(), Type.Null()]),
  mixamo_url: Type.Union([Type.String(), Type.Null()]),
});
