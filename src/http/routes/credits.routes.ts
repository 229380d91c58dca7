import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import { CreditsSchema, LedgerPageSchema, LedgerQuerySchema } from '../../contracts/schemas/credits.js';
import { principal } from '../plugins/auth.js';

export { CreditsSchema };

export async function creditsRoutes(app: FastifyInstance, { credits }: Pick<Services, 'credits'>): Promise<void> {
  app.get(
    '/credits',
    { schema: { response: { 200: CreditsSchema } }, config: { openapi: { summary: 'Balance of the calling account', tags: ['credits'] } } },
    async (request) => credits.balanceOf(principal(request).accountId),
  );
  app.get<{ Querystring: { cursor?: string; limit?: number } }>(
    '/credits/ledger',
    {
      schema: { querystring: LedgerQuerySchema, response: { 200: LedgerPageSchema } },
      config: { openapi: { summary: "The account's credit movements, newest first (an addition to the interface)", tags: ['credits'] } },
    },
    async (request) => credits.ledgerOf(principal(request).accountId, request.query),
  );
}
