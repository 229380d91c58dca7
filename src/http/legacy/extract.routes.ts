import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceSet } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { invalidRequest } from '../../contracts/errors.js';
import {
  LegacyDynamicFbxAnswerSchema,
  LegacyDynamicFbxFormSchema,
  LegacyStaticBinAnswerSchema,
  legacyStaticBinFormSchema,
} from '../../contracts/schemas/legacy.js';
import { characterPrice } from '../../domain/billing/prices.js';
import { readMediaForm, type ReceivedForm } from '../multipart.js';
import { principal } from '../plugins/auth.js';
import { requestCtx } from '../routes/characters.routes.js';
import { legacyAssetStatus } from './legacy-map.js';
import { isSent, oneOf, renameForm, spellingUsed } from './form-mapping.js';
import { inLegacyTerms } from './legacy-errors.js';

/**
 * The two Legacy extraction operations mapped onto V1's 3D outputs (spec 9.1: `type` on Characters
 * and Motions plus their `/export`). Sent with media they create the asset with the 3D output
 * requested (`vsplat` / `glb`), priced and processed as V1 does; sent with `character_id` /
 * `scene_id` they answer the asset's export, renamed (`bin_url` is the one vsplat file, `fbx_url` the
 * MetaHuman FBX). Whatever V1 answers while 3D is not available, these answer too.
 */
const tags = ['legacy'];
const IMAGE_SOURCES = ['image', 'ref_image', 'image_url', 'ref_image_url'] as const;
const VIDEO_SOURCES = ['driving_video', 'video', 'driving_video_url', 'video_url'] as const;

/** Multipart (media or IDs) or JSON (IDs only): the form's text fields either way. */
async function readExtractForm(
  request: FastifyRequest,
  files: Record<string, { maxBytes: number }>,
  fields: readonly string[],
  tmpDir: string,
): Promise<Pick<ReceivedForm, 'fields' | 'files'> & { cleanup(): Promise<void> }> {
  if (request.isMultipart()) return readMediaForm(request, { files, fields }, tmpDir);
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest('Send multipart/form-data, or a JSON object naming an existing asset.');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (!fields.includes(k)) throw invalidRequest(`Unknown field ${k}.`, { field: k });
    if (v !== null && v !== undefined) out[k] = String(v);
  }
  return { fields: out, files: {}, cleanup: async () => {} };
}

export async function legacyExtractRoutes(
  app: FastifyInstance,
  { characters, motions }: Pick<ServiceSet, 'characters' | 'motions'>,
  settings: HttpSettings,
): Promise<void> {
  const image = { maxBytes: settings.config.limits.imageBytes };
  const video = { maxBytes: settings.config.legacy.videoBytes };

  app.post(
    '/extract/static-bin',
    {
      schema: { response: { 200: LegacyStaticBinAnswerSchema } },
      config: {
        legacy: { successor: '/v1/characters/{character_id}/export' },
        openapi: {
          summary:
            'Gaussian-splat extraction of a character (Legacy; V1: POST /v1/characters type=vsplat, then GET /v1/characters/{id}/export?download_type=vsplat)',
          tags,
          deprecated: true,
          multipart: legacyStaticBinFormSchema(characterPrice('vsplat', false)),
        },
      },
    },
    async (request) => {
      const form = await readExtractForm(
        request,
        { image, ref_image: image },
        ['character_id', 'image_url', 'ref_image_url', 'name', 'render_thumbnail', 'task_id', 'model', 'fp'],
        settings.tmpDir,
      );
      try {
        const accountId = principal(request).accountId;
        const which = oneOf(form, ['character_id', ...IMAGE_SOURCES], 'character or image');
        if (which === 'character_id') {
          const id = form.fields.character_id;
          const exp = await characters.exportCharacter(accountId, id, 'vsplat');
          const row = await characters.getCharacter(accountId, id);
          return {
            character_id: id,
            status: legacyAssetStatus(row.status),
            bin_url: exp.vsplat_url,
            vsplat_url: exp.vsplat_url,
            thumbnail_url: exp.thumbnail_url,
          };
        }
        const v1 = renameForm(form, {
          image: 'image',
          ref_image: 'image',
          image_url: 'image_url',
          ref_image_url: 'image_url',
          name: 'name',
          render_thumbnail: 'render_thumbnail',
          task_id: 'task_id',
        });
        v1.fields.type = 'vsplat';
        const model = isSent(form, 'model') ? form.fields.model.slice(0, 128) : null;
        const names = { image: spellingUsed(form, ['image', 'ref_image']), image_url: spellingUsed(form, ['image_url', 'ref_image_url']) };
        const row = await inLegacyTerms(names, () => characters.createCharacter(requestCtx(request), v1, { legacyModel: model }));
        return {
          job_id: row.id,
          character_id: row.id,
          status: legacyAssetStatus(row.status),
          message: 'Extraction started; POST again with character_id once the character is ready.',
          poll_url: `/api/characters/${row.id}`,
        };
      } finally {
        await form.cleanup();
      }
    },
  );

  app.post(
    '/extract/dynamic-fbx',
    {
      schema: { response: { 200: LegacyDynamicFbxAnswerSchema } },
      config: {
        legacy: { successor: '/v1/motions/{scene_id}/export' },
        openapi: {
          summary:
            'Skeletal animation (FBX) from a driving video (Legacy; V1: POST /v1/motions type=glb, then GET /v1/motions/{id}/export?download_type=fbx)',
          tags,
          deprecated: true,
          multipart: LegacyDynamicFbxFormSchema,
        },
      },
    },
    async (request) => {
      const form = await readExtractForm(
        request,
        { driving_video: video, video },
        ['scene_id', 'driving_video_url', 'video_url', 'name', 'enable_smoothing', 'target_fps', 'task_id'],
        settings.tmpDir,
      );
      try {
        const accountId = principal(request).accountId;
        const which = oneOf(form, ['scene_id', ...VIDEO_SOURCES], 'scene or driving video');
        if (which === 'scene_id') {
          const id = form.fields.scene_id;
          const exp = await motions.exportMotion(accountId, id, 'fbx');
          const row = await motions.getMotion(accountId, id);
          return {
            scene_id: id,
            status: legacyAssetStatus(row.status),
            fbx_url: exp.metahuman_url,
            metahuman_url: exp.metahuman_url,
            mixamo_url: exp.mixamo_url,
          };
        }
        const v1 = renameForm(form, {
          driving_video: 'video',
          video: 'video',
          driving_video_url: 'video_url',
          video_url: 'video_url',
          name: 'name',
          enable_smoothing: 'enable_smoothing',
          target_fps: 'target_fps',
          task_id: 'task_id',
        });
        v1.fields.type = 'glb';
        const names = {
          video: spellingUsed(form, ['driving_video', 'video']),
          video_url: spellingUsed(form, ['driving_video_url', 'video_url']),
        };
        const row = await inLegacyTerms(names, () => motions.createMotion(requestCtx(request), v1));
        return {
          job_id: row.id,
          scene_id: row.id,
          status: legacyAssetStatus(row.status),
          message: 'Extraction started; POST again with scene_id once the scene is ready.',
          poll_url: `/api/scenes/${row.id}`,
        };
      } finally {
        await form.cleanup();
      }
    },
  );
}
