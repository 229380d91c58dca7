import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { AppDeps } from '../deps.js';
import { principal } from '../plugins/auth.js';
import { getVideo, listVideos } from '../../domain/videos/videos.service.js';
import { VideoIdParamsSchema, VideoListQuerySchema, VideoPageSchema, VideoSchema } from '../../domain/videos/videos.schemas.js';

export async function videosRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get<{ Querystring: Static<typeof VideoListQuerySchema> }>(
    '/videos',
    {
      schema: { querystring: VideoListQuerySchema, response: { 200: VideoPageSchema } },
      config: { openapi: { summary: 'List videos (renders, H3 and character-animation), newest first', tags: ['videos'] } },
    },
    async (request) => listVideos(deps, principal(request).accountId, request.query),
  );

  app.get<{ Params: Static<typeof VideoIdParamsSchema> }>(
    '/videos/:video_id',
    {
      schema: { params: VideoIdParamsSchema, response: { 200: VideoSchema } },
      config: { openapi: { summary: 'Get a video or render by ID (render_, vid_, anim_); poll every 3-5 s until terminal', tags: ['videos'] } },
    },
    async (request) => getVideo(deps, principal(request).accountId, request.params.video_id),
  );
}
