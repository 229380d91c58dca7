/**
 * The clock port: where "now" comes from. Timestamps are stored as ISO-8601 text (UTC).
 * `infra/clock/system-clock.ts` reads the machine's clock; tests of time-dependent rules may pass their own.
 */
export interface Clock {
  now(): Date;
  /** `now()` as stored in the database (ISO-8601, UTC, milliseconds). */
  nowIso(): string;
}
