import type { AppDeps } from '../http/deps.js';
import * as jobs from './jobs.repository.js';

/**
 * Housekeeping that workers run: event history is kept `events.historyHours` after a render's
 * terminal event (DECISIONS "Event stream"); after that a resuming client gets a fresh snapshot of
 * the render's last event, the one event kept so the snapshot's event_id stays a real one. Hourly is plenty: nothing depends on the exact moment of removal.
 */
export const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

export async function purgeEventHistory(deps: Pick<AppDeps, 'db' | 'config'>, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - deps.config.events.historyHours * 3600_000).toISOString();
  return jobs.deleteEventsOfRendersCompletedBefore(deps.db, cutoff);
}

/** Runs the housekeeping now and then hourly; returns the function that stops it. */
export function startMaintenance(deps: Pick<AppDeps, 'db' | 'config'>, onError: (e: unknown) => void): () => void {
  const tick = () => void purgeEventHistory(deps).catch(onError);
  tick();
  const timer = setInterval(tick, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
