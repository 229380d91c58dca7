/**
 * The closed catalogue of public error codes: HTTP status, retryability and the default remediation
 * action for each. Every error a client can see is built from this table (DECISIONS.md, "Errors");
 * `docs/errors.md` is kept in sync with it by test/contracts/errors-doc.test.ts.
 */

export interface ErrorSpec {
  status: number;
  retryable: boolean;
  action: string;
  /** One line for docs/errors.md. */
  meaning: string;
}

export const ERROR_CATALOGUE = {
  INVALID_REQUEST: {
    status: 400,
    retryable: false,
    action: 'correct_request',
    meaning: 'The request is malformed, fails validation, names an unknown route, or is too large.',
  },
  DRIVING_VIDEO_REQUIRED: {
    status: 400,
    retryable: false,
    action: 'correct_request',
    meaning: 'Character-animation mode needs a driving video; image-only requests are unsupported.',
  },
  UNAUTHENTICATED: { status: 401, retryable: false, action: 'provide_credential', meaning: 'No credential was sent.' },
  INVALID_CREDENTIAL: {
    status: 401,
    retryable: false,
    action: 'replace_credential',
    meaning: 'The credential is malformed, revoked or expired.',
  },
  INSUFFICIENT_CREDITS: {
    status: 402,
    retryable: false,
    action: 'add_credits',
    meaning: 'The account balance does not cover the reservation.',
  },
  FORBIDDEN: {
    status: 403,
    retryable: false,
    action: 'check_permissions',
    meaning: 'The credential is valid but may not perform this operation.',
  },
  RENDER_NOT_FOUND: {
    status: 404,
    retryable: false,
    action: 'check_id',
    meaning: 'No render or video with this ID exists for the account.',
  },
  CHARACTER_NOT_FOUND: { status: 404, retryable: false, action: 'check_id', meaning: 'No Character with this ID exists for the account.' },
  MOTION_NOT_FOUND: { status: 404, retryable: false, action: 'check_id', meaning: 'No Motion with this ID exists for the account.' },
  MOTION_TEMPLATE_NOT_FOUND: { status: 404, retryable: false, action: 'check_id', meaning: 'No motion template has this ID.' },
  DRAFT_NOT_FOUND: {
    status: 404,
    retryable: false,
    action: 'check_id',
    meaning: 'No draft with this ID exists for the account, or it expired.',
  },
  AVATAR_NOT_FOUND: { status: 404, retryable: false, action: 'check_id', meaning: 'Superseded avatar resource: no such avatar.' },
  ANIMATION_NOT_FOUND: { status: 404, retryable: false, action: 'check_id', meaning: 'Superseded animation resource: no such animation.' },
  DRAFT_ALREADY_CONSUMED: {
    status: 409,
    retryable: false,
    action: 'create_new_draft',
    meaning: 'The draft was already used to create a render.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    retryable: false,
    action: 'use_new_idempotency_key',
    meaning: 'The Idempotency-Key was used before with a different request.',
  },
  RENDER_NOT_CANCELLABLE: { status: 409, retryable: false, action: 'check_status', meaning: 'The render is already terminal.' },
  UPLOAD_REQUIRED: {
    status: 409,
    retryable: false,
    action: 'upload_media',
    meaning: 'A declared upload of the draft has not been received.',
  },
  UPLOAD_EXPIRED: { status: 409, retryable: false, action: 'create_new_draft', meaning: 'The upload URL or the draft expired before use.' },
  EXTRACTION_UNAVAILABLE: {
    status: 409,
    retryable: false,
    action: 'wait_until_ready',
    meaning: 'The requested 3D extraction was not requested for this asset or is not ready.',
  },
  MOTION_NOT_READY: { status: 409, retryable: false, action: 'wait_until_ready', meaning: 'The Motion is still being processed.' },
  UNSUPPORTED_CONTENT_ENCODING: {
    status: 415,
    retryable: false,
    action: 'correct_request',
    meaning: 'The body has a Content-Encoding the service does not decode; send it uncompressed.',
  },
  UNSUPPORTED_MEDIA: {
    status: 422,
    retryable: false,
    action: 'fix_input',
    meaning: 'The file is not an accepted image or video, or breaks a media limit.',
  },
  INVALID_CHARACTER: {
    status: 422,
    retryable: false,
    action: 'fix_input',
    meaning: 'The Character cannot be used: no riggable figure, failed, or (409) not ready.',
  },
  INVALID_MOTION: {
    status: 422,
    retryable: false,
    action: 'fix_input',
    meaning: 'The Motion cannot be used: no performer found, or it failed.',
  },
  UPLOAD_MISMATCH: {
    status: 422,
    retryable: false,
    action: 'reupload',
    meaning: 'The uploaded bytes do not match the declaration (size, type or sha256).',
  },
  CONTENT_POLICY_VIOLATION: { status: 422, retryable: false, action: 'fix_input', meaning: 'The input is refused by the content policy.' },
  EXTRACTION_FAILED: { status: 422, retryable: false, action: 'fix_input', meaning: 'The 3D extraction failed for this input.' },
  RATE_LIMITED: {
    status: 429,
    retryable: true,
    action: 'retry_later',
    meaning: 'Too many requests for this API key; wait `retry_after_ms`.',
  },
  INTERNAL_ERROR: {
    status: 500,
    retryable: true,
    action: 'retry_later',
    meaning: 'An unexpected failure; `retryable` says whether to retry.',
  },
  SERVICE_BUSY: {
    status: 503,
    retryable: true,
    action: 'retry_later',
    meaning: 'The service is overloaded or shutting down; wait `retry_after_ms`.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Situations in which a code answers with another HTTP status than its catalogue default
 * (DECISIONS.md): the domain names the situation, the catalogue owns the status, so no layer below
 * HTTP picks a number. `conflict`: the resource exists but its state does not allow the operation
 * (not ready yet, or already terminal), e.g. INVALID_CHARACTER on a Character still processing.
 */
export const ERROR_SITUATIONS = {
  conflict: { status: 409 },
} as const satisfies Record<string, { status: number }>;

export type ErrorSituation = keyof typeof ERROR_SITUATIONS;

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    retryable: boolean;
    request_id: string | null;
    details: Record<string, unknown>;
    remediation: { action: string; retry_after_ms: number | null };
  };
}

export interface AppErrorOptions {
  details?: Record<string, unknown>;
  /** A situation of ERROR_SITUATIONS whose status replaces the code's default (e.g. 409 INVALID_CHARACTER). */
  situation?: ErrorSituation;
  /** HTTP-layer only (routes, legacy translation): an explicit status. Domain code names a `situation`. */
  status?: number;
  retryable?: boolean;
  action?: string;
  retryAfterMs?: number | null;
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type every layer throws for client-visible failures. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly action: string;
  readonly details: Record<string, unknown>;
  readonly retryAfterMs: number | null;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    const spec: ErrorSpec = ERROR_CATALOGUE[code];
    this.name = 'AppError';
    this.code = code;
    this.status = opts.status ?? (opts.situation ? ERROR_SITUATIONS[opts.situation].status : spec.status);
    this.retryable = opts.retryable ?? spec.retryable;
    this.action = opts.action ?? spec.action;
    this.details = opts.details ?? {};
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.headers = opts.headers ?? {};
  }

  toEnvelope(requestId: string | null): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        retryable: this.retryable,
        request_id: requestId,
        details: this.details,
        remediation: { action: this.action, retry_after_ms: this.retryAfterMs },
      },
    };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

export function invalidRequest(message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('INVALID_REQUEST', message, { details });
}

export function internalError(message = 'An unexpected error occurred.', retryable = true): AppError {
  return new AppError('INTERNAL_ERROR', message, { retryable, action: retryable ? 'retry_later' : 'contact_support' });
}
