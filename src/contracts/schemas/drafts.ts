import { Type } from '@sinclair/typebox';
import { BACKGROUND_MODES, IMAGE_TYPES, VIDEO_TYPES } from '../enums.js';

const declaration = (types: readonly string[], what: string) =>
  Type.Object(
    {
      content_type: Type.String({ enum: [...types], description: `Declared type of the ${what}; the bytes are checked by content.` }),
      size_bytes: Type.Integer({ minimum: 1, description: 'Exact size of the bytes that will be PUT.' }),
      sha256: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'Hex sha256 of the bytes; checked when given.' })),
    },
    { additionalProperties: false, description: `Declaration of a ${what} to be uploaded with PUT to the returned URL.` },
  );

/** Documents (and shapes) the body; the service judges it again since it also takes callers other than HTTP. */
export const PrepareBodySchema = Type.Object(
  {
    character_id: Type.Optional(Type.String({ description: 'ID of a ready Character.' })),
    image: Type.Optional(declaration(IMAGE_TYPES, 'character image')),
    image_url: Type.Optional(Type.String({ description: 'Public http(s) URL of a character image.' })),
    motion_id: Type.Optional(Type.String({ description: 'ID of a ready Motion.' })),
    motion_video: Type.Optional(declaration(VIDEO_TYPES, 'driving video')),
    motion_video_url: Type.Optional(Type.String({ description: 'Public http(s) URL of a driving video.' })),
    background_mode: Type.Optional(Type.String({ enum: [...BACKGROUND_MODES] })),
    bg_color: Type.Optional(Type.String({ description: 'R,G,B (0-255); required with solid, rejected otherwise.' })),
  },
  { description: 'The direct form of POST /v1/renders as JSON, with file fields replaced by declarations.' },
);

export const PreparedDraftSchema = Type.Object({
  draft_id: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
  uploads: Type.Array(
    Type.Object({
      field: Type.String({ enum: ['image', 'motion_video'] }),
      method: Type.Literal('PUT'),
      url: Type.String({ description: 'Send the bytes with HTTP PUT here, with `headers`, before `expires_at`.' }),
      headers: Type.Record(Type.String(), Type.String()),
      expires_at: Type.String({ format: 'date-time' }),
    }),
  ),
});
