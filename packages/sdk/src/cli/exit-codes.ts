import { ConnectionError, JobFailedError, MarionetteApiError } from '../errors.js';

/** What `marionette` exits with, so a script can tell what happened (also in the README). */
export const EXIT = {
  OK: 0,
  /** Anything not listed below (a bug, an unexpected answer). */
  ERROR: 1,
  /** Bad command line: unknown command or option, missing argument. */
  USAGE: 2,
  /** No key, or the key was refused (401/403). */
  AUTH: 3,
  /** The ID does not exist for this account (404). */
  NOT_FOUND: 4,
  /** The service or the CLI rejected the input (400/409/422, unreadable local file). */
  INVALID_INPUT: 5,
  /** Not enough credits (402). */
  INSUFFICIENT_CREDITS: 6,
  /** Still rate-limited or busy after the automatic retries (429/503, retryable 500). */
  BUSY: 7,
  /** The job ended `failed`. */
  JOB_FAILED: 8,
  /** The job ended `cancelled`. */
  JOB_CANCELLED: 9,
  /** No answer from the service (refused, reset, DNS). */
  CONNECTION: 10,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

export function exitCodeFor(e: unknown): number {
  if (e instanceof JobFailedError) return e.status === 'cancelled' ? EXIT.JOB_CANCELLED : EXIT.JOB_FAILED;
  if (e instanceof ConnectionError) return EXIT.CONNECTION;
  if (e instanceof MarionetteApiError) {
    if (e.status === 401 || e.status === 403) return EXIT.AUTH;
    if (e.status === 404) return EXIT.NOT_FOUND;
    if (e.status === 402) return EXIT.INSUFFICIENT_CREDITS;
    if (e.status === 429 || e.status === 503 || e.retryable) return EXIT.BUSY;
    if (e.status === 400 || e.status === 409 || e.status === 422) return EXIT.INVALID_INPUT;
    return EXIT.ERROR;
  }
  if (e instanceof TypeError && /cannot read|is not a file|unsupported media/.test(e.message)) return EXIT.INVALID_INPUT;
  return EXIT.ERROR;
}
