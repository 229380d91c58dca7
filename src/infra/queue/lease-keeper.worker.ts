import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../db/database.js';
import * as jobs from './jobs.repository.js';
import type { KeeperMessage, KeeperReply, LeaseKeeperSetup } from './lease-keeper.js';

/**
 * The lease keeper's thread: renews the leases of the jobs its process runs, on its own event loop
 * and its own database connection, so a long CPU step on the main thread never costs a live worker
 * its job. It stops renewing (and the job is taken over) when the process dies (the thread dies
 * with it) or when the main thread has given no sign of life for `maxSilenceMs` (frozen).
 */
const setup = workerData as LeaseKeeperSetup;
const handle = await openDb({ url: setup.url, schema: setup.schema ?? undefined, poolSize: 2 });
const held = new Map<string, { owner: string; busy: boolean }>();
let lastPulse = Date.now();

const post = (m: KeeperReply) => parentPort!.postMessage(m);

async function renew(jobId: string): Promise<void> {
  const h = held.get(jobId);
  if (!h || h.busy) return;
  if (Date.now() - lastPulse > setup.maxSilenceMs) return; // main thread frozen: let the lease lapse
  h.busy = true;
  try {
    const now = Date.now();
    const ok = await jobs.extendLease(handle.db, jobId, h.owner, new Date(now + setup.leaseMs).toISOString(), new Date(now).toISOString());
    if (!ok && held.has(jobId)) {
      held.delete(jobId);
      const row = await jobs.findJob(handle.db, jobId);
      post({ type: 'lost', jobId, cancelled: row?.status === 'cancelled' });
    }
  } catch (e) {
    post({ type: 'error', jobId, message: e instanceof Error ? e.message : String(e) });
  } finally {
    h.busy = false;
  }
}

const timer = setInterval(() => {
  for (const id of held.keys()) void renew(id);
}, setup.heartbeatMs);

parentPort!.on('message', (m: KeeperMessage) => {
  lastPulse = Date.now();
  if (m.type === 'hold') held.set(m.jobId, { owner: m.owner, busy: false });
  else if (m.type === 'drop') held.delete(m.jobId);
  else if (m.type === 'close') {
    clearInterval(timer);
    held.clear();
    void handle.close().finally(() => post({ type: 'closed' }));
  }
});
post({ type: 'ready' });
