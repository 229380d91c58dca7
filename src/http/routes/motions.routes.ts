import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { Type } from '@sinclair/typebox';
import { JOINT_SETS } from '../../domain/characters/characters.input.js';
import { MOTION_TYPES, motionFormSpec } from '../../domain/motions/motions.input.js';
import { presentMotion } from '../../domain/motions/motions.presenter.js';
import { MOTIONS_PAGE_DEFAULT, MOTIONS_PAGE_MAX } from '../../domain/motions/motions.service.js';
import { principal } from '../plugins/auth.js';
import { AssetSchema, DeletedSchema, requestCtx } from './characters.routes.js';
import { readMediaForm } from '../multipart.js';
import { fingerprintJson, idempotent } from '../idempotency.js';

const bool = (description: string) => ({ type: 'string', enum: ['true', 'false', '1', '0'], description });
const videoFile = {
  type: 'string',
  format: 'binary',
  description: 'MP4, MOV or WebM (by content); at most 200 MB, 0.5-300 s, 64-4096 px per side by default.',
};
const videoUrl = { type: 'string', format: 'uri', description: 'Public http(s) URL of the driving video; fetched by the worker.' };

const motionForm = {
  type: 'object',
  description: 'Exactly one of video / video_url / motion_video / motion_video_url (the last two are aliases).',
  properties: {
    video: videoFile,
    video_url: videoUrl,
    motion_video: { ...videoFile, description: 'Alias of video.' },
    motion_video_url: { ...videoUrl, description: 'Alias of video_url.' },
    name: { type: 'string', maxLength: 256, default: '' },
    type: { type: 'string', enum: MOTION_TYPES, default: 'render' },
    enable_smoothing: { ...bool('Temporal smoothing of the extracted track.'), default: 'true' },
    target_fps: { type: 'integer', minimum: 1, maximum: 60, description: 'Default: the source rate, capped at 30.' },
    joint_set: { type: 'string', enum: JOINT_SETS, default: 'body', description: 'Only for glb/all.' },
    task_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'Reusing a task_id of the account answers 409 IDEMPOTENCY_KEY_REUSED.',
    },
  },
};

const IdParams = Type.Object({ motion_id: Type.String({ minLength: 1 }) });
const tags = ['motions'];

export async function motionsRoutes(
  app: FastifyInstance,
  { motions, idempotency }: Pick<Services, 'motions' | 'idempotency'>,
  settings: HttpSettings,
): Promise<void> {
  app.post(
    '/motions',
    {
      schema: { response: { 200: AssetSchema } },
      config: { openapi: { summary: 'Create a Motion from a driving video', tags, multipart: motionForm } },
    },
    async (request, reply) => {
      const form = await readMediaForm(request, motionFormSpec(settings.config.limits), settings.tmpDir);
      const ctx = requestCtx(request);
      try {
        return await idempotent(idempotency, request, reply, {
          fingerprint: form.fingerprint,
          create: async () => {
            const row = await motions.createMotion(ctx, form);
            return { resourceId: row.id, statusCode: 200, body: presentMotion(row, { list: false }) };
          },
          replay: async (id) => presentMotion(await motions.getMotion(ctx.accountId, id), { list: false }),
        });
      } finally {
        await form.cleanup();
      }
    },
  );

  app.post<{ Body: { template_id: string; name?: string } }>(
    '/motions/import',
    {
      schema: {
        body: Type.Object(
          {
            template_id: Type.String({ minLength: 1, maxLength: 128 }),
            name: Type.Optional(Type.String({ maxLength: 256, description: "Default: the template's name." })),
          },
          { additionalProperties: false },
        ),
        response: { 200: AssetSchema },
      },
      config: { openapi: { summary: 'Import a Motion from a service template', tags } },
    },
    async (request, reply) => {
      const ctx = requestCtx(request);
      return idempotent(idempotency, request, reply, {
        fingerprint: fingerprintJson(request.body),
        create: async () => {
          const row = await motions.importMotion(ctx, request.body);
          return { resourceId: row.id, statusCode: 200, body: presentMotion(row, { list: false }) };
        },
        replay: async (id) => presentMotion(await motions.getMotion(ctx.accountId, id), { list: false }),
      });
    },
  );

  app.get(
    '/motions/templates',
    {
      schema: {
        response: {
          200: Type.Object({ items: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), duration_s: Type.Number() })) }),
        },
      },
      config: { openapi: { summary: 'Motion templates that ship with the service', tags } },
    },
    async () => ({ items: motions.listTemplates() }),
  );

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '/motions',
    {
      schema: {
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MOTIONS_PAGE_MAX, default: MOTIONS_PAGE_DEFAULT })),
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page (opaque).' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(AssetSchema),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
            has_more: Type.Boolean(),
          }),
        },
      },
      config: { openapi: { summary: 'Motions of the account, newest first (cursor pages)', tags } },
    },
    async (request) => {
      const page = await motions.listMotions(principal(request).accountId, request.query);
      return { items: page.rows.map((r) => presentMotion(r, { list: true })), next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  );

  app.get<{ Params: { motion_id: string } }>(
    '/motions/:motion_id',
    { schema: { params: IdParams, response: { 200: AssetSchema } }, config: { openapi: { summary: 'One Motion', tags } } },
    async (request) => presentMotion(await motions.getMotion(principal(request).accountId, request.params.motion_id), { list: false }),
  );

  app.delete<{ Params: { motion_id: string } }>(
    '/motions/:motion_id',
    { schema: { params: IdParams, response: { 200: DeletedSchema } }, config: { openapi: { summary: 'Delete a Motion', tags } } },
    async (request) => motions.deleteMotion(principal(request).accountId, request.params.motion_id),
  );

  app.get<{ Params: { motion_id: string }; Querystring: { download_type: string } }>(
    '/motions/:motion_id/export',
    {
      schema: {
        params: IdParams,
        querystring: Type.Object({ download_type: Type.Union([Type.Literal('glb'), Type.Literal('fbx')]) }),
        response: {
          200: Type.Object({
            id: Type.String(),
            metahuman_url: Type.Union([Type.String(), Type.Null()]),
            mixamo_url: Type.Union([Type.String(), Type.Null()]),
          }),
        },
      },
      config: { openapi: { summary: 'Export URLs of a Motion (MetaHuman and Mixamo rigs)', tags } },
    },
    async (request) => motions.exportMotion(principal(request).accountId, request.params.motion_id, request.query.download_type),
  );
  app.get<{ Params: { motion_id: string } }>(
    '/motions/:motion_id/thumbnail',
    {
      schema: { params: IdParams },
      config: {
        openapi: {
          summary: "The Motion's pose track drawn as stick figures, an SVG picture, once ready (an addition to the interface)",
          tags,
          responses: { '200': 'image/svg+xml' },
        },
      },
    },
    async (request, reply) => {
      const svg = await motions.motionThumbnail(principal(request).accountId, request.params.motion_id);
      // A ready Motion's track never changes, so the picture can be kept by the client.
      return reply.type('image/svg+xml; charset=utf-8').header('Cache-Control', 'private, max-age=86400').send(svg);
    },
  );
}
