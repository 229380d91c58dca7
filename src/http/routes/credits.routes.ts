import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import { Type } from '@sinclair/typebox';
import { principal } from '../plugins/auth.js';

export const CreditsSchema = Type.Object({
  balance: Type.Number({ description: 'Credits that can still be spent (open reservations already taken out). 1 credit = $0.01.' }),
  reserved: Type.Number({ description: 'Credits held by renders in progress.' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export async function creditsRoutes(app: FastifyInstance, { credits }: Pick<Services, 'credits'>): Promise<void> {
  app.get('/credits', { schema: { response: { 200: CreditsSchema } }, config: { openapi: { summary: 'Balance of the calling account', tags: ['credits'] } } }, async (request) =>
    credits.balanceOf(principal(request).accountId),
  );
}
