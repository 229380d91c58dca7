import { sweepAllExpiredDrafts } from '../domain/drafts/drafts.service.js';
import * as jobs from '../infra/queue/jobs.repository.js';
import type { Ports } from '../domain/ports/index.js';
import { removeOrphanWorkDirs } from './asset-transfer.js';
import { deleteExpiredIdempotencyKeys } from '../domain/idempotency/idempotency.service.js';

/**
 * Housekeeping that workers run: event history is kept `events.historyHours` after a render's
 * terminal event (DECISIONS "Event stream"); after that a resuming client gets a fresh snapshot of
 * the render's last event, the one event kept so the snapshot's event_id stays a real one; expired
 * render drafts of every account go with their uploaded bytes. Hourly is plenty: nothing depends on
 * the exact moment of removal.
 */
export const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

export async function purgeEventHistory(deps: Pick<Ports, 'db' | 'config'>, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - deps.config.events.historyHours * 3600_000).toISOString();
  return jobs.deleteEventsOfRendersCompletedBefore(deps.db, cutoff);
}

/** Runs the housekeeping now and then hourly; returns the function that stops it. */
export function startMaintenance(
  deps: Pick<Ports, 'db' | 'config' | 'storage' | 'tmpDir'>,
  onError: (what: string, e: unknown) => void,
): () => void {
  const tick = () => {
    void purgeEventHistory(deps).catch((e: unknown) => onError('event history purge failed', e));
    void sweepAllExpiredDrafts(deps).catch((e: unknown) => onError('draft sweep failed', e));
    // Work dirs of jobs whose worker died while another worker kept running (no restart to sweep them).
    void removeOrphanWorkDirs(deps).catch((e: unknown) => onError('job temp sweep failed', e));
    void deleteExpiredIdempotencyKeys(deps.db, new Date().toISOString()).catch((e: unknown) => onError('idempotency key purge failed', e));
  };
  tick();
  const timer = setInterval(tick, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
