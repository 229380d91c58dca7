import { Type } from '@sinclair/typebox';
import { ASSET_STATUSES } from '../enums.js';

const STATUS = Type.Union(ASSET_STATUSES.map((s) => Type.Literal(s)));

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
