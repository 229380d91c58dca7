import { invalidRequest } from '../../contracts/errors.js';
import { parseBackground, type Background } from './background.js';

/**
 * What a Render is made from, independent of how it arrived (direct multipart form or a draft).
 * `file` sources are local temp files still to be checked and moved into storage; `stored` sources
 * are already in storage (draft uploads), optionally with a local copy at `path` to probe.
 */
export type CharacterSource =
  | { kind: 'character'; id: string }
  | { kind: 'file'; path: string }
  | { kind: 'stored'; key: string; path?: string }
  | { kind: 'url'; url: string };

export type MotionSource =
  | { kind: 'motion'; id: string }
  | { kind: 'file'; path: string }
  | { kind: 'stored'; key: string; path?: string }
  | { kind: 'url'; url: string };

export interface RenderInput {
  character: CharacterSource | null;
  motion: MotionSource | null;
  /** Parsed at the door; stored on the row and given to the engine as is. */
  background: Background;
}

/** How a source is recorded on the `videos` row (JSON in character_source / motion_source). */
export type StoredCharacterSource =
  { kind: 'character'; id: string } | { kind: 'stored'; key: string } | { kind: 'url'; url: string } | { kind: 'builtin' };
export type StoredMotionSource =
  { kind: 'motion'; id: string } | { kind: 'stored'; key: string } | { kind: 'url'; url: string } | { kind: 'template'; id: string };

/** The direct form's fields, per input family, in the order the spec lists them. */
export const CHARACTER_FIELDS = ['character_id', 'image', 'image_url'] as const;
export const MOTION_FIELDS = ['motion_id', 'motion_video', 'motion_video_url'] as const;
export const TEXT_FIELDS = ['character_id', 'image_url', 'motion_id', 'motion_video_url', 'background_mode', 'bg_color'] as const;
export const FILE_FIELDS = ['image', 'motion_video'] as const;

/** A direct form as received: text values and local temp files, each at most once. */
export interface RenderForm {
  fields: Record<string, string>;
  files: Record<string, { path: string; size: number; filename: string }>;
}

/**
 * Empty text fields and empty, unnamed file parts count as "not sent": form helpers (and HTML forms)
 * send every input of a form, filled or not, and treating those as sources would make the natural
 * client code fail with "more than one source".
 */
function sent(form: RenderForm, field: string): boolean {
  if (field in form.files) {
    const f = form.files[field];
    return !(f.size === 0 && f.filename === '');
  }
  return (form.fields[field] ?? '') !== '';
}

/**
 * Spec 4.1 rules 1 and 3: exactly one source per family, both families or neither. Reports every
 * problem of the first failing family with the fields involved, so a client can fix it in one go.
 */
export function parseRenderForm(form: RenderForm): RenderInput {
  const chosen = (family: 'character' | 'motion', fields: readonly string[]) => {
    const given = fields.filter((f) => sent(form, f));
    if (given.length > 1) {
      throw invalidRequest(`Send exactly one ${family} source; got ${given.join(', ')}.`, { family, fields: given, allowed: [...fields] });
    }
    return given[0] ?? null;
  };
  const c = chosen('character', CHARACTER_FIELDS);
  const m = chosen('motion', MOTION_FIELDS);
  if ((c === null) !== (m === null)) {
    const missing = c === null ? 'character' : 'motion';
    throw invalidRequest(
      `A ${missing} source is missing: send one of ${(missing === 'character' ? CHARACTER_FIELDS : MOTION_FIELDS).join(', ')}, or send neither family to use the project defaults.`,
      { family: missing, fields: [], allowed: [...(missing === 'character' ? CHARACTER_FIELDS : MOTION_FIELDS)], given: [c ?? m] },
    );
  }
  const background = parseBackground(form.fields.background_mode, form.fields.bg_color);
  const character: CharacterSource | null =
    c === 'character_id'
      ? { kind: 'character', id: form.fields.character_id }
      : c === 'image'
        ? { kind: 'file', path: form.files.image.path }
        : c === 'image_url'
          ? { kind: 'url', url: form.fields.image_url }
          : null;
  const motion: MotionSource | null =
    m === 'motion_id'
      ? { kind: 'motion', id: form.fields.motion_id }
      : m === 'motion_video'
        ? { kind: 'file', path: form.files.motion_video.path }
        : m === 'motion_video_url'
          ? { kind: 'url', url: form.fields.motion_video_url }
          : null;
  return { character, motion, background };
}
