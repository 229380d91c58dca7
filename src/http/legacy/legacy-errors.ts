import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../../contracts/errors.js';

/**
 * V1 errors in the Legacy shape (spec 9.3, DECISIONS "Legacy interface"). Authentication failures
 * answer 401 `{ "detail": "<string>" }`; every other error `{ "detail": { "error_code", "message" } }`
 * with one of the Legacy codes, plus `v1_code` naming the V1 code for clients that are migrating.
 * The V1 services raise the errors; this only renames them.
 */
export const LEGACY_CODES = {
  notFound: 'CS-UORC01-003',
  insufficientCredits: 'CS-UORC01-008',
  notReadyOrMissing: 'CS-ORIV-002',
  invalid: 'CS-ORIV-001',
} as const;

/** The exact 401 `detail` strings (old clients compare them). */
export const LEGACY_401 = {
  UNAUTHENTICATED: 'Not authenticated',
  INVALID_CREDENTIAL: 'Invalid or revoked API key',
} as const;

export interface LegacyErrorBody {
  detail: string | { error_code: string; message: string; v1_code: ErrorCode; field?: string };
}

const NOT_FOUND: readonly ErrorCode[] = [
  'RENDER_NOT_FOUND',
  'CHARACTER_NOT_FOUND',
  'MOTION_NOT_FOUND',
  'MOTION_TEMPLATE_NOT_FOUND',
  'DRAFT_NOT_FOUND',
];
/** Codes that keep their V1 status and name under Legacy (no Legacy code exists for them). */
const PASS_THROUGH: readonly ErrorCode[] = ['RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_BUSY'];

/**
 * A required Legacy parameter is missing: 400 CS-ORIV-002 (the Legacy code for "not ready or a
 * required parameter missing"). Raised by the Legacy routes before calling a service.
 */
export function missingParameter(fields: string[], message: string): AppError {
  return new AppError('INVALID_REQUEST', message, { details: { missing: fields, field: fields[0] } });
}

/** Replaces V1 field names by their Legacy names in a message (whole identifiers only). */
export function renameFields(text: string, v1ToLegacy: Record<string, string>): string {
  const names = Object.keys(v1ToLegacy).sort((a, b) => b.length - a.length);
  if (names.length === 0) return text;
  const re = new RegExp(`(?<![A-Za-z0-9_/])(${names.join('|')})(?![A-Za-z0-9_])`, 'g');
  // A bare English word ("the image is...") is left alone: only identifiers in lists or after "field".
  return text.replace(re, (m, _g, offset: number, whole: string) => {
    if (m.includes('_')) return v1ToLegacy[m];
    const before = whole.slice(Math.max(0, offset - 7), offset);
    const after = whole.slice(offset + m.length, offset + m.length + 1);
    return /(field |got |, |of )$/.test(before) || /^[,.;]$/.test(after) ? v1ToLegacy[m] : m;
  });
}

/** The Legacy status and `error_code` of a V1 error (docs/legacy.md, "Errors"). */
export function legacyCodeOf(code: ErrorCode, status: number, details: Record<string, unknown>): { status: number; errorCode: string } {
  if (NOT_FOUND.includes(code) && status === 404) return { status: 404, errorCode: LEGACY_CODES.notFound };
  if (code === 'INSUFFICIENT_CREDITS') return { status: 402, errorCode: LEGACY_CODES.insufficientCredits };
  if (code === 'MOTION_NOT_READY' || code === 'EXTRACTION_UNAVAILABLE' || (code === 'INVALID_CHARACTER' && status === 409)) {
    return { status: 409, errorCode: LEGACY_CODES.notReadyOrMissing };
  }
  if (code === 'INVALID_REQUEST' && Array.isArray(details.missing)) return { status: 400, errorCode: LEGACY_CODES.notReadyOrMissing };
  if (PASS_THROUGH.includes(code)) return { status, errorCode: code };
  // An unknown route keeps its 404, a conflict (Idempotency-Key reused) its 409; the rest is 400.
  if (status === 404 || status === 409 || status === 403 || status === 405) return { status, errorCode: LEGACY_CODES.invalid };
  return { status: 400, errorCode: LEGACY_CODES.invalid };
}

/**
 * Runs a V1 service call for a Legacy route; an error it raises names V1 fields, so they are renamed
 * to the Legacy fields the client sent (message, `details.field`, `details.fields`). Errors raised by
 * the Legacy layer itself (form reader, parameter checks) already use Legacy names and are not run here.
 */
export async function inLegacyTerms<T>(v1ToLegacy: Record<string, string>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const rename = (v: unknown) => (typeof v === 'string' ? (v1ToLegacy[v] ?? v) : v);
    const details: Record<string, unknown> = { ...e.details };
    if ('field' in details) details.field = rename(details.field);
    if (Array.isArray(details.fields)) details.fields = details.fields.map(rename);
    if (Array.isArray(details.allowed)) details.allowed = details.allowed.map(rename);
    throw new AppError(e.code, renameFields(e.message, v1ToLegacy), {
      details,
      status: e.status,
      retryable: e.retryable,
      action: e.action,
      retryAfterMs: e.retryAfterMs,
      headers: e.headers,
      cause: e,
    });
  }
}

export function toLegacyError(e: AppError): { status: number; body: LegacyErrorBody } {
  if (e.code === 'UNAUTHENTICATED' || e.code === 'INVALID_CREDENTIAL') return { status: 401, body: { detail: LEGACY_401[e.code] } };
  const field = typeof e.details.field === 'string' ? e.details.field : undefined;
  const { status, errorCode } = legacyCodeOf(e.code, e.status, e.details);
  return { status, body: { detail: { error_code: errorCode, message: e.message, v1_code: e.code, ...(field ? { field } : {}) } } };
}

export function sendLegacyError(request: FastifyRequest, reply: FastifyReply, e: AppError): FastifyReply {
  const { status, body } = toLegacyError(e);
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  if (status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', 'Bearer realm="marionette"');
  if ((status === 429 || status === 503) && !reply.hasHeader('Retry-After'))
    reply.header('Retry-After', String(Math.max(1, Math.ceil((e.retryAfterMs ?? 1000) / 1000))));
  reply.header('X-Request-Id', request.id);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}
