import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import type { Static } from '@sinclair/typebox';
import { AppError, invalidRequest } from '../../contracts/errors.js';
import { readMediaForm } from '../multipart.js';
import { principal } from '../plugins/auth.js';
import type { RenderContext } from '../../domain/renders/renders.service.js';
import { RenderCreatedSchema } from '../../contracts/schemas/videos.js';
import { RenderDirectFormSchema, RenderDraftFormSchema, RenderIdParams } from '../../contracts/schemas/renders.js';
import { TEXT_FIELDS } from '../../domain/renders/render-input.js';
import { fingerprintOf } from '../../domain/idempotency/fingerprint.js';
import { idempotent } from '../idempotency.js';

/** Retired read paths (spec 4.1): 405 naming their replacement. */
function retired(allow: string, path: string): AppError {
  return new AppError('INVALID_REQUEST', `${path} is retired; read renders with GET /v1/videos/{id} and list them with GET /v1/videos.`, {
    status: 405,
    headers: { Allow: allow },
    details: { replacement: 'GET /v1/videos/{id}', allow: allow === '' ? [] : allow.split(', ') },
  });
}

export async function rendersRoutes(
  app: FastifyInstance,
  { drafts, renders, videos, idempotency }: Pick<Services, 'drafts' | 'renders' | 'videos' | 'idempotency'>,
  settings: HttpSettings,
): Promise<void> {
  const ctxOf = (request: { id: string; serviceSource: string | null }, accountId: string): RenderContext => ({
    accountId,
    requestId: request.id,
    serviceSource: request.serviceSource,
  });

  /** A replay reads the render again: current status, fresh signed URLs. */
  const replayRender = async (accountId: string, id: string) =>
    videos.presentVideo(await renders.findRenderRow(accountId, id), { links: true });
  const defaultRender = (request: FastifyRequest, reply: FastifyReply, ctx: RenderContext) =>
    idempotent(idempotency, request, reply, {
      fingerprint: fingerprintOf([]),
      create: async () => {
        const row = await renders.createDefaultRender(ctx);
        return { resourceId: row.id, statusCode: 200, body: await videos.presentVideo(row, { links: true }) };
      },
      replay: (id) => replayRender(ctx.accountId, id),
    });

  app.post(
    '/renders',
    {
      schema: { response: { 200: RenderCreatedSchema, 202: RenderCreatedSchema } },
      config: {
        openapi: {
          summary:
            'Create a render: multipart direct form (200), JSON draft form with Idempotency-Key (202), or no body for the project defaults (200)',
          tags: ['renders'],
          multipart: RenderDirectFormSchema,
          json: RenderDraftFormSchema,
          headers: {
            'Idempotency-Key': { type: 'string', minLength: 1, maxLength: 255, description: 'Required with the JSON draft form.' },
          },
        },
      },
    },
    async (request, reply) => {
      const ctx = ctxOf(request, principal(request).accountId);
      if (request.isMultipart()) {
        const form = await readMediaForm(
          request,
          {
            files: {
              image: { maxBytes: settings.config.limits.imageBytes },
              motion_video: { maxBytes: settings.config.limits.videoBytes },
            },
            fields: TEXT_FIELDS,
          },
          settings.tmpDir,
        );
        try {
          if (form.fingerprint.parts.length === 0) {
            // Only no body (or `{}`) means "the project defaults"; an empty form is not that.
            throw invalidRequest('The multipart form has no fields; send no body at all for a render of the project defaults.', {
              reason: 'empty_form',
            });
          }
          return await idempotent(idempotency, request, reply, {
            fingerprint: form.fingerprint,
            create: async () => {
              const row = await renders.createRenderFromForm(ctx, form);
              return { resourceId: row.id, statusCode: 200, body: await videos.presentVideo(row, { links: true }) };
            },
            replay: (id) => replayRender(ctx.accountId, id),
          });
        } finally {
          await form.cleanup();
        }
      }
      const contentType = request.headers['content-type'];
      if (contentType !== undefined) {
        if (!/^application\/json\s*(;|$)/i.test(contentType)) {
          throw new AppError(
            'INVALID_REQUEST',
            'POST /v1/renders takes multipart/form-data (direct form), application/json (draft form) or no body (project defaults).',
            {
              details: { content_type: contentType },
            },
          );
        }
        const body = request.body;
        // An empty JSON object asks for nothing in particular: the project defaults, like no body.
        if (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)
          return defaultRender(request, reply, ctx);
        const key = request.headers['idempotency-key'];
        const row = await drafts.createRenderFromDraft(ctx, request.body, typeof key === 'string' ? key : undefined);
        return reply.code(202).send(await videos.presentVideo(row, { links: true }));
      }
      return defaultRender(request, reply, ctx);
    },
  );

  const retiredDoc = (summary: string) => ({
    openapi: { summary, tags: ['renders'], responses: { '405': 'Retired: use GET /v1/videos/{id} or GET /v1/videos.' } },
  });
  app.get('/renders', { config: retiredDoc('Retired: list renders with GET /v1/videos') }, async () => {
    throw retired('POST', 'GET /v1/renders');
  });
  // Nothing is served at /v1/renders/{id} any more, hence the empty Allow (RFC 9110 §10.2.1).
  app.get(
    '/renders/:render_id',
    { schema: { params: RenderIdParams }, config: retiredDoc('Retired: read a render with GET /v1/videos/{id}') },
    async () => {
      throw retired('', 'GET /v1/renders/{id}');
    },
  );
  app.delete(
    '/renders/:render_id',
    { schema: { params: RenderIdParams }, config: retiredDoc('Retired: renders cannot be cancelled by clients') },
    async () => {
      throw retired('', 'DELETE /v1/renders/{id} (cancellation)');
    },
  );

  app.get<{ Params: Static<typeof RenderIdParams> }>(
    '/renders/:render_id/download',
    {
      schema: { params: RenderIdParams },
      config: {
        openapi: {
          summary: 'Redirect (302) to the finished video; 409 before ready',
          tags: ['renders'],
          responses: { '302': 'Location: a fresh signed URL of the video.' },
        },
      },
    },
    async (request, reply) => {
      const url = await renders.renderDownloadUrl(principal(request).accountId, request.params.render_id);
      return reply.code(302).header('Location', url).header('Cache-Control', 'no-store').send();
    },
  );
}
