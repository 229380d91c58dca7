import { invalidRequest } from '../../contracts/errors.js';
import type { Config } from '../../config/config.js';
import { checkUrlAtDoor } from '../../infra/net/safe-fetch.js';
import { CHARACTER_FIELDS, MOTION_FIELDS } from '../renders/render-input.js';
import { backgroundFields, parseBackground, type BackgroundMode, type Rgb } from '../renders/background.js';

/**
 * The prepare body: the direct form's fields as JSON, where a file field (`image`, `motion_video`)
 * is a declaration `{content_type, size_bytes, sha256?}` of the bytes that will be PUT later.
 * Everything that can be judged now is judged now (family rules, background, URL guard, declared
 * type and size against the media limits), so a draft that is accepted only lacks its bytes.
 */

export type FileField = 'image' | 'motion_video';

export interface Declaration {
  contentType: string;
  sizeBytes: number;
  sha256: string | null;
}

/** What a draft stores in `drafts.spec_json`: the render it will create, with uploads by field. */
export interface DraftSpec {
  character: { kind: 'character'; id: string } | { kind: 'upload'; field: 'image' } | { kind: 'url'; url: string } | null;
  motion: { kind: 'motion'; id: string } | { kind: 'upload'; field: 'motion_video' } | { kind: 'url'; url: string } | null;
  background_mode: BackgroundMode;
  bg_color: Rgb | null;
}

export { IMAGE_TYPES, VIDEO_TYPES } from '../../contracts/enums.js';
import { IMAGE_TYPES, VIDEO_TYPES } from '../../contracts/enums.js';

const KNOWN_FIELDS = new Set<string>([...CHARACTER_FIELDS, ...MOTION_FIELDS, 'background_mode', 'bg_color']);
const SHA256_RE = /^[0-9a-f]{64}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseDeclaration(field: FileField, raw: unknown, limits: Config['limits']): Declaration {
  const isImage = field === 'image';
  const allowed: readonly string[] = isImage ? IMAGE_TYPES : VIDEO_TYPES;
  const limit = isImage ? limits.imageBytes : limits.videoBytes;
  if (!isObject(raw)) {
    throw invalidRequest(`${field} must be a declaration object {content_type, size_bytes, sha256?}.`, { field });
  }
  for (const k of Object.keys(raw)) {
    if (!['content_type', 'size_bytes', 'sha256'].includes(k))
      throw invalidRequest(`Unknown property ${field}.${k}.`, { field: `${field}.${k}` });
  }
  const ct = typeof raw.content_type === 'string' ? raw.content_type.split(';')[0].trim().toLowerCase() : '';
  if (!allowed.includes(ct)) {
    throw invalidRequest(`${field}.content_type must be one of ${allowed.join(', ')}.`, {
      field: `${field}.content_type`,
      value: raw.content_type ?? null,
      allowed: [...allowed],
    });
  }
  const size = raw.size_bytes;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) {
    throw invalidRequest(`${field}.size_bytes must be a positive integer.`, { field: `${field}.size_bytes`, value: size ?? null });
  }
  if (size > limit) {
    throw invalidRequest(`${field}.size_bytes is ${size}; the limit is ${limit} bytes.`, {
      field: `${field}.size_bytes`,
      value: size,
      limit_bytes: limit,
    });
  }
  let sha256: string | null = null;
  if (raw.sha256 !== undefined && raw.sha256 !== null) {
    sha256 = typeof raw.sha256 === 'string' ? raw.sha256.toLowerCase() : '';
    if (!SHA256_RE.test(sha256)) throw invalidRequest(`${field}.sha256 must be 64 hexadecimal characters.`, { field: `${field}.sha256` });
  }
  return { contentType: ct, sizeBytes: size, sha256 };
}

function text(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalidRequest(`${field} must be a string.`, { field });
  return v;
}

function chooseOne(body: Record<string, unknown>, family: 'character' | 'motion', fields: readonly string[]): string | null {
  const given = fields.filter((f) => body[f] !== undefined && body[f] !== null && body[f] !== '');
  if (given.length > 1)
    throw invalidRequest(`Send exactly one ${family} source; got ${given.join(', ')}.`, { family, fields: given, allowed: [...fields] });
  return given[0] ?? null;
}

export interface ParsedPrepare {
  spec: DraftSpec;
  declarations: Partial<Record<FileField, Declaration>>;
}

export function parsePrepareBody(body: unknown, config: Pick<Config, 'limits' | 'urlAllowList'>): ParsedPrepare {
  if (!isObject(body)) throw invalidRequest('The body must be a JSON object.');
  for (const k of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(k)) throw invalidRequest(`Unknown field ${k}.`, { field: k, allowed: [...KNOWN_FIELDS] });
  }
  const c = chooseOne(body, 'character', CHARACTER_FIELDS);
  const m = chooseOne(body, 'motion', MOTION_FIELDS);
  if ((c === null) !== (m === null)) {
    const missing = c === null ? 'character' : 'motion';
    const allowed = missing === 'character' ? CHARACTER_FIELDS : MOTION_FIELDS;
    throw invalidRequest(
      `A ${missing} source is missing: send one of ${allowed.join(', ')}, or send neither family to use the project defaults.`,
      {
        family: missing,
        fields: [],
        allowed: [...allowed],
        given: [c ?? m],
      },
    );
  }
  const bgColor = body.bg_color;
  if (bgColor !== undefined && bgColor !== null && typeof bgColor !== 'string')
    throw invalidRequest('bg_color must be a string "R,G,B".', { field: 'bg_color' });
  const background = parseBackground(text(body, 'background_mode'), text(body, 'bg_color'));
  const declarations: Partial<Record<FileField, Declaration>> = {};
  const url = (field: string) => checkUrlAtDoor(text(body, field) ?? '', config.urlAllowList);

  let character: DraftSpec['character'] = null;
  if (c === 'character_id') character = { kind: 'character', id: text(body, 'character_id')! };
  else if (c === 'image_url') character = { kind: 'url', url: url('image_url') };
  else if (c === 'image') {
    declarations.image = parseDeclaration('image', body.image, config.limits);
    character = { kind: 'upload', field: 'image' };
  }
  let motion: DraftSpec['motion'] = null;
  if (m === 'motion_id') motion = { kind: 'motion', id: text(body, 'motion_id')! };
  else if (m === 'motion_video_url') motion = { kind: 'url', url: url('motion_video_url') };
  else if (m === 'motion_video') {
    declarations.motion_video = parseDeclaration('motion_video', body.motion_video, config.limits);
    motion = { kind: 'upload', field: 'motion_video' };
  }
  return { spec: { character, motion, ...backgroundFields(background) }, declarations };
}

/** The MIME type the content turned out to be, in the declaration's vocabulary. MP4 and MOV are one ISO-BMFF family. */
export function contentMatchesDeclaration(declared: string, actual: { format?: string; container?: string }): boolean {
  if (actual.format) return declared === `image/${actual.format}`;
  const family = (t: string) => (t === 'video/webm' ? 'webm' : 'isobmff');
  const actualType = actual.container === 'webm' ? 'video/webm' : 'video/mp4';
  return family(declared) === family(actualType);
}
