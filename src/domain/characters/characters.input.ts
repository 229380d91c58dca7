import { AppError } from '../../contracts/errors.js';
import type { Config } from '../../config/config.js';
import type { CharactersTable } from '../../infra/db/schema.js';
import { checkUrlAtDoor } from '../../infra/net/safe-fetch.js';
import { boolField, enumField, exactlyOneSource, numberField, optionalStringField, stringField, type Fields } from './form-fields.js';

/**
 * The `POST /v1/characters` form (spec 4.3): its field list (also used by the multipart reader and
 * the OpenAPI description) and its parsing into a typed input. Every field is validated here, before
 * any media is probed or stored.
 */
export const CHARACTER_TEXT_FIELDS = [
  'image_url',
  'name',
  'type',
  'enhance',
  'joint_set',
  'model_precision',
  'filter_low_quality',
  'render_thumbnail',
  'task_id',
] as const;
export { CHARACTER_TYPES, JOINT_SETS } from '../../contracts/enums.js';
import { CHARACTER_TYPES, JOINT_SETS } from '../../contracts/enums.js';
import { NAME_MAX, TASK_ID_MAX } from '../../contracts/limits.js';

export function characterFormSpec(limits: Config['limits']) {
  return { files: { image: { maxBytes: limits.imageBytes } }, fields: CHARACTER_TEXT_FIELDS };
}

export type ImageSource = { kind: 'file'; path: string } | { kind: 'url'; url: string };

export interface CharacterInput {
  source: ImageSource;
  name: string;
  type: CharactersTable['type'];
  enhance: boolean;
  jointSet: CharactersTable['joint_set'];
  modelPrecision: number | null;
  filterLowQuality: boolean;
  renderThumbnail: boolean;
  taskId: string | null;
}

/** Adds the field name to a URL refusal from the safe-fetch door check. */
export function checkSourceUrl(field: string, url: string, allowList: readonly string[]): string {
  try {
    return checkUrlAtDoor(url, allowList);
  } catch (e) {
    if (e instanceof AppError) {
      throw new AppError(e.code, `The field ${field} is refused: ${e.message}`, { details: { ...e.details, field }, status: e.status });
    }
    throw e;
  }
}

export function parseCharacterForm(
  fields: Fields,
  files: Record<string, { path: string }>,
  config: Pick<Config, 'urlAllowList'>,
): CharacterInput {
  const which = exactlyOneSource(
    { image: files.image !== undefined, image_url: fields.image_url !== undefined },
    ['image', 'image_url'] as const,
    'character image',
  );
  const type = enumField(fields, 'type', CHARACTER_TYPES, 'render');
  const input: CharacterInput = {
    source: { kind: 'file', path: '' },
    name: stringField(fields, 'name', { def: '', max: NAME_MAX }),
    type,
    enhance: boolField(fields, 'enhance', false),
    jointSet: enumField(fields, 'joint_set', JOINT_SETS, 'body'),
    modelPrecision: numberField(fields, 'model_precision', { gt: 0, max: 1 }),
    filterLowQuality: boolField(fields, 'filter_low_quality', false),
    renderThumbnail: boolField(fields, 'render_thumbnail', false),
    taskId: optionalStringField(fields, 'task_id', { min: 1, max: TASK_ID_MAX }),
  };
  // The URL is checked last so that a form with several mistakes reports the cheapest one first.
  input.source =
    which === 'image'
      ? { kind: 'file', path: files.image.path }
      : { kind: 'url', url: checkSourceUrl('image_url', fields.image_url, config.urlAllowList) };
  return input;
}
