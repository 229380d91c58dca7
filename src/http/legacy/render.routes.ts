import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceSet, VideosService } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import {
  LegacyJobParams,
  LegacyRenderCreatedSchema,
  LegacyRenderFormSchema,
  LegacyRenderJobSchema,
} from '../../contracts/schemas/legacy.js';
import { presentError } from '../../domain/videos/videos.presenter.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { readMediaForm } from '../multipart.js';
import { idempotent } from '../idempotency.js';
import { optionalPrincipal, principal } from '../plugins/auth.js';
import { inLegacyTerms, legacyCodeOf } from './legacy-errors.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../contracts/errors.js';
import { invert, legacyRenderStatus, RENDER_FIELDS, renderMode } from './legacy-map.js';
import { oneOf, renameForm } from './form-mapping.js';

const tags = ['legacy'];
const RENDER_TEXT_FIELDS = [
  'ref_image_url',
  'driving_video_url',
  'character_id',
  'scene_id',
  'model',
  'background_mode',
  'bg_color',
] as const;
const V1_NAMES = invert(RENDER_FIELDS);

function jobPath(id: string): string {
  return `/api/render/${id}`;
}

/** The Legacy job: the V1 Render object renamed (spec 9.1), error fields at the top level. */
export async function presentLegacyJob(videos: VideosService, row: VideosTable): Promise<Record<string, unknown>> {
  const urls = await videos.signedOutputUrls(row);
  const err = row.status === 'failed' ? presentError(row) : null;
  return {
    job_id: row.id,
    status: legacyRenderStatus(row.status),
    mode: renderMode(row),
    progress: row.progress === null ? null : Math.max(0, Math.min(100, Math.round(Number(row.progress)))),
    enqueued_at: row.created_at,
    completed_at: row.completed_at,
    cdn_url: urls.video_url,
    mask_cdn_url: urls.alpha_url,
    // A stored failure carries a catalogue code (presentError guarantees it); its status is the catalogue's.
    error_code: err ? legacyCodeOf(err.code as ErrorCode, ERROR_CATALOGUE[err.code as ErrorCode].status, err.details).errorCode : null,
    error: err ? err.message : null,
    poll_url: jobPath(row.id),
    status_url: jobPath(row.id),
  };
}

function ctxOf(request: FastifyRequest) {
  return { accountId: principal(request).accountId, requestId: request.id, serviceSource: request.serviceSource };
}

export async function legacyRenderRoutes(
  app: FastifyInstance,
  { renders, videos, idempotency }: Pick<ServiceSet, 'renders' | 'videos' | 'idempotency'>,
  settings: HttpSettings,
): Promise<void> {
  app.post(
    '/render',
    {
      schema: { response: { 200: LegacyRenderCreatedSchema } },
      config: {
        legacy: { successor: '/v1/renders' },
        openapi: {
          summary: 'Create a render (Legacy; V1: POST /v1/renders). Cost: 1 credit per second of video.',
          tags,
          multipart: LegacyRenderFormSchema,
          deprecated: true,
        },
      },
    },
    async (request, reply) => {
      const form = await readMediaForm(
        request,
        {
          files: {
            ref_image: { maxBytes: settings.config.limits.imageBytes },
            driving_video: { maxBytes: settings.config.legacy.videoBytes },
          },
          fields: RENDER_TEXT_FIELDS,
        },
        settings.tmpDir,
      );
      try {
        // Legacy has no project-default render: both families are required parameters.
        oneOf(form, ['ref_image', 'ref_image_url', 'character_id'], 'character source');
        oneOf(form, ['driving_video', 'driving_video_url', 'scene_id'], 'scene source');
        const model = form.fields.model ?? '';
        const v1Form = renameForm(form, RENDER_FIELDS);
        const ctx = ctxOf(request);
        const present = (row: VideosTable) => ({
          job_id: row.id,
          status: legacyRenderStatus(row.status),
          mode: renderMode(row),
          enqueued_at: row.created_at,
          poll_url: jobPath(row.id),
          status_url: jobPath(row.id),
        });
        return await idempotent(idempotency, request, reply, {
          fingerprint: form.fingerprint,
          create: async () => {
            const row = await inLegacyTerms(V1_NAMES, () =>
              renders.createRenderFromForm(ctx, v1Form, model === '' ? {} : { params: { legacy_model: model.slice(0, 128) } }),
            );
            return { resourceId: row.id, statusCode: 200, body: present(row) };
          },
          replay: async (id) => present(await renders.findRenderRow(ctx.accountId, id)),
        });
      } finally {
        await form.cleanup();
      }
    },
  );

  app.get<{ Params: { job_id: string } }>(
    '/render/:job_id',
    {
      schema: { params: LegacyJobParams, response: { 200: LegacyRenderJobSchema } },
      config: {
        legacy: { successor: '/v1/videos/{job_id}', open: true },
        openapi: {
          summary:
            'Status of a render (Legacy; V1: GET /v1/videos/{video_id}). Readable without a credential unless the operator turned that off; a credential that is sent is checked.',
          tags,
          deprecated: true,
          optionalAuth: true,
        },
      },
    },
    async (request) => {
      const who = optionalPrincipal(request);
      return presentLegacyJob(videos, await renders.findRenderRow(who === null ? null : who.accountId, request.params.job_id));
    },
  );

  app.delete<{ Params: { job_id: string } }>(
    '/render/:job_id',
    {
      schema: { params: LegacyJobParams, response: { 200: LegacyRenderJobSchema } },
      config: {
        legacy: { successor: '/v1/videos/{job_id}' },
        openapi: {
          summary: 'Cancel a queued or processing render (credits released), or read its terminal status (Legacy; no V1 equivalent)',
          tags,
          deprecated: true,
        },
      },
    },
    async (request) => {
      const { row, cancelled } = await renders.cancelOwnedRender(principal(request).accountId, request.params.job_id);
      return { ...(await presentLegacyJob(videos, row)), cancelled };
    },
  );
}
