import { AssetSchema, DeletedSchema } from '../../contracts/schemas/assets.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { characterFormSpec } from '../../domain/characters/characters.input.js';
import { characterPriceList } from '../../domain/billing/prices.js';
import {
  CharacterExportQuery,
  CharacterExportSchema,
  CharacterIdParams,
  CharacterListQuery,
  CharacterListSchema,
  characterFormSchema,
} from '../../contracts/schemas/characters.js';
import { presentCharacter } from '../../domain/characters/characters.presenter.js';
import { type RequestCtx } from '../../domain/characters/characters.service.js';
import { readMediaForm } from '../multipart.js';
import { idempotent } from '../idempotency.js';
import { principal } from '../plugins/auth.js';

export function requestCtx(request: FastifyRequest): RequestCtx {
  return { accountId: principal(request).accountId, requestId: request.id, serviceSource: request.serviceSource };
}

const tags = ['characters'];

export async function charactersRoutes(
  app: FastifyInstance,
  { characters, idempotency }: Pick<Services, 'characters' | 'idempotency'>,
  settings: HttpSettings,
): Promise<void> {
  app.post(
    '/characters',
    {
      schema: { response: { 200: AssetSchema } },
      config: { openapi: { summary: 'Create a Character from one image', tags, multipart: characterFormSchema(characterPriceList()) } },
    },
    async (request, reply) => {
      const form = await readMediaForm(request, characterFormSpec(settings.config.limits), settings.tmpDir);
      const ctx = requestCtx(request);
      try {
        return await idempotent(idempotency, request, reply, {
          fingerprint: form.fingerprint,
          create: async () => {
            const row = await characters.createCharacter(ctx, form);
            return { resourceId: row.id, statusCode: 200, body: presentCharacter(row, { list: false }) };
          },
          replay: async (id) => presentCharacter(await characters.getCharacter(ctx.accountId, id), { list: false }),
        });
      } finally {
        await form.cleanup();
      }
    },
  );

  app.get(
    '/characters',
    {
      schema: { querystring: CharacterListQuery, response: { 200: CharacterListSchema } },
      config: { openapi: { summary: 'The 100 most recent active Characters, newest first', tags } },
    },
    async (request) => ({
      items: (await characters.listCharacters(principal(request).accountId)).map((r) => presentCharacter(r, { list: true })),
    }),
  );

  app.get<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    { schema: { params: CharacterIdParams, response: { 200: AssetSchema } }, config: { openapi: { summary: 'One Character', tags } } },
    async (request) =>
      presentCharacter(await characters.getCharacter(principal(request).accountId, request.params.character_id), { list: false }),
  );

  app.delete<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    {
      schema: { params: CharacterIdParams, response: { 200: DeletedSchema } },
      config: { openapi: { summary: 'Delete a Character', tags } },
    },
    async (request) => characters.deleteCharacter(principal(request).accountId, request.params.character_id),
  );

  app.get<{ Params: { character_id: string }; Querystring: { download_type?: string } }>(
    '/characters/:character_id/export',
    {
      schema: {
        params: CharacterIdParams,
        querystring: CharacterExportQuery,
        response: { 200: CharacterExportSchema },
      },
      config: { openapi: { summary: 'Export URLs of a Character (vsplat, thumbnail)', tags } },
    },
    async (request) => characters.exportCharacter(principal(request).accountId, request.params.character_id, request.query.download_type),
  );
  app.get<{ Params: { character_id: string } }>(
    '/characters/:character_id/thumbnail',
    {
      schema: { params: CharacterIdParams },
      config: {
        openapi: {
          summary:
            "Redirect (302) to the Character's picture: its cut-out once ready, the uploaded image before (an addition to the interface)",
          tags,
          responses: { '302': 'Location: a fresh signed URL of a PNG, JPEG or WebP picture.' },
        },
      },
    },
    async (request, reply) => {
      const url = await characters.characterThumbnailUrl(principal(request).accountId, request.params.character_id);
      return reply.code(302).header('Location', url).header('Cache-Control', 'no-store').send();
    },
  );
}
