import type { FastifyInstance } from 'fastify';
import type { ServiceSet } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import {
  LegacyCharacterIdParams,
  LegacyCharacterListSchema,
  LegacyCharacterSchema,
  LegacyPageQuery,
  LegacySuccessSchema,
  legacyPreprocessFormSchema,
} from '../../contracts/schemas/legacy.js';
import { characterPrice } from '../../domain/billing/prices.js';
import { readMediaForm } from '../multipart.js';
import { idempotent } from '../idempotency.js';
import { principal } from '../plugins/auth.js';
import { requestCtx } from '../routes/characters.routes.js';
import { CHARACTER_FIELDS, presentLegacyCharacter } from './legacy-map.js';
import { oneOf, renameForm, spellingUsed } from './form-mapping.js';
import { inLegacyTerms } from './legacy-errors.js';

const tags = ['legacy'];
const IMAGE_SOURCES = ['image', 'ref_image', 'image_url', 'ref_image_url'] as const;

export async function legacyCharactersRoutes(
  app: FastifyInstance,
  { characters, idempotency }: Pick<ServiceSet, 'characters' | 'idempotency'>,
  settings: HttpSettings,
): Promise<void> {
  app.post(
    '/characters/preprocess',
    {
      schema: { response: { 200: LegacyCharacterSchema } },
      config: {
        legacy: { successor: '/v1/characters' },
        openapi: {
          summary: 'Create a Character from one image (Legacy; V1: POST /v1/characters)',
          tags,
          multipart: legacyPreprocessFormSchema(characterPrice('render', false)),
          deprecated: true,
        },
      },
    },
    async (request, reply) => {
      const form = await readMediaForm(
        request,
        {
          files: { image: { maxBytes: settings.config.limits.imageBytes }, ref_image: { maxBytes: settings.config.limits.imageBytes } },
          fields: ['image_url', 'ref_image_url', 'name', 'model'],
        },
        settings.tmpDir,
      );
      try {
        oneOf(form, IMAGE_SOURCES, 'character image');
        const model = form.fields.model ?? '';
        const v1Form = renameForm(form, CHARACTER_FIELDS);
        const names = { image: spellingUsed(form, ['image', 'ref_image']), image_url: spellingUsed(form, ['image_url', 'ref_image_url']) };
        const ctx = requestCtx(request);
        return await idempotent(idempotency, request, reply, {
          fingerprint: form.fingerprint,
          create: async () => {
            const row = await inLegacyTerms(names, () =>
              characters.createCharacter(ctx, v1Form, { legacyModel: model === '' ? null : model.slice(0, 128) }),
            );
            return { resourceId: row.id, statusCode: 200, body: presentLegacyCharacter(row) };
          },
          replay: async (id) => presentLegacyCharacter(await characters.getCharacter(ctx.accountId, id)),
        });
      } finally {
        await form.cleanup();
      }
    },
  );

  app.get<{ Querystring: { limit?: number; offset?: number } }>(
    '/characters',
    {
      schema: {
        querystring: LegacyPageQuery,
        response: { 200: LegacyCharacterListSchema },
      },
      config: {
        legacy: { successor: '/v1/characters' },
        openapi: { summary: 'Characters, newest first, by offset (Legacy; V1: GET /v1/characters)', tags, deprecated: true },
      },
    },
    async (request) => {
      const rows = await characters.listCharactersPage(principal(request).accountId, request.query);
      return { characters: rows.map(presentLegacyCharacter), total: rows.length };
    },
  );

  app.get<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    {
      schema: { params: LegacyCharacterIdParams, response: { 200: LegacyCharacterSchema } },
      config: {
        legacy: { successor: '/v1/characters/{character_id}' },
        openapi: { summary: 'One Character (Legacy)', tags, deprecated: true },
      },
    },
    async (request) => presentLegacyCharacter(await characters.getCharacter(principal(request).accountId, request.params.character_id)),
  );

  app.delete<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    {
      schema: { params: LegacyCharacterIdParams, response: { 200: LegacySuccessSchema } },
      config: {
        legacy: { successor: '/v1/characters/{character_id}' },
        openapi: { summary: 'Soft-delete a Character; renders that used it keep working (Legacy)', tags, deprecated: true },
      },
    },
    async (request) => {
      await characters.deleteCharacter(principal(request).accountId, request.params.character_id);
      return { success: true as const };
    },
  );
}
