import { AppError } from '../../contracts/errors.js';
import { isIdOf } from '../../contracts/ids.js';
import { findRender } from '../renders/renders.repository.js';
import { findRenderById } from '../renders/render-state.repository.js';
import { presentError, signedOutputUrls } from '../videos/videos.presenter.js';
import { eventsAfter, findEvent, latestEvent, type RenderEventRow } from './render-events.js';
import type { Ports } from '../ports/index.js';

/**
 * The render event stream of spec section 6, independent of HTTP: what a new connection is sent
 * first, and how stored events become the wire's event data (signed output URLs are made at send
 * time, so a `ready` event always carries URLs valid for the configured TTL).
 */
export type WireEventType = RenderEventRow['type'] | 'snapshot';

export interface RenderEventData {
  event_id: string;
  sequence: number;
  id: string;
  status: string;
  stage: string | null;
  progress: number | null;
  video_url: string | null;
  alpha_url: string | null;
  occurred_at: string;
  completed_at: string | null;
  error: Record<string, unknown> | null;
}

export interface WireEvent {
  type: WireEventType;
  data: RenderEventData;
}

type StreamDeps = Pick<Ports, 'db' | 'storage' | 'config'>;

const TERMINAL = new Set(['ready', 'failed', 'cancelled']);

export function isTerminalEvent(e: WireEvent): boolean {
  return TERMINAL.has(e.data.status);
}

/** One SSE frame. `data` is single-line JSON, so no line splitting is needed. */
export function sseFrame(e: WireEvent): string {
  return `id: ${e.data.event_id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

export const HEARTBEAT_FRAME = 'event: heartbeat\ndata:\n\n';

/** Converts stored events to wire events; output URLs are signed once per batch. */
export async function toWireEvents(deps: StreamDeps, renderId: string, rows: RenderEventRow[], as?: 'snapshot'): Promise<WireEvent[]> {
  let urls: { video_url: string | null; alpha_url: string | null } | null = null;
  if (rows.some((r) => r.data.status === 'ready')) {
    const row = await findRenderById(deps.db, renderId);
    urls = row ? await signedOutputUrls(deps, row) : null;
  }
  return rows.map((r) => ({
    type: as ?? r.type,
    data: {
      event_id: r.event_id,
      sequence: r.sequence,
      id: renderId,
      status: r.data.status,
      stage: r.data.status === 'processing' ? r.data.stage : null,
      progress: r.data.progress === null ? null : Number(r.data.progress),
      video_url: r.data.status === 'ready' ? (urls?.video_url ?? null) : null,
      alpha_url: r.data.status === 'ready' ? (urls?.alpha_url ?? null) : null,
      occurred_at: r.occurred_at,
      completed_at: r.data.completed_at,
      error:
        r.data.status === 'failed' && r.data.error
          ? (presentError({ error_json: JSON.stringify(r.data.error), request_id: null }) as unknown as Record<string, unknown>)
          : null,
    },
  }));
}

export interface StreamOpening {
  renderId: string;
  /** Frames to send at once, in order. */
  events: WireEvent[];
  /** Sequence of the newest event sent (live delivery continues after it). */
  lastSequence: number;
  /** The render is terminal and everything is sent: close after `events`. */
  done: boolean;
}

/**
 * What a new connection gets (DECISIONS "Event stream"):
 * - no Last-Event-ID, or one this render does not know (expired history, another render's ID):
 *   a `snapshot` of the latest stored state, whose event_id is that of the latest event;
 * - a known Last-Event-ID: exactly the stored events after it, in order (no snapshot: it would
 *   jump ahead of the events being replayed); if none were missed, a snapshot (equal to the last
 *   event the client saw), so every connection starts with a frame and a terminal render closes.
 * Missing, malformed, foreign and other-account IDs are all RENDER_NOT_FOUND, before any byte of
 * the stream is written.
 */
export async function openRenderStream(
  deps: StreamDeps,
  accountId: string,
  renderId: string,
  lastEventId: string | undefined,
): Promise<StreamOpening> {
  const row = isIdOf('render', renderId) ? await findRender(deps.db, accountId, renderId) : undefined;
  if (!row) throw new AppError('RENDER_NOT_FOUND', `No render ${renderId} exists for this account.`, { details: { render_id: renderId } });

  const resumeFrom = lastEventId && isIdOf('event', lastEventId) ? await findEvent(deps.db, renderId, lastEventId) : undefined;
  if (resumeFrom) {
    const missed = await eventsAfter(deps.db, renderId, resumeFrom.sequence);
    if (missed.length > 0) {
      const events = await toWireEvents(deps, renderId, missed);
      return { renderId, events, lastSequence: missed[missed.length - 1].sequence, done: isTerminalEvent(events[events.length - 1]) };
    }
    // Nothing missed: the snapshot is the event the client saw, not the latest one. An event stored
    // between the two reads would otherwise arrive only as a snapshot and never as itself; from
    // here the live part of the stream delivers it in order.
    const events = await toWireEvents(deps, renderId, [resumeFrom], 'snapshot');
    return { renderId, events, lastSequence: resumeFrom.sequence, done: isTerminalEvent(events[0]) };
  }
  const latest = await latestEvent(deps.db, renderId);
  if (!latest) {
    // Every render is created with its `queued` event; a row without one predates the event log.
    const synthetic: RenderEventRow = {
      event_id: '',
      sequence: 0,
      type: 'queued',
      occurred_at: row.updated_at,
      data: {
        id: row.id,
        status: row.status,
        stage: row.stage,
        progress: row.progress,
        completed_at: row.completed_at,
        error: row.error_json ? JSON.parse(row.error_json) : null,
        has_video: !!row.video_key,
        has_alpha: !!row.alpha_key,
      },
    };
    const events = await toWireEvents(deps, renderId, [synthetic], 'snapshot');
    return { renderId, events, lastSequence: 0, done: isTerminalEvent(events[0]) };
  }
  const events = await toWireEvents(deps, renderId, [latest], 'snapshot');
  return { renderId, events, lastSequence: latest.sequence, done: isTerminalEvent(events[0]) };
}
