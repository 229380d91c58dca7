import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { motionFormSpec } from '../../domain/motions/motions.input.js';
import { presentMotion } from '../../domain/motions/motions.presenter.js';
import {
  MotionExportQuery,
  MotionExportSchema,
  MotionFormSchema,
  MotionIdParams,
  MotionImportBody,
  MotionListQuery,
  MotionPageSchema,
  MotionTemplatesSchema,
} from '../../contracts/schemas/motions.js';
import { principal } from '../plugins/auth.js';
import { AssetSchema, DeletedSchema } from '../../contracts/schemas/assets.js';
import { requestCtx } from './characters.routes.js';
import { readMediaForm } from '../multipart.js';
import { fingerprintJson, idempotent } from '../idempotency.js';

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
      config: { openapi: { summary: 'Create a Motion from a driving video', tags, multipart: MotionFormSchema } },
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
        body: MotionImportBody,
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
      schema: { response: { 200: MotionTemplatesSchema } },
      config: { openapi: { summary: 'Motion templates that ship with the service', tags } },
    },
    async () => ({ items: motions.listTemplates() }),
  );

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '/motions',
    {
      schema: { querystring: MotionListQuery, response: { 200: MotionPageSchema } },
      config: { openapi: { summary: 'Motions of the account, newest first (cursor pages)', tags } },
    },
    async (request) => {
      const page = await motions.listMotions(principal(request).accountId, request.query);
      return { items: page.rows.map((r) => presentMotion(r, { list: true })), next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  );

  app.get<{ Params: { motion_id: string } }>(
    '/motions/:motion_id',
    { schema: { params: MotionIdParams, response: { 200: AssetSchema } }, config: { openapi: { summary: 'One Motion', tags } } },
    async (request) => presentMotion(await motions.getMotion(principal(request).accountId, request.params.motion_id), { list: false }),
  );

  app.delete<{ Params: { motion_id: string } }>(
    '/motions/:motion_id',
    { schema: { params: MotionIdParams, response: { 200: DeletedSchema } }, config: { openapi: { summary: 'Delete a Motion', tags } } },
    async (request) => motions.deleteMotion(principal(request).accountId, request.params.motion_id),
  );

  app.get<{ Params: { motion_id: string }; Querystring: { download_type: string } }>(
    '/motions/:motion_id/export',
    {
      schema: {
        params: MotionIdParams,
        querystring: MotionExportQuery,
        response: { 200: MotionExportSchema },
      },
      config: { openapi: { summary: 'Export URLs of a Motion (MetaHuman and Mixamo rigs)', tags } },
    },
    async (request) => motions.exportMotion(principal(request).accountId, request.params.motion_id, request.query.download_type),
  );
  app.get<{ Params: { motion_id: string } }>(
    '/motions/:motion_id/thumbnail',
    {
      schema: { params: MotionIdParams },
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
