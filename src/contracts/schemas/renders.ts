import { Type } from '@sinclair/typebox';
import { BACKGROUND_MODES } from '../enums.js';

/** POST /v1/renders, direct form (multipart, or JSON with the same text fields). */
export const RenderDirectFormSchema = {
  type: 'object',
  description:
    'Exactly one source per family (character: character_id | image | image_url; motion: motion_id | motion_video | motion_video_url), or neither family for the project defaults.',
  properties: {
    character_id: { type: 'string', description: 'ID of a ready Character.' },
    image: { type: 'string', format: 'binary', description: 'Character image (PNG, JPEG or WebP).' },
    image_url: { type: 'string', format: 'uri', description: 'Public http(s) URL of a character image.' },
    motion_id: { type: 'string', description: 'ID of a ready Motion.' },
    motion_video: { type: 'string', format: 'binary', description: 'Driving video (MP4, MOV or WebM).' },
    motion_video_url: { type: 'string', format: 'uri', description: 'Public http(s) URL of a driving video.' },
    background_mode: { type: 'string', enum: [...BACKGROUND_MODES], default: 'original' },
    bg_color: {
      type: 'string',
      pattern: '^\\d{1,3},\\d{1,3},\\d{1,3}$',
      description: 'R,G,B (0-255); required with solid, rejected otherwise.',
    },
  },
};

/** POST /v1/renders with a prepared draft (JSON). */
export const RenderDraftFormSchema = {
  type: 'object',
  required: ['draft_id'],
  properties: {
    draft_id: { type: 'string', description: 'From POST /v1/renders/prepare. Send the Idempotency-Key header (1-255 characters).' },
  },
};

export const RenderIdParams = Type.Object({ render_id: Type.String({ minLength: 1, description: 'Full Render ID (render_...).' }) });

/** GET /v1/renders/{render_id}/events (spec section 6): the request header that resumes a stream. */
export const RenderEventsHeaders = {
  'Last-Event-ID': { type: 'string', minLength: 1, description: 'Resume after this event (its event_id)' },
};
