import type { FastifyInstance } from 'fastify';
import type { ServiceSet } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { invalidRequest } from '../../contracts/errors.js';
import type { MotionsTable } from '../../infra/db/schema.js';
import { readMediaForm } from '../multipart.js';
import { principal } from '../plugins/auth.js';
import { requestCtx } from '../routes/characters.routes.js';
import { inLegacyTerms, missingParameter } from './legacy-errors.js';
import { legacyAssetStatus, presentLegacyScene, SCENE_FIELDS } from './legacy-map.js';
import { oneOf, renameForm, spellingUsed } from './form-mapping.js';
import {
  LegacyPageQuery,
  LegacySceneFormSchema,
  LegacySceneIdParams,
  LegacySceneImportSchema,
  LegacySceneListSchema,
  LegacySceneSchema,
  LegacySceneStartedSchema,
  LegacySuccessSchema,
} from '../../contracts/schemas/legacy.js';

const tags = ['legacy'];
const VIDEO_SOURCES = ['driving_video', 'video', 'driving_video_url', 'video_url'] as const;

function started(row: MotionsTable, message: string) {
  // Templates here track one person, so `character_uuids` (multi-person templates only) is never sent.
  return { scene_id: row.id, job_id: row.id, status: legacyAssetStatus(row.status), message, name: row.name, created_at: row.created_at };
}

export async function legacyScenesRoutes(
  app: FastifyInstance,
  { motions }: Pick<ServiceSet, 'motions'>,
  settings: HttpSettings,
): Promise<void> {
  app.post(
    '/scenes',
    {
      schema: { response: { 200: LegacySceneStartedSchema } },
      config: {
        legacy: { successor: '/v1/motions' },
        openapi: {
          summary: 'Create a scene from a driving video (Legacy; V1: POST /v1/motions). Direct uploads: at most 10 minutes and 100 MB.',
          tags,
          deprecated: true,
          multipart: LegacySceneFormSchema,
        },
      },
    },
    async (request) => {
      const file = { maxBytes: settings.config.legacy.videoBytes };
      const form = await readMediaForm(
        request,
        { files: { driving_video: file, video: file }, fields: ['driving_video_url', 'video_url', 'name'] },
        settings.tmpDir,
      );
      try {
        oneOf(form, VIDEO_SOURCES, 'driving video');
        const v1Form = renameForm(form, SCENE_FIELDS);
        return started(
          await inLegacyTerms(
            { video: spellingUsed(form, ['driving_video', 'video']), video_url: spellingUsed(form, ['driving_video_url', 'video_url']) },
            () => motions.createMotion(requestCtx(request), v1Form),
          ),
          'Scene processing started.',
        );
      } finally {
        await form.cleanup();
      }
    },
  );

  app.post<{ Body: unknown }>(
    '/scenes/import',
    {
      schema: { response: { 200: LegacySceneStartedSchema } },
      config: {
        legacy: { successor: '/v1/motions/import' },
        openapi: {
          summary: 'Import a scene from a template, free (Legacy; V1: POST /v1/motions/import)',
          tags,
          deprecated: true,
          json: LegacySceneImportSchema,
        },
      },
    },
    async (request) => {
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw invalidRequest('The request body must be a JSON object with template_uuid.');
      const { template_uuid: uuid, name } = body as Record<string, unknown>;
      if (uuid === undefined || uuid === null || uuid === '') throw missingParameter(['template_uuid'], 'template_uuid is required.');
      if (typeof uuid !== 'string') throw invalidRequest('template_uuid must be a string.', { field: 'template_uuid' });
      if (name !== undefined && (typeof name !== 'string' || name.length > 256))
        throw invalidRequest('name must be a string of at most 256 characters.', { field: 'name' });
      return started(
        await inLegacyTerms({ template_id: 'template_uuid' }, () =>
          motions.importMotion(requestCtx(request), { template_id: uuid, ...(name === undefined ? {} : { name }) }),
        ),
        'Scene import started.',
      );
    },
  );

  app.get<{ Querystring: { limit?: number; offset?: number } }>(
    '/scenes',
    {
      schema: {
        querystring: LegacyPageQuery,
        response: { 200: LegacySceneListSchema },
      },
      config: {
        legacy: { successor: '/v1/motions' },
        openapi: { summary: 'Scenes, newest first, by offset (Legacy; V1: GET /v1/motions)', tags, deprecated: true },
      },
    },
    async (request) => {
      const rows = await motions.listMotionsByOffset(principal(request).accountId, request.query);
      return { scenes: rows.map(presentLegacyScene), total: rows.length };
    },
  );

  app.get<{ Params: { scene_id: string } }>(
    '/scenes/:scene_id',
    {
      schema: { params: LegacySceneIdParams, response: { 200: LegacySceneSchema } },
      config: {
        legacy: { successor: '/v1/motions/{scene_id}' },
        openapi: { summary: 'One scene (Legacy; V1: GET /v1/motions/{motion_id})', tags, deprecated: true },
      },
    },
    async (request) => presentLegacyScene(await motions.getMotion(principal(request).accountId, request.params.scene_id)),
  );

  app.delete<{ Params: { scene_id: string } }>(
    '/scenes/:scene_id',
    {
      schema: { params: LegacySceneIdParams, response: { 200: LegacySuccessSchema } },
      config: {
        legacy: { successor: '/v1/motions/{scene_id}' },
        openapi: {
          summary: 'Soft-delete a scene; renders that used it keep working (Legacy; V1: DELETE /v1/motions/{motion_id})',
          tags,
          deprecated: true,
        },
      },
    },
    async (request) => {
      await motions.deleteMotion(principal(request).accountId, request.params.scene_id);
      return { success: true as const };
    },
  );
}
