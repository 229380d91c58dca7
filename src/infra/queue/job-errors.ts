import { AppError, internalError, isAppError } from '../../contracts/errors.js';
import { EngineError } from '../../engine/types.js';
import { TemporaryJobError } from '../../domain/ports/job-queue.js';

/**
 * How a handler's failure is treated. Permanent failures are the input's fault (the engine refuses
 * the picture, a URL cannot be fetched, the balance is short): retrying cannot help, so the resource
 * fails at once with that public code. Anything else (a crash, a full disk, a busy pool) is
 * temporary and retried with backoff; the public error after the last attempt is INTERNAL_ERROR or
 * SERVICE_BUSY, retryable, because internal codes (ALL_WORKERS_BUSY, WORKER_STOPPED) never reach
 * clients.
 */
export type Classified = { kind: 'permanent'; error: AppError } | { kind: 'temporary'; message: string; busy: boolean };

export function classifyFailure(e: unknown): Classified {
  if (e instanceof EngineError) return { kind: 'permanent', error: new AppError(e.code, e.message, { details: e.details }) };
  if (isAppError(e)) {
    // An internal error that says it is not retryable (a misconfiguration, a backend that refused the work)
    // fails the resource at once with its message; retrying would only repeat it.
    if (e.code === 'SERVICE_BUSY' || (e.code === 'INTERNAL_ERROR' && e.retryable))
      return { kind: 'temporary', message: e.message, busy: e.code === 'SERVICE_BUSY' };
    return { kind: 'permanent', error: e };
  }
  if (e instanceof TemporaryJobError) return { kind: 'temporary', message: e.message, busy: e.code === 'ALL_WORKERS_BUSY' };
  return { kind: 'temporary', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e), busy: false };
}

/** The public error of a job whose attempts ran out. */
export function exhaustedError(attempts: number, busy: boolean): AppError {
  if (busy) {
    return new AppError('SERVICE_BUSY', 'The service was too busy to process this job; please submit it again.', {
      retryAfterMs: 30_000,
      details: { attempts },
    });
  }
  // The internal cause stays in jobs.last_error for operators; clients get the generic envelope.
  const e = internalError(
    `Processing failed after ${attempts} attempt${attempts === 1 ? '' : 's'}; submitting the same request again may succeed.`,
  );
  e.details.attempts = attempts;
  return e;
}

export function isAbortError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || e.name === 'JobAbortedError');
}
