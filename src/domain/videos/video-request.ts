import { randomInt } from 'node:crypto';
import { AppError, invalidRequest } from '../../contracts/errors.js';
import {
  ASPECT_RATIOS,
  ENHANCE_MODES,
  H3_RESOLUTIONS,
  QUALITIES,
  VIDEO_MODES,
  type AspectRatio,
  type H3Resolution,
} from '../../contracts/enums.js';
import { DURATION, PROMPT_MAX, SEED_MAX, TAGS } from '../../contracts/limits.js';
import type { CharacterSource, MotionSource } from '../renders/render-input.js';

/**
 * POST /v1/videos (DECISIONS "Videos"): the two modes, their fields and every rule, as one parse from
 * either a multipart form or a JSON body into a typed request. Nothing is stored or charged before
 * this has passed, so a refused request leaves nothing behind.
 */

/** Short side per resolution. */
export const SHORT_SIDE: Record<H3Resolution, number> = { '480p': 480, '768p': 768, '1080p': 1080, '2k': 1440, '4k': 2160 };

export const ANIMATE_CHARACTER_FIELDS = ['character_image', 'character_image_url', 'character_id'] as const;
export const ANIMATE_DRIVING_FIELDS = ['driving_video', 'driving_video_url', 'motion_id'] as const;
const COMMON_FIELDS = ['mode', 'model', 'prompt', 'seed', 'watermark'] as const;
const H3_ONLY_FIELDS = [
  'quality',
  'duration_s',
  'resolution',
  'aspect_ratio',
  'first_frame_image',
  'first_frame_image_url',
  'last_frame_image',
  'last_frame_image_url',
  'enhance_mode',
  'target_tags',
] as const;

/** Every field the endpoint knows (multipart text fields and JSON keys). */
export const VIDEO_TEXT_FIELDS = [
  ...COMMON_FIELDS,
  'quality',
  'duration_s',
  'resolution',
  'aspect_ratio',
  'first_frame_image_url',
  'last_frame_image_url',
  'enhance_mode',
  'target_tags',
  'character_image_url',
  'character_id',
  'driving_video_url',
  'motion_id',
] as const;
export const VIDEO_FILE_FIELDS = ['character_image', 'driving_video', 'first_frame_image', 'last_frame_image'] as const;

export type ImageSource = { kind: 'file'; path: string } | { kind: 'url'; url: string };

export interface H3Request {
  mode: 'h3';
  prompt: string;
  quality: 'low' | 'high';
  durationS: number;
  resolution: H3Resolution;
  aspectRatio: AspectRatio;
  width: number;
  height: number;
  seed: number;
  firstFrame: ImageSource | null;
  lastFrame: ImageSource | null;
  enhance: boolean;
  tags: string[];
  watermark: boolean;
  model: string | null;
}

export interface AnimateRequest {
  mode: 'animate';
  character: CharacterSource;
  motion: MotionSource;
  prompt: string | null;
  seed: number;
  watermark: boolean;
  model: string | null;
}

export type VideoRequest = H3Request | AnimateRequest;

/** A request as received: text values (JSON values kept as given), repeated fields as lists, files. */
export interface RawVideoRequest {
  values: Record<string, unknown>;
  files: Record<string, { path: string; size: number; filename: string }>;
}

/** Output size of an H3 clip: the short side from the resolution, the long side from the ratio, both even. */
export function h3Size(resolution: H3Resolution, aspect: AspectRatio): { width: number; height: number } {
  const [a, b] = aspect.split(':').map(Number);
  const short = SHORT_SIDE[resolution];
  const long = Math.round((short * Math.max(a, b)) / Math.min(a, b) / 2) * 2;
  return a >= b ? { width: long, height: short } : { width: short, height: long };
}

function sent(raw: RawVideoRequest, field: string): boolean {
  if (Object.hasOwn(raw.files, field)) {
    const f = raw.files[field];
    return !(f.size === 0 && f.filename === '');
  }
  const v = raw.values[field];
  return v !== undefined && v !== null && v !== '';
}

function text(raw: RawVideoRequest, field: string): string | undefined {
  if (!sent(raw, field)) return undefined;
  const v = raw.values[field];
  if (typeof v !== 'string') throw invalidRequest(`${field} must be a string.`, { field });
  return v;
}

function oneOf<T extends string>(raw: RawVideoRequest, field: string, allowed: readonly T[], def: T): T {
  const v = text(raw, field);
  if (v === undefined) return def;
  if (!(allowed as readonly string[]).includes(v))
    throw invalidRequest(`${field} must be one of ${allowed.join(', ')}.`, { field, value: v, allowed: [...allowed] });
  return v as T;
}

function bool(raw: RawVideoRequest, field: string): boolean {
  if (!sent(raw, field)) return false;
  const v = raw.values[field];
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw invalidRequest(`${field} must be a boolean (true or false).`, { field, value: v });
}

function seedOf(raw: RawVideoRequest): number {
  if (!sent(raw, 'seed')) return randomInt(0, SEED_MAX + 1);
  const v = raw.values.seed;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > SEED_MAX)
    throw invalidRequest(`seed must be an integer from 0 to ${SEED_MAX}.`, { field: 'seed', value: v });
  return n;
}

function promptOf(raw: RawVideoRequest, required: boolean): string | null {
  const v = sent(raw, 'prompt') ? raw.values.prompt : undefined;
  if (v !== undefined && typeof v !== 'string') throw invalidRequest('prompt must be a string.', { field: 'prompt' });
  if (v === undefined || v.trim() === '') {
    if (required) throw invalidRequest('prompt is required in H3 mode and must not be blank.', { field: 'prompt' });
    return null;
  }
  if ([...v].length > PROMPT_MAX)
    throw invalidRequest(`prompt may have at most ${PROMPT_MAX} characters.`, { field: 'prompt', length: [...v].length, max: PROMPT_MAX });
  return v;
}

function tagsOf(raw: RawVideoRequest): string[] {
  if (!sent(raw, 'target_tags')) return [];
  const v = raw.values.target_tags;
  const list = Array.isArray(v) ? v : [v];
  if (list.some((t) => typeof t !== 'string')) throw invalidRequest('target_tags must be a list of strings.', { field: 'target_tags' });
  const tags = (list as string[]).map((t) => t.trim());
  if (tags.length > TAGS.max)
    throw invalidRequest(`target_tags may have at most ${TAGS.max} tags.`, { field: 'target_tags', count: tags.length, max: TAGS.max });
  const bad = tags.find((t) => t === '' || [...t].length > TAGS.maxLength);
  if (bad !== undefined)
    throw invalidRequest(`Each target tag must have 1 to ${TAGS.maxLength} characters.`, { field: 'target_tags', value: bad });
  return tags;
}

function durationOf(raw: RawVideoRequest): number {
  if (!sent(raw, 'duration_s')) return DURATION.default;
  const v = raw.values.duration_s;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < DURATION.min || n > DURATION.max) {
    throw invalidRequest(`duration_s must be a number from ${DURATION.min} to ${DURATION.max}.`, { field: 'duration_s', value: v });
  }
  return n;
}

/** Exactly one of `fields` (or none when optional); returns the field sent. */
function single(raw: RawVideoRequest, family: string, fields: readonly string[]): string | null {
  const given = fields.filter((f) => sent(raw, f));
  if (given.length > 1)
    throw invalidRequest(`Send exactly one ${family}; got ${given.join(', ')}.`, { family, fields: given, allowed: [...fields] });
  return given[0] ?? null;
}

function imageSource(raw: RawVideoRequest, fileField: string, urlField: string): ImageSource | null {
  const f = single(raw, fileField.replace(/_image$/, ' image'), [fileField, urlField]);
  if (f === null) return null;
  return f === fileField ? { kind: 'file', path: raw.files[fileField].path } : { kind: 'url', url: text(raw, urlField)! };
}

export const DRIVING_VIDEO_MESSAGE = 'character-animation mode needs a driving video; image-only requests are unsupported';

export function parseVideoRequest(raw: RawVideoRequest): VideoRequest {
  for (const f of Object.keys(raw.files)) {
    if (!(VIDEO_FILE_FIELDS as readonly string[]).includes(f)) throw invalidRequest(`Unknown file field ${f}.`, { field: f });
  }
  for (const f of Object.keys(raw.values)) {
    if (!(VIDEO_TEXT_FIELDS as readonly string[]).includes(f)) {
      throw invalidRequest(
        (VIDEO_FILE_FIELDS as readonly string[]).includes(f) ? `The field ${f} must be a file.` : `Unknown field ${f}.`,
        { field: f },
      );
    }
  }
  const model = text(raw, 'model') ?? null;
  if (model !== null && model !== 'h3')
    throw invalidRequest('model must be "h3" (the H3 generation mode); leave it out for character animation.', {
      field: 'model',
      value: model,
      allowed: ['h3'],
    });
  const explicit = sent(raw, 'mode') ? oneOf(raw, 'mode', VIDEO_MODES, 'h3') : null;
  const hasDriving = ANIMATE_DRIVING_FIELDS.some((f) => sent(raw, f));
  const hasCharacter = ANIMATE_CHARACTER_FIELDS.some((f) => sent(raw, f));
  const mode = explicit ?? (model === 'h3' ? 'h3' : hasDriving ? 'animate' : 'h3');
  if ((mode === 'animate' || hasCharacter) && !hasDriving) {
    throw new AppError('DRIVING_VIDEO_REQUIRED', DRIVING_VIDEO_MESSAGE, {
      details: { mode: 'animate', fields: [], allowed: [...ANIMATE_DRIVING_FIELDS] },
    });
  }
  if (mode === 'animate' && model === 'h3')
    throw invalidRequest('model=h3 names H3 mode; it cannot be combined with mode=animate.', { field: 'model', mode });
  const watermark = bool(raw, 'watermark');
  const seed = seedOf(raw);

  if (mode === 'animate') {
    const extra = H3_ONLY_FIELDS.filter((f) => sent(raw, f));
    if (extra.length > 0)
      throw invalidRequest(`${extra.join(', ')} ${extra.length > 1 ? 'apply' : 'applies'} to H3 mode only.`, { fields: extra, mode });
    const c = single(raw, 'character source', ANIMATE_CHARACTER_FIELDS);
    if (c === null) {
      throw invalidRequest(`Character-animation mode needs a character: send one of ${ANIMATE_CHARACTER_FIELDS.join(', ')}.`, {
        family: 'character',
        fields: [],
        allowed: [...ANIMATE_CHARACTER_FIELDS],
      });
    }
    const m = single(raw, 'driving source', ANIMATE_DRIVING_FIELDS)!;
    const character: CharacterSource =
      c === 'character_id'
        ? { kind: 'character', id: text(raw, c)! }
        : c === 'character_image'
          ? { kind: 'file', path: raw.files[c].path }
          : { kind: 'url', url: text(raw, c)! };
    const motion: MotionSource =
      m === 'motion_id'
        ? { kind: 'motion', id: text(raw, m)! }
        : m === 'driving_video'
          ? { kind: 'file', path: raw.files[m].path }
          : { kind: 'url', url: text(raw, m)! };
    return { mode: 'animate', character, motion, prompt: promptOf(raw, false), seed, watermark, model };
  }

  const wrong = [...ANIMATE_DRIVING_FIELDS].filter((f) => sent(raw, f));
  if (wrong.length > 0)
    throw invalidRequest(`${wrong.join(', ')} ${wrong.length > 1 ? 'apply' : 'applies'} to mode=animate only.`, { fields: wrong, mode });
  const prompt = promptOf(raw, true)!;
  const resolution = oneOf(raw, 'resolution', H3_RESOLUTIONS, '768p');
  const aspectRatio = oneOf(raw, 'aspect_ratio', ASPECT_RATIOS, '16:9');
  const firstFrame = imageSource(raw, 'first_frame_image', 'first_frame_image_url');
  const lastFrame = imageSource(raw, 'last_frame_image', 'last_frame_image_url');
  if (lastFrame && !firstFrame) {
    throw invalidRequest('last_frame_image needs a first frame too: send first_frame_image or first_frame_image_url.', {
      field: 'last_frame_image',
      requires: ['first_frame_image', 'first_frame_image_url'],
    });
  }
  return {
    mode: 'h3',
    prompt,
    quality: oneOf(raw, 'quality', QUALITIES, 'low'),
    durationS: durationOf(raw),
    resolution,
    aspectRatio,
    ...h3Size(resolution, aspectRatio),
    seed,
    firstFrame,
    lastFrame,
    enhance: oneOf(raw, 'enhance_mode', ENHANCE_MODES, 'off') === 'prompt',
    tags: tagsOf(raw),
    watermark,
    model,
  };
}
