import type { FastifyInstance } from 'fastify';
import type { ServiceSet } from '../../domain/services.js';
import { Type } from '@sinclair/typebox';
import { principal } from '../plugins/auth.js';

const LegacyCredits = Type.Object({
  credits: Type.Number({ description: 'Credits that can still be spent (same as balance). 1 credit = $0.01.' }),
  balance: Type.Number(),
  reserved: Type.Number({ description: 'Credits held by renders in progress.' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export async function legacyCreditsRoutes(app: FastifyInstance, { credits }: Pick<ServiceSet, 'credits'>): Promise<void> {
  app.get(
    '/credits',
    {
      schema: { response: { 200: LegacyCredits } },
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
