import { invalidRequest } from '../../contracts/errors.js';
import type { ReceivedForm } from '../multipart.js';
import { missingParameter } from './legacy-errors.js';

/**
 * Legacy forms renamed into the V1 forms the services parse. Empty text values and empty unnamed
 * file parts count as "not sent", as in V1 (form helpers send every input of a form).
 */
export function isSent(form: Pick<ReceivedForm, 'fields' | 'files'>, name: string): boolean {
  const f = form.files[name];
  if (f) return !(f.size === 0 && f.filename === '');
  return (form.fields[name] ?? '') !== '';
}

/**
 * Exactly one of `names` (one input family); none: 400 CS-ORIV-002 (required parameter missing),
 * several: 400 CS-ORIV-001.
 */
export function oneOf(form: Pick<ReceivedForm, 'fields' | 'files'>, names: readonly string[], family: string): string {
  const given = names.filter((n) => isSent(form, n));
  if (given.length === 0) throw missingParameter([...names], `A ${family} is required: send one of ${names.join(', ')}.`);
  if (given.length > 1)
    throw invalidRequest(`Send exactly one ${family}; got ${given.join(', ')}.`, { fields: given, allowed: [...names] });
  return given[0];
}

/** The V1 form: sent fields renamed by `map` (Legacy → V1); fields not in `map` are dropped. */
export function renameForm(
  form: Pick<ReceivedForm, 'fields' | 'files'>,
  map: Record<string, string>,
): { fields: Record<string, string>; files: ReceivedForm['files'] } {
  const fields: Record<string, string> = {};
  const files: ReceivedForm['files'] = {};
  for (const [name, value] of Object.entries(form.fields)) if (name in map && value !== '') fields[map[name]] = value;
  for (const [name, file] of Object.entries(form.files)) if (name in map && isSent(form, name)) files[map[name]] = file;
  return { fields, files };
}

/** Which Legacy spelling of a field the client used (so errors name it), the first by default. */
export function spellingUsed(form: Pick<ReceivedForm, 'fields' | 'files'>, names: string[]): string {
  return names.find((n) => isSent(form, n)) ?? names[0];
}
