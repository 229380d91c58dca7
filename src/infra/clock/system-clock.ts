import type { Clock } from '../../domain/ports/clock.js';

/** The machine's clock. */
export const systemClock: Clock = {
  now: () => new Date(),
  nowIso: () => new Date().toISOString(),
};
