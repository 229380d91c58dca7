import { invalidRequest } from '../../contracts/errors.js';

/**
 * Parsers for text fields of the Character and Motion multipart forms (Motions import these too).
 * Multipart values are always strings, so each field is parsed strictly here and a bad value is a
 * 400 INVALID_REQUEST naming the field in the message and in `details.field`.
 */
export type Fields = Record<string, string>;

function bad(field: string, message: string, value?: string): never {
  throw invalidRequest(`The field ${field} ${message}.`, value === undefined ? { field } : { field, value: value.slice(0, 200) });
}

/** Booleans accept true/false/1/0 (case-insensitive for the words). */
export function boolField(fields: Fields, name: string, def: boolean): boolean {
  const v = fields[name];
  if (v === undefined) return def;
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  return bad(name, 'must be a boolean (true, false, 1 or 0)', v);
}

export function enumField<T extends string>(fields: Fields, name: string, allowed: readonly T[], def: T): T {
  const v = fields[name];
  if (v === undefined) return def;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  return bad(name, `must be one of ${allowed.join(', ')}`, v);
}

export function stringField(fields: Fields, name: string, opts: { def: string; min?: number; max: number }): string {
  const v = fields[name];
  if (v === undefined) return opts.def;
  if (v.length < (opts.min ?? 0)) bad(name, `must be at least ${opts.min} character${opts.min === 1 ? '' : 's'} long`);
  if (v.length > opts.max) bad(name, `must be at most ${opts.max} characters long`);
  return v;
}

export function optionalStringField(fields: Fields, name: string, opts: { min: number; max: number }): string | null {
  return fields[name] === undefined ? null : stringField(fields, name, { def: '', ...opts });
}

const DECIMAL = /^[+]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+]?\d+$/;

/** A decimal number in (minExclusive, max]. */
export function numberField(fields: Fields, name: string, range: { gt: number; max: number }): number | null {
  const v = fields[name];
  if (v === undefined) return null;
  const s = v.trim();
  const n = DECIMAL.test(s) ? Number(s) : NaN;
  if (!Number.isFinite(n)) return bad(name, 'must be a number', v);
  if (!(n > range.gt && n <= range.max)) return bad(name, `must be greater than ${range.gt} and at most ${range.max}`, v);
  return n;
}

export function integerField(fields: Fields, name: string, range: { min: number; max: number }): number | null {
  const v = fields[name];
  if (v === undefined) return null;
  const s = v.trim();
  if (!INTEGER.test(s)) return bad(name, 'must be an integer', v);
  const n = Number(s);
  if (n < range.min || n > range.max) return bad(name, `must be an integer from ${range.min} to ${range.max}`, v);
  return n;
}

/**
 * Exactly one source of a family (a file field or a URL field, with aliases). Returns which one
 * was sent. Sending none or more than one is INVALID_REQUEST naming the accepted fields.
 */
export function exactlyOneSource<K extends string>(sent: Partial<Record<K, boolean>>, accepted: readonly K[], what: string): K {
  const present = accepted.filter((k) => sent[k]);
  if (present.length === 1) return present[0];
  if (present.length === 0) {
    throw invalidRequest(`Send exactly one ${what}: ${accepted.join(' or ')}.`, { fields: accepted });
  }
  throw invalidRequest(`Send exactly one ${what}; got ${present.join(' and ')}.`, { fields: present });
}

export interface FormFile {
  path: string;
  size?: number;
  filename?: string;
}

/**
 * Empty text fields and empty, unnamed file parts count as not sent (the same rule as the Render
 * form): form helpers and HTML forms send every input of a form, filled or not, and an empty
 * `image_url` next to an `image` must not trip the "exactly one source" rule.
 */
export function withoutEmpty(form: { fields: Fields; files: Record<string, FormFile> }): {
  fields: Fields;
  files: Record<string, FormFile>;
} {
  const fields = Object.fromEntries(Object.entries(form.fields).filter(([, v]) => v !== ''));
  const files = Object.fromEntries(Object.entries(form.files).filter(([, f]) => !(f.size === 0 && f.filename === '')));
  return { fields, files };
}
