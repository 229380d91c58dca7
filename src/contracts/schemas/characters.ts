import { Type } from '@sinclair/typebox';
import { CHARACTER_TYPES, JOINT_SETS } from '../enums.js';
import { AssetSchema } from './assets.js';
import { boolField, nameField, taskIdField } from './form-fields.js';

/** POST /v1/characters (spec 4.3); `typePrices` is the price list of src/domain/billing/prices.ts. */
export function characterFormSchema(typePrices: string) {
  return {
    type: 'object',
    description: 'Exactly one of image / image_url.',
    properties: {
      image: {
        type: 'string',
        format: 'binary',
        description: 'PNG, JPEG or WebP (by content); at most 20 MB and 4096 px per side by default.',
      },
      image_url: { type: 'string', format: 'uri', description: 'Public http(s) URL of the image; must stay reachable during processing.' },
      name: nameField,
      type: { type: 'string', enum: CHARACTER_TYPES, default: 'render', description: `Price: ${typePrices}.` },
      enhance: { ...boolField('Only for vsplat/all.'), default: 'false' },
      joint_set: { type: 'string', enum: JOINT_SETS, default: 'body' },
      model_precision: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      filter_low_quality: { ...boolField('Only for vsplat/all.'), default: 'false' },
      render_thumbnail: { ...boolField('Generate the standard thumbnail.'), default: 'false' },
      task_id: taskIdField,
    },
  };
}

export const CharacterIdParams = Type.Object({ character_id: Type.String({ minLength: 1 }) });

/** The spec gives GET /v1/characters no parameters; like every list, it refuses ones it does not define. */
export const CharacterListQuery = Type.Object({}, { additionalProperties: false });
export const CharacterListSchema = Type.Object({ items: Type.Array(AssetSchema) });

export const CharacterExportQuery = Type.Object({
  download_type: Type.Optional(Type.Literal('vsplat', { description: 'The only accepted value; populates vsplat_url.' })),
});
export const CharacterExportSchema = Type.Object({
  id: Type.String(),
  vsplat_url: Type.Union([Type.String(), Type.Null()]),
  thumbnail_url: Type.Union([Type.String(), Type.Null()]),
});
