import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import type { Static } from '@sinclair/typebox';
import { principal } from '../plugins/auth.js';
import {
  VideoFormSchema,
  VideoIdParamsSchema,
  VideoListQuerySchema,
  VideoPageSchema,
  VideoSchema,
} from '../../contracts/schemas/videos.js';
import { AppError, invalidRequest } from '../../contracts/errors.js';
import { readMediaForm } from '../multipart.js';
import { fingerprintJson, idempotent } from '../idempotency.js';
import { VIDEO_FILE_FIELDS, VIDEO_TEXT_FIELDS } from '../../domain/videos/video-request.js';

export async function videosRoutes(
  app: FastifyInstance,
  { videos, idempotency }: Pick<Services, 'videos' | 'idempotency'>,
  settings: HttpSettings,
): Promise<void> {
  app.get<{ Querystring: Static<typeof VideoListQuerySchema> }>(
    '/videos',
    {
      schema: { querystring: VideoListQuerySchema, response: { 200: VideoPageSchema } },
      config: { openapi: { summary: 'List videos (renders, H3 and character-animation), newest first', tags: ['videos'] } },
    },
    async (request) => videos.listVideos(principal(request).accountId, request.query),
  );

  app.post(
    '/videos',
    {
      schema: { response: { 200: VideoSchema } },
      config: {
        openapi: {
          summary:
            'Generate a video: H3 (vid_, native audio) or character animation (anim_, needs a driving video); answers the queued Video',
          tags: ['videos'],
          multipart: VideoFormSchema,
          json: VideoFormSchema,
        },
      },
    },
    async (request, reply) => {
      const ctx = { accountId: principal(request).accountId, requestId: request.id, serviceSource: request.serviceSource };
      if (request.isMultipart()) {
        const l = settings.config.limits;
        const form = await readMediaForm(
          request,
          {
            files: {
              character_image: { maxBytes: l.imageBytes },
              first_frame_image: { maxBytes: l.imageBytes },
              last_frame_image: { maxBytes: l.imageBytes },
              driving_video: { maxBytes: l.videoBytes },
            },
            fields: VIDEO_TEXT_FIELDS.filter((f) => !(VIDEO_FILE_FIELDS as readonly string[]).includes(f)),
            repeatable: ['target_tags'],
          },
          settings.tmpDir,
        );
        try {
          const values: Record<string, unknown> = { ...form.fields, ...form.lists };
          return await idempotent(idempotency, request, reply, {
            fingerprint: form.fingerprint,
            create: async () => {
              const row = await videos.createVideo(ctx, { values, files: form.files });
              return { resourceId: row.id, statusCode: 200, body: await videos.presentVideo(row, { links: false }) };
            },
            replay: (id) => videos.getVideo(ctx.accountId, id),
          });
        } finally {
          await form.cleanup();
        }
      }
      const contentType = request.headers['content-type'];
      if (contentType === undefined || !/^application\/json\s*(;|$)/i.test(contentType)) {
        throw new AppError(
          'INVALID_REQUEST',
          'POST /v1/videos takes multipart/form-data, or application/json when every media field is a URL or an ID.',
          {
            details: { content_type: contentType ?? null },
          },
        );
      }
      const body = request.body;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The JSON body must be an object.', {});
      return idempotent(idempotency, request, reply, {
        fingerprint: fingerprintJson(body),
        create: async () => {
          const row = await videos.createVideo(ctx, { values: body as Record<string, unknown>, files: {} });
          return { resourceId: row.id, statusCode: 200, body: await videos.presentVideo(row, { links: false }) };
        },
        replay: (id) => videos.getVideo(ctx.accountId, id),
      });
    },
  );

  app.get<{ Params: Static<typeof VideoIdParamsSchema> }>(
    '/videos/:video_id',
    {
      schema: { params: VideoIdParamsSchema, response: { 200: VideoSchema } },
      config: {
        openapi: { summary: 'Get a video or render by ID (render_, vid_, anim_); poll every 3-5 s until terminal', tags: ['videos'] },
      },
    },
    async (request) => videos.getVideo(principal(request).accountId, request.params.video_id),
  );
}
