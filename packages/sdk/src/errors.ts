import type { ErrorCode } from './types.js';

export interface Remediation {
  /** Next step the service advises, e.g. `retry_later`, `fix_input`, `replace_credential`. */
  action?: string;
  retry_after_ms?: number | null;
}

/** Base class of every error the SDK throws. */
export class MarionetteError extends Error {
  override name = 'MarionetteError';
}

/**
 * The service answered with its JSON error envelope (spec section 7). Decide on `retryable` and
 * `remediation`, not on the HTTP status alone; quote `requestId` when asking for help.
 */
export class MarionetteApiError extends MarionetteError {
  override name = 'MarionetteApiError';
  readonly status: number;
  /** One of the service's error codes (`string` so codes added later still arrive intact). */
  readonly code: ErrorCode | (string & {});
  readonly retryable: boolean;
  readonly requestId: string | null;
  readonly details: Record<string, unknown>;
  readonly remediation: Remediation;
  /** Seconds from the Retry-After header, when the response had one. */
  readonly retryAfterS: number | null;
  constructor(init: {
    status: number;
    code: string;
    message: string;
    retryable: boolean;
    requestId: string | null;
    details?: Record<string, unknown>;
    remediation?: Remediation;
    retryAfterS?: number | null;
  }) {
    super(`${init.code}: ${init.message}${init.requestId ? ` (request ${init.requestId})` : ''}`);
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
    this.requestId = init.requestId;
    this.details = init.details ?? {};
    this.remediation = init.remediation ?? {};
    this.retryAfterS = init.retryAfterS ?? null;
  }
  /** Snake-case alias matching the wire field. */
  get request_id(): string | null {
    return this.requestId;
  }
}

export class AuthenticationError extends MarionetteApiError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends MarionetteApiError {
  override name = 'PermissionDeniedError';
}
export class InvalidRequestError extends MarionetteApiError {
  override name = 'InvalidRequestError';
}
export class InsufficientCreditsError extends MarionetteApiError {
  override name = 'InsufficientCreditsError';
}
export class NotFoundError extends MarionetteApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends MarionetteApiError {
  override name = 'ConflictError';
}
export class RateLimitError extends MarionetteApiError {
  override name = 'RateLimitError';
}
export class ServiceUnavailableError extends MarionetteApiError {
  override name = 'ServiceUnavailableError';
}
export class InternalServerError extends MarionetteApiError {
  override name = 'InternalServerError';
}

/** No HTTP answer at all (refused, reset, DNS, timeout). `cause` holds the underlying error. */
export class ConnectionError extends MarionetteError {
  override name = 'ConnectionError';
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A job reached `failed` or `cancelled` where the caller asked for a finished result. */
export class JobFailedError extends MarionetteError {
  override name = 'JobFailedError';
  readonly id: string;
  readonly status: string;
  readonly code: string | null;
  readonly requestId: string | null;
  readonly resource: unknown;
  constructor(resource: { id: string; status: string; error?: { code?: string; message?: string; request_id?: string | null } | null }) {
    const e = resource.error;
    super(`${resource.id} ${resource.status}${e?.code ? `: ${e.code}${e.message ? ` ${e.message}` : ''}` : ''}`);
    this.id = resource.id;
    this.status = resource.status;
    this.code = e?.code ?? null;
    this.requestId = e?.request_id ?? null;
    this.resource = resource;
  }
}

const BY_STATUS: Record<number, typeof MarionetteApiError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: InsufficientCreditsError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: InvalidRequestError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

function retryAfterSeconds(res: Response): number | null {
  const h = res.headers.get('retry-after');
  if (h === null) return null;
  if (/^\d+$/.test(h.trim())) return Number(h);
  const at = Date.parse(h);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** Builds the typed error for a non-2xx response (reads its body). */
export async function errorFromResponse(res: Response): Promise<MarionetteApiError> {
  const text = await res.text().catch(() => '');
  let env: any = null;
  try {
    env = JSON.parse(text);
  } catch {
    /* not JSON: a proxy or a crash page */
  }
  const e = env?.error;
  const requestId = (e?.request_id as string | undefined) ?? res.headers.get('x-request-id');
  const Cls = BY_STATUS[res.status] ?? (res.status >= 500 ? InternalServerError : MarionetteApiError);
  if (e && typeof e.code === 'string') {
    return new Cls({
      status: res.status,
      code: e.code,
      message: String(e.message ?? ''),
      retryable: e.retryable === true,
      requestId,
      details: e.details ?? {},
      remediation: e.remediation ?? {},
      retryAfterS: retryAfterSeconds(res),
    });
  }
  return new Cls({
    status: res.status,
    code: res.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST',
    message: `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    retryable: res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504,
    requestId,
    retryAfterS: retryAfterSeconds(res),
  });
}
