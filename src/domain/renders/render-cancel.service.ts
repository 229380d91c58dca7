import { AppError } from '../../contracts/errors.js';
import { storageKeys } from '../storage-keys.js';
import { isIdOf } from '../../contracts/ids.js';
import { findRenderById } from './render-state.repository.js';
import { isTerminalRender, transitionRender } from './renders.state.js';
import type { VideosTable } from '../../infra/db/schema.js';
import type { Ports } from '../ports/index.js';

/**
 * Operator cancellation (`npm run admin -- render cancel ID`; clients cannot cancel, spec 3.1).
 * The render moves to `cancelled` first (reservation released, `cancelled` event stored and
 * announced), then its job is marked cancelled (also when it completed meanwhile: its ready was refused)
 * and whoever runs it is told to stop: a worker in this process at once, one elsewhere at its next heartbeat. Anything that worker still tries to write is
 * refused by the state machine, so the order cannot produce a cancelled-then-ready render.
 */
export async function cancelRender(
  deps: Pick<Ports, 'db' | 'pubsub' | 'queue' | 'storage'>,
  id: string,
): Promise<{ id: string; status: 'cancelled'; previous_status: string }> {
  const row = isIdOf('render', id) ? await findRenderById(deps.db, id) : undefined;
  if (!row) throw new AppError('RENDER_NOT_FOUND', `No render ${id} exists.`, { details: { render_id: id } });
  if (isTerminalRender(row.status)) throw notCancellable(id, row.status);
  const updated = await transitionRender(deps, id, { to: 'cancelled' });
  if (!updated) {
    const now = await findRenderById(deps.db, id);
    throw notCancellable(id, now?.status ?? 'unknown');
  }
  await deps.queue.cancel(id, { discardCompleted: true });
  // A worker may have uploaded outputs just before the cancellation; its own ready transition is
  // refused and it discards them too, whichever of the two runs last.
  await discardOutputsUnlessReady(deps, id);
  return { id, status: 'cancelled', previous_status: row.status };
}

/**
 * Client cancellation through the Legacy `DELETE /api/render/{job_id}` (the earlier V1 revision's
 * `DELETE /v1/renders/{id}`, spec 9.2): an account's queued or processing render is cancelled as by
 * the operator (reservation released once); a terminal one is left alone and returned as it is. When
 * the worker's completion wins the race the transition is refused, and the settled render is
 * returned: the outcome is whichever commit came first, never both.
 */
export async function cancelOwnedRender(
  deps: Pick<Ports, 'db' | 'pubsub' | 'queue' | 'storage'>,
  accountId: string,
  id: string,
): Promise<{ row: VideosTable; cancelled: boolean }> {
  const row = isIdOf('render', id) ? await findRenderById(deps.db, id) : undefined;
  if (!row || row.account_id !== accountId)
    throw new AppError('RENDER_NOT_FOUND', `No render ${id} exists for this account.`, { details: { render_id: id } });
  if (isTerminalRender(row.status)) return { row, cancelled: false };
  const updated = await transitionRender(deps, id, { to: 'cancelled' });
  if (updated) {
    await deps.queue.cancel(id, { discardCompleted: true });
    await discardOutputsUnlessReady(deps, id);
    return { row: updated, cancelled: true };
  }
  return { row: (await findRenderById(deps.db, id)) ?? row, cancelled: false };
}

function notCancellable(id: string, status: string): AppError {
  return new AppError('RENDER_NOT_CANCELLABLE', `Render ${id} is already ${status}.`, { details: { render_id: id, status } });
}

/**
 * Removes a render's output objects when the render ended without them (cancelled or failed), so a
 * cancellation racing the upload leaves no orphan files. A ready render keeps its outputs (a
 * second, superseded run of the same job writes the same keys); a processing one keeps them too
 * (its retry overwrites them, and its final failure comes back here).
 */
export async function discardOutputsUnlessReady(deps: Pick<Ports, 'db' | 'storage'>, id: string): Promise<boolean> {
  const row = await findRenderById(deps.db, id);
  if (!row || (row.status !== 'failed' && row.status !== 'cancelled')) return false;
  const { videoKey, alphaKey } = storageKeys.renderOutputs(id);
  await deps.storage.delete(videoKey);
  await deps.storage.delete(alphaKey);
  return true;
}
