import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import { PrepareBodySchema, PreparedDraftSchema } from '../../contracts/schemas/drafts.js';
import { principal } from '../plugins/auth.js';

export { PrepareBodySchema, PreparedDraftSchema };

export async function draftsRoutes(app: FastifyInstance, { drafts }: Pick<Services, 'drafts'>): Promise<void> {
  app.post(
    '/renders/prepare',
    {
      schema: { body: PrepareBodySchema, response: { 200: PreparedDraftSchema } },
      config: {
        openapi: { summary: 'Declare a render and get upload URLs for its media (then POST /v1/renders {draft_id})', tags: ['renders'] },
      },
    },
    async (request) => drafts.prepareDraft({ accountId: principal(request).accountId }, request.body),
  );
}
