import type { FastifyInstance } from 'fastify';
import type { ServiceSet } from '../../domain/services.js';
import { LegacyCreditsSchema } from '../../contracts/schemas/legacy.js';
import { principal } from '../plugins/auth.js';

export async function legacyCreditsRoutes(app: FastifyInstance, { credits }: Pick<ServiceSet, 'credits'>): Promise<void> {
  app.get(
    '/credits',
    {
      schema: { response: { 200: LegacyCreditsSchema } },
      config: {
        legacy: { successor: '/v1/credits' },
        openapi: { summary: 'Balance of the calling account (Legacy; V1: GET /v1/credits)', tags: ['legacy'], deprecated: true },
      },
    },
    async (request) => {
      const b = await credits.balanceOf(principal(request).accountId);
      return { credits: b.balance, ...b };
    },
  );
}
