import { newId } from '../../contracts/ids.js';
import { nowIso, type Db } from '../db/database.js';
import type { EnqueueInput } from '../../domain/ports/job-queue.js';

/**
 * Writes a job row. Call it with the transaction that creates the resource so both commit
 * together. (type, resource_id) is unique: enqueueing the same work twice is a no-op.
 */
export async function enqueueInTx(tx: Db, input: EnqueueInput): Promise<void> {
  const now = nowIso();
  await tx
    .insertInto('jobs')
    .values({
      id: newId('job'),
      type: input.type,
      resource_id: input.resourceId,
      payload_json: JSON.stringify(input.payload ?? {}),
      status: 'queued',
      attempts: 0,
      max_attempts: input.maxAttempts,
      run_at: (input.runAt ?? new Date()).toISOString(),
      lease_owner: null,
      lease_expires_at: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['type', 'resource_id']).doNothing())
    .execute();
}
