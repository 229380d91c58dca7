import { AssetSchema, DeletedSchema } from '../../contracts/schemas/assets.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { Type } from '@sinclair/typebox';
import { CHARACTER_TYPES, JOINT_SETS, characterFormSpec } from '../../domain/characters/characters.input.js';
import { presentCharacter } from '../../domain/characters/characters.presenter.js';
import { type RequestCtx } from '../../domain/characters/characters.service.js';
import { readMediaForm } from '../multipart.js';
import { idempotent } from '../idempotency.js';
import { principal } from '../plugins/auth.js';

export { AssetSchema, DeletedSchema } from '../../contracts/schemas/assets.js';

export function requestCtx(request: FastifyRequest): RequestCtx {
  return { accountId: principal(request).accountId, requestId: request.id, serviceSource: request.serviceSource };
}

const bool = (description: string) => ({ type: 'string', enum: ['true', 'false', '1', '0'], description });

const characterForm = {
  type: 'object',
  description: 'Exactly one of image / image_url.',
  properties: {
    image: {
      type: 'string',
      format: 'binary',
      description: 'PNG, JPEG or WebP (by content); at most 20 MB and 4096 px per side by default.',
    },
    image_url: { type: 'string', format: 'uri', description: 'Public http(s) URL of the image; must stay reachable during processing.' },
    name: { type: 'string', maxLength: 256, default: '' },
    type: {
      type: 'string',
      enum: CHARACTER_TYPES,
      default: 'render',
      description: 'Price: render 1, vsplat 25 (30 with enhance), all 26 (31 with enhance).',
    },
    enhance: { ...bool('Only for vsplat/all.'), default: 'false' },
    joint_set: { type: 'string', enum: JOINT_SETS, default: 'body' },
    model_precision: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    filter_low_quality: { ...bool('Only for vsplat/all.'), default: 'false' },
    render_thumbnail: { ...bool('Generate the standard thumbnail.'), default: 'false' },
    task_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'Reusing a task_id of the account answers 409 IDEMPOTENCY_KEY_REUSED.',
    },
  },
};

const IdParams = Type.Object({ character_id: Type.String({ minLength: 1 }) });
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
      config: { openapi: { summary: 'Create a Character from one image', tags, multipart: characterForm } },
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
      // The spec gives this list no parameters; like every list, it refuses ones it does not define.
      schema: {
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(AssetSchema) }) },
      },
      config: { openapi: { summary: 'The 100 most recent active Characters, newest first', tags } },
    },
    async (request) => ({
      items: (await characters.listCharacters(principal(request).accountId)).map((r) => presentCharacter(r, { list: true })),
    }),
  );

  app.get<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    { schema: { params: IdParams, response: { 200: AssetSchema } }, config: { openapi: { summary: 'One Character', tags } } },
    async (request) =>
      presentCharacter(await characters.getCharacter(principal(request).accountId, request.params.character_id), { list: false }),
  );

  app.delete<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    { schema: { params: IdParams, response: { 200: DeletedSchema } }, config: { openapi: { summary: 'Delete a Character', tags } } },
    async (request) => characters.deleteCharacter(principal(request).accountId, request.params.character_id),
  );

  app.get<{ Params: { character_id: string }; Querystring: { download_type?: string } }>(
    '/characters/:character_id/export',
    {
      schema: {
        params: IdParams,
        querystring: Type.Object({
          download_type: Type.Optional(Type.Literal('vsplat', { description: 'The only accepted value; populates vsplat_url.' })),
        }),
        response: {
          200: Type.Object({
            id: Type.String(),
            vsplat_url: Type.Union([Type.String(), Type.Null()]),
            thumbnail_url: Type.Union([Type.String(), Type.Null()]),
          }),
        },
      },
      config: { openapi: { summary: 'Export URLs of a Character (vsplat, thumbnail)', tags } },
    },
    async (request) => characters.exportCharacter(principal(request).accountId, request.params.character_id, request.query.download_type),
  );
  app.get<{ Params: { character_id: string } }>(
    '/characters/:character_id/thumbnail',
    {
      schema: { params: IdParams },
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
