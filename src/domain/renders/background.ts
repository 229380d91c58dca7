import { internalError, invalidRequest } from '../../contracts/errors.js';
import type { BackgroundSpec } from '../ports/engine.js';
import { BACKGROUND_MODES, type BackgroundMode } from '../../contracts/enums.js';

export { BACKGROUND_MODES, type BackgroundMode } from '../../contracts/enums.js';

/**
 * A render's background, parsed once at the door (direct form or draft) into the engine's own
 * type, stored on the `videos` row as (`background_mode`, `bg_color`) and handed to the engine as
 * is. Reading a row back is the exact inverse of writing it; a row that does not hold a valid
 * background is a fault (INTERNAL_ERROR), never silently black.
 */
export type Background = BackgroundSpec;
export type Rgb = [number, number, number];

export const ORIGINAL_BACKGROUND: Background = { mode: 'original' };

function rgbOf(raw: string): Rgb | null {
  const m = /^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*$/.exec(raw);
  const rgb = m ? ([Number(m[1]), Number(m[2]), Number(m[3])] as Rgb) : null;
  return rgb && rgb.every((c) => c <= 255) ? rgb : null;
}

/** Parses `R,G,B` (each 0-255, spaces allowed around the numbers). */
export function parseBgColor(raw: string): Rgb {
  const rgb = rgbOf(raw);
  if (!rgb)
    throw invalidRequest('bg_color must be "R,G,B" with each value from 0 to 255, e.g. "0,177,64".', { field: 'bg_color', value: raw });
  return rgb;
}

/** Background rules shared by the direct form and drafts (spec 4.1 and 7.7). */
export function parseBackground(mode: string | undefined, color: string | undefined): Background {
  const m = mode === undefined || mode === '' ? 'original' : mode;
  if (!(BACKGROUND_MODES as readonly string[]).includes(m)) {
    throw invalidRequest(`background_mode must be one of ${BACKGROUND_MODES.join(', ')}.`, {
      field: 'background_mode',
      value: m,
      allowed: [...BACKGROUND_MODES],
    });
  }
  const hasColor = color !== undefined && color !== '';
  if (m === 'solid' && !hasColor) {
    throw invalidRequest('bg_color is required when background_mode is solid.', { field: 'bg_color', background_mode: m });
  }
  if (m !== 'solid' && hasColor) {
    throw invalidRequest('bg_color is only accepted with background_mode=solid.', { field: 'bg_color', background_mode: m });
  }
  return m === 'solid' ? { mode: 'solid', color: parseBgColor(color!) } : { mode: m as Exclude<BackgroundMode, 'solid'> };
}

/** The row columns of a background. */
export function backgroundColumns(bg: Background): { background_mode: BackgroundMode; bg_color: string | null } {
  return { background_mode: bg.mode, bg_color: bg.mode === 'solid' ? bg.color.join(',') : null };
}

/** The background a row holds (the inverse of `backgroundColumns`). */
export function backgroundOfRow(row: { id: string; background_mode: BackgroundMode; bg_color: string | null }): Background {
  if (row.background_mode !== 'solid') return { mode: row.background_mode };
  const color = row.bg_color === null ? null : rgbOf(row.bg_color);
  if (!color) throw internalError(`Render ${row.id} has background_mode=solid without a valid bg_color (${String(row.bg_color)}).`, false);
  return { mode: 'solid', color };
}

/** Draft specs keep the background as (mode, color) fields; these convert both ways. */
export function backgroundFields(bg: Background): { background_mode: BackgroundMode; bg_color: Rgb | null } {
  return { background_mode: bg.mode, bg_color: bg.mode === 'solid' ? bg.color : null };
}
export function backgroundOfFields(f: { background_mode: BackgroundMode; bg_color: Rgb | null }): Background {
  if (f.background_mode !== 'solid') return { mode: f.background_mode };
  if (!f.bg_color) throw internalError('A stored draft has background_mode=solid without bg_color.', false);
  return { mode: 'solid', color: f.bg_color };
}
