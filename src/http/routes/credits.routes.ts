import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import { CreditsSchema } from '../../contracts/schemas/credits.js';
import { principal } from '../plugins/auth.js';

export { CreditsSchema };

export async function creditsRoutes(app: FastifyInstance, { credits }: Pick<Services, 'credits'>): Promise<void> {
  app.get('/credits', { schema: { response: { 200: CreditsSchema } }, config: { openapi: { summary: 'Balance of the calling account', tags: ['credits'] } } }, async (request) =>
    credits.balanceOf(principal(request).accountId),
  );
}
