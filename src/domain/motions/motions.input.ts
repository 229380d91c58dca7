import type { Config } from '../../config/config.js';
import type { MotionsTable } from '../../infra/db/schema.js';
import { checkSourceUrl, JOINT_SETS } from '../characters/characters.input.js';
import { NAME_MAX, TASK_ID_MAX } from '../../contracts/limits.js';
import {
  boolField,
  enumField,
  exactlyOneSource,
  integerField,
  optionalStringField,
  stringField,
  type Fields,
} from '../characters/form-fields.js';

/**
 * The `POST /v1/motions` form (DECISIONS "Motions"): `video` or `video_url` (aliases `motion_video`,
 * `motion_video_url`), exactly one of the four; `name`, `type`, `enable_smoothing`, `target_fps`,
 * `joint_set`, `task_id`. Every field is validated before any media is probed or stored.
 */
export const MOTION_FILE_FIELDS = ['video', 'motion_video'] as const;
export const MOTION_TEXT_FIELDS = [
  'video_url',
  'motion_video_url',
  'name',
  'type',
  'enable_smoothing',
  'target_fps',
  'joint_set',
  'task_id',
] as const;
export { MOTION_TYPES } from '../../contracts/enums.js';
import { MOTION_TYPES } from '../../contracts/enums.js';
const SOURCE_FIELDS = ['video', 'motion_video', 'video_url', 'motion_video_url'] as const;

export function motionFormSpec(limits: Config['limits']) {
  const file = { maxBytes: limits.videoBytes };
  return { files: { video: file, motion_video: file }, fields: MOTION_TEXT_FIELDS };
}

export type VideoSource = { kind: 'file'; path: string } | { kind: 'url'; url: string };

export interface MotionInput {
  source: VideoSource;
  name: string;
  type: MotionsTable['type'];
  enableSmoothing: boolean;
  /** Null: the source's own rate, capped at 30 (decided by the extraction worker). */
  targetFps: number | null;
  jointSet: MotionsTable['joint_set'];
  taskId: string | null;
}

export function parseMotionForm(
  fields: Fields,
  files: Record<string, { path: string }>,
  config: Pick<Config, 'urlAllowList'>,
): MotionInput {
  const sent = {
    video: files.video !== undefined,
    motion_video: files.motion_video !== undefined,
    video_url: fields.video_url !== undefined,
    motion_video_url: fields.motion_video_url !== undefined,
  };
  const which = exactlyOneSource(sent, SOURCE_FIELDS, 'driving video');
  const input: MotionInput = {
    source: { kind: 'file', path: '' },
    name: stringField(fields, 'name', { def: '', max: NAME_MAX }),
    type: enumField(fields, 'type', MOTION_TYPES, 'render'),
    enableSmoothing: boolField(fields, 'enable_smoothing', true),
    targetFps: integerField(fields, 'target_fps', { min: 1, max: 60 }),
    jointSet: enumField(fields, 'joint_set', JOINT_SETS, 'body'),
    taskId: optionalStringField(fields, 'task_id', { min: 1, max: TASK_ID_MAX }),
  };
  input.source =
    which === 'video' || which === 'motion_video'
      ? { kind: 'file', path: files[which].path }
      : { kind: 'url', url: checkSourceUrl(which, fields[which], config.urlAllowList) };
  return input;
}
