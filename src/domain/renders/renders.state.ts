import { ERROR_CATALOGUE, type ErrorCode } from '../../contracts/errors.js';
import { nowIso } from '../../infra/db/database.js';
import type { VideosTable } from '../../infra/db/schema.js';
import { release, reserve, settle } from '../billing/billing.service.js';
import { renderPriceMilli, renderReservationMilli } from '../billing/prices.js';
import { announceRenderEvent, appendRenderEvent, type RenderEventType } from '../events/render-events.js';
import * as repo from './render-state.repository.js';
import type { Ports } from '../ports/index.js';

/**
 * The one place that writes a Render's status (spec 3.1). Each change runs in one transaction that
 * updates the row, appends the stored event (with the next sequence) and moves the money:
 * `ready` settles the reservation at the measured duration (1 credit per second, to the thousandth),
 * `failed` and `cancelled` release it. Billing is keyed by the render ID, so a transition repeated
 * after a crash cannot bill twice; and terminal renders are left alone (the change returns null),
 * so a late worker cannot undo a cancellation. The pub/sub announcement follows the commit.
 */
export type RenderStage = NonNullable<VideosTable['stage']>;

export interface RenderFailure {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  action?: string;
  retryAfterMs?: number | null;
}

export type RenderChange =
  | { to: 'processing' }
  | { to: 'progress'; stage: RenderStage; progress: number }
  /**
   * Another worker took the render's job over (its previous worker died): one `progress` event with
   * the current stage and progress, so a client watching the stream sees the work move again at
   * once instead of only when the new attempt passes the old progress.
   */
  | { to: 'resumed' }
  | {
      to: 'ready';
      videoKey: string;
      alphaKey: string | null;
      durationMs: number;
      /** `reserved`: settle at exactly the reservation (priced videos); default: the measured duration. */
      charge?: 'duration' | 'reserved';
      enhancedPrompt?: string | null;
    }
  | { to: 'failed'; error: RenderFailure }
  | { to: 'cancelled' };

type Deps = Pick<Ports, 'db' | 'pubsub'>;

export function isTerminalRender(status: VideosTable['status']): boolean {
  return status === 'ready' || status === 'failed' || status === 'cancelled';
}

const STAGE_ORDER: Record<RenderStage, number> = { analyzing: 0, rendering: 1, finishing: 2 };

function clampProgress(p: number): number {
  return Number.isFinite(p) ? Math.min(100, Math.max(0, Math.round(p))) : 0;
}

/** The row patch and event type for a change, or null when it changes nothing visible. */
function planChange(row: VideosTable, change: RenderChange, now: string): { patch: Partial<VideosTable>; event: RenderEventType } | null {
  const start = row.status === 'queued' ? { status: 'processing' as const, started_at: now, stage: 'analyzing' as const } : {};
  switch (change.to) {
    case 'processing':
      // A retried job calls this again on a render that is already processing: nothing to tell.
      if (row.status !== 'queued') return null;
      return { patch: { ...start, progress: 0, updated_at: now }, event: 'processing' };
    case 'resumed':
      if (row.status !== 'processing') return null;
      return { patch: { updated_at: now }, event: 'progress' };
    case 'progress': {
      // Progress never goes backwards on the wire (a retry restarts the work, not the bar), and
      // 100 belongs to `ready`. The stage does not go back either (a retry's `analyzing` after
      // `rendering` would read as a regression to a client).
      const progress = Math.max(Number(row.progress ?? 0), Math.min(99, clampProgress(change.progress)));
      const stage =
        row.status === 'processing' && row.stage && STAGE_ORDER[row.stage] > STAGE_ORDER[change.stage] ? row.stage : change.stage;
      if (row.status === 'processing' && progress === Number(row.progress) && stage === row.stage) return null;
      return { patch: { ...start, stage, progress, updated_at: now }, event: row.status === 'queued' ? 'processing' : 'progress' };
    }
    case 'ready':
      return {
        patch: {
          status: 'ready',
          stage: null,
          progress: 100,
          video_key: change.videoKey,
          alpha_key: change.alphaKey,
          duration_ms: Math.round(change.durationMs),
          completed_at: now,
          updated_at: now,
          ...(change.enhancedPrompt ? { enhanced_prompt: change.enhancedPrompt } : {}),
        },
        event: 'ready',
      };
    case 'failed': {
      const e = change.error;
      const body = {
        code: e.code,
        message: e.message,
        retryable: e.retryable,
        // The request that created the render, so support can follow it from the envelope.
        request_id: row.request_id,
        details: e.details ?? {},
        remediation: { action: e.action ?? ERROR_CATALOGUE[e.code].action, retry_after_ms: e.retryAfterMs ?? null },
      };
      return {
        patch: { status: 'failed', stage: null, error_json: JSON.stringify(body), completed_at: now, updated_at: now },
        event: 'failed',
      };
    }
    case 'cancelled':
      return { patch: { status: 'cancelled', stage: null, completed_at: now, updated_at: now }, event: 'cancelled' };
  }
}

/** Applies a change; returns the updated row, or null when the render is missing, terminal or unchanged. */
export async function transitionRender(deps: Deps, id: string, change: RenderChange): Promise<VideosTable | null> {
  const updated = await deps.db.transaction().execute(async (tx) => {
    const now = nowIso();
    const row = await repo.lockActiveRender(tx, id, now);
    if (!row) return null;
    const plan = planChange(row, change, now);
    if (!plan) return null;
    const next = await repo.updateRender(tx, id, plan.patch);
    await appendRenderEvent(tx, next, plan.event);
    if (change.to === 'ready') {
      await settle(tx, row.account_id, id, change.charge === 'reserved' ? Number(row.reserved_milli) : renderPriceMilli(change.durationMs));
    } else if (change.to === 'failed' || change.to === 'cancelled') await release(tx, row.account_id, id);
    return next;
  });
  if (updated) await announceRenderEvent(deps.pubsub, id);
  return updated;
}

/**
 * A URL motion's length is only known once fetched: reserve `ceil(seconds)` credits now, before any
 * rendering work, and record the estimate. Refuses with INSUFFICIENT_CREDITS (the caller fails the
 * render with it). Exactly once: a repeated call after a crash finds the reservation and does nothing.
 * Returns false when the render is no longer active.
 */
export async function reserveMeasuredDuration(deps: Deps, id: string, durationMs: number): Promise<boolean> {
  return deps.db.transaction().execute(async (tx) => {
    const now = nowIso();
    const row = await repo.lockActiveRender(tx, id, now);
    if (!row) return false;
    const milli = renderReservationMilli(durationMs);
    await reserve(tx, row.account_id, id, milli);
    if (Number(row.reserved_milli) === 0) await repo.updateRender(tx, id, { estimated_ms: Math.round(durationMs), reserved_milli: milli });
    return true;
  });
}
