import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError, isAppError } from '../../contracts/errors.js';
import { CHARACTER_TYPES, JOINT_SETS, characterFormSpec } from '../../domain/characters/characters.input.js';
import { presentCharacter } from '../../domain/characters/characters.presenter.js';
import { createCharacter, deleteCharacter, exportCharacter, getCharacter, listCharacters, type RequestCtx } from '../../domain/characters/characters.service.js';
import type { AppDeps } from '../deps.js';
import { readMultipart, type FormSpec, type ReceivedForm } from '../multipart.js';
import { principal } from '../plugins/auth.js';

const STATUS = Type.Union(['queued', 'processing', 'ready', 'failed', 'cancelled'].map((s) => Type.Literal(s)));

/** The wire shape shared by Characters and Motions (spec 2.2). */
export const AssetSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    status: STATUS,
    name: Type.String(),
    progress: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], { description: 'Null in list responses.' }),
    capabilities: Type.Array(Type.String(), { description: 'Contains video_render once ready.' }),
    created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    error: Type.Null({ description: 'Always null; failure shows in status and the sub-object.' }),
    type: Type.String(),
    vsplat: Type.Union([Type.Object({ status: STATUS }), Type.Null()]),
    glb: Type.Union([Type.Object({ status: STATUS }), Type.Null()]),
  },
  { description: 'Character or Motion' },
);

export const DeletedSchema = Type.Object({ id: Type.String(), status: Type.Literal('deleted') });

export function requestCtx(request: FastifyRequest): RequestCtx {
  return { accountId: principal(request).accountId, requestId: request.id, serviceSource: request.serviceSource };
}

/**
 * Reads a media form. A media file over its byte limit is a media-limit refusal (422
 * UNSUPPORTED_MEDIA, DECISIONS "Media limits"), not a malformed request, whether the reader cut the
 * file off while streaming or refused the whole form up front from its declared Content-Length
 * (the text fields are small, so only a file can make a form that large). The reader has already
 * removed its temp files either way.
 */
export async function readMediaForm(request: FastifyRequest, spec: FormSpec, tmpDir: string): Promise<ReceivedForm> {
  try {
    return await readMultipart(request, spec, tmpDir);
  } catch (e) {
    if (!isAppError(e) || typeof e.details.limit_bytes !== 'number') throw e;
    const field = e.details.field;
    const opts = { headers: e.headers, cause: e };
    if (typeof field === 'string' && field in spec.files) {
      throw new AppError('UNSUPPORTED_MEDIA', `The file ${field} is larger than the ${e.details.limit_bytes} byte limit.`, { ...opts, details: { field, limit_bytes: e.details.limit_bytes } });
    }
    if (typeof e.details.content_length === 'number') {
      const limit = Math.max(...Object.values(spec.files).map((f) => f.maxBytes));
      throw new AppError('UNSUPPORTED_MEDIA', `The upload is ${e.details.content_length} bytes; a file may have at most ${limit} bytes.`, { ...opts, details: { limit_bytes: limit, content_length: e.details.content_length } });
    }
    throw e;
  }
}

const bool = (description: string) => ({ type: 'string', enum: ['true', 'false', '1', '0'], description });

const characterForm = {
  type: 'object',
  description: 'Exactly one of image / image_url.',
  properties: {
    image: { type: 'string', format: 'binary', description: 'PNG, JPEG or WebP (by content); at most 20 MB and 4096 px per side by default.' },
    image_url: { type: 'string', format: 'uri', description: 'Public http(s) URL of the image; must stay reachable during processing.' },
    name: { type: 'string', maxLength: 256, default: '' },
    type: { type: 'string', enum: CHARACTER_TYPES, default: 'render', description: 'Price: render 1, vsplat 25 (30 with enhance), all 26 (31 with enhance).' },
    enhance: { ...bool('Only for vsplat/all.'), default: 'false' },
    joint_set: { type: 'string', enum: JOINT_SETS, default: 'body' },
    model_precision: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    filter_low_quality: { ...bool('Only for vsplat/all.'), default: 'false' },
    render_thumbnail: { ...bool('Generate the standard thumbnail.'), default: 'false' },
    task_id: { type: 'string', minLength: 1, maxLength: 128, description: 'Reusing a task_id of the account answers 409 IDEMPOTENCY_KEY_REUSED.' },
  },
};

const IdParams = Type.Object({ character_id: Type.String({ minLength: 1 }) });
const tags = ['characters'];

export async function charactersRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/characters',
    { schema: { response: { 200: AssetSchema } }, config: { openapi: { summary: 'Create a Character from one image', tags, multipart: characterForm } } },
    async (request) => {
      const form = await readMediaForm(request, characterFormSpec(deps.config.limits), deps.tmpDir);
      try {
        return presentCharacter(await createCharacter(deps, requestCtx(request), form), { list: false });
      } finally {
        await form.cleanup();
      }
    },
  );

  app.get(
    '/characters',
    { schema: { response: { 200: Type.Object({ items: Type.Array(AssetSchema) }) } }, config: { openapi: { summary: 'The 100 most recent active Characters, newest first', tags } } },
    async (request) => ({ items: (await listCharacters(deps, principal(request).accountId)).map((r) => presentCharacter(r, { list: true })) }),
  );

  app.get<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    { schema: { params: IdParams, response: { 200: AssetSchema } }, config: { openapi: { summary: 'One Character', tags } } },
    async (request) => presentCharacter(await getCharacter(deps, principal(request).accountId, request.params.character_id), { list: false }),
  );

  app.delete<{ Params: { character_id: string } }>(
    '/characters/:character_id',
    { schema: { params: IdParams, response: { 200: DeletedSchema } }, config: { openapi: { summary: 'Delete a Character', tags } } },
    async (request) => deleteCharacter(deps, principal(request).accountId, request.params.character_id),
  );

  app.get<{ Params: { character_id: string }; Querystring: { download_type?: string } }>(
    '/characters/:character_id/export',
    {
      schema: {
        params: IdParams,
        querystring: Type.Object({ download_type: Type.Optional(Type.Literal('vsplat', { description: 'The only accepted value; populates vsplat_url.' })) }),
        response: { 200: Type.Object({ id: Type.String(), vsplat_url: Type.Union([Type.String(), Type.Null()]), thumbnail_url: Type.Union([Type.String(), Type.Null()]) }) },
      },
      config: { openapi: { summary: 'Export URLs of a Character (vsplat, thumbnail)', tags } },
    },
    async (request) => exportCharacter(deps, principal(request).accountId, request.params.character_id, request.query.download_type),
  );
}
