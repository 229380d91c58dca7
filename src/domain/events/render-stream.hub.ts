import { eventsAfter, renderChannel } from './render-events.js';
import { recentEventHeads } from './render-stream.repository.js';
import { isTerminalEvent, toWireEvents, type WireEvent } from './render-stream.service.js';
import type { Ports } from '../ports/index.js';

/**
 * Live delivery for every open event stream of one process. Kept cheap per idle stream: streams of
 * the same render share one channel (one pub/sub subscription, one database read per change), and
 * one process-wide ticker sends heartbeats, so an idle stream costs a socket and a small object.
 *
 * Two wake-ups, because the pub/sub hint only reaches processes on the same bus: the hint (instant,
 * same process or a distributed bus) and a poll of recently stored events (workers in another
 * process on an in-process bus, an admin command). Either way the stored history is what is sent,
 * so a missed or duplicated hint changes latency, never content or order.
 */
export interface StreamSink {
  /** Sequence of the newest event this stream has sent. */
  lastSequence: number;
  send(events: WireEvent[]): void;
  heartbeat(): void;
  /** Called after a terminal event was sent; the sink closes its connection. */
  end(): void;
}

interface Channel {
  renderId: string;
  sinks: Set<Sink>;
  unsubscribe: Promise<() => Promise<void>>;
  /** Highest sequence read for this render. */
  readSequence: number;
  reading: boolean;
  again: boolean;
}

interface Sink {
  target: StreamSink;
  nextHeartbeatAt: number;
}

type HubDeps = Pick<Ports, 'db' | 'pubsub' | 'storage' | 'config'>;

/** Events committed this long before a poll are still looked for (commit lag, clock skew). */
const POLL_LOOKBACK_MS = 5_000;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The smallest event ID that can have been made at `ms` (IDs are ULIDs: time first). */
function eventIdFloor(ms: number): string {
  let t = Math.max(0, Math.floor(ms));
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return `evt_${out}${'0'.repeat(16)}`;
}

export class RenderStreamHub {
  private readonly channels = new Map<string, Channel>();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private closed = false;
  private readonly stopResync: (() => void) | null;

  constructor(
    private readonly deps: HubDeps,
    private readonly opts: { heartbeatMs: number; pollMs: number },
  ) {
    // After the bus reconnects, hints sent while it was away are lost: every open stream re-reads
    // its stored history (from the oldest sequence any of its streams has sent).
    this.stopResync =
      deps.pubsub.onResync?.(() => {
        for (const ch of this.channels.values()) void this.read(ch);
      }) ?? null;
  }

  /** Number of open streams (for tests and measurements). */
  streamCount(): number {
    let n = 0;
    for (const c of this.channels.values()) n += c.sinks.size;
    return n;
  }

  /** Starts live delivery to a stream; returns the function that detaches it. */
  attach(renderId: string, target: StreamSink): () => void {
    if (this.closed) {
      target.end();
      return () => {};
    }
    let ch = this.channels.get(renderId);
    if (!ch) {
      const created: Channel = {
        renderId,
        sinks: new Set(),
        unsubscribe: this.deps.pubsub.subscribe(renderChannel(renderId), () => void this.read(created)),
        readSequence: target.lastSequence,
        reading: false,
        again: false,
      };
      ch = created;
      this.channels.set(renderId, ch);
    }
    const sink: Sink = { target, nextHeartbeatAt: Date.now() + this.opts.heartbeatMs };
    ch.sinks.add(sink);
    this.startTimers();
    // Anything stored between the stream's opening read and this attach is picked up now.
    if (target.lastSequence < ch.readSequence) ch.readSequence = target.lastSequence;
    void this.read(ch);
    const channel = ch;
    return () => this.detach(channel, sink);
  }

  /** Ends every stream (server shutdown: open streams would otherwise hold the server open). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopResync?.();
    this.stopTimers();
    const all = [...this.channels.values()];
    this.channels.clear();
    for (const ch of all) {
      for (const s of ch.sinks) s.target.end();
      ch.sinks.clear();
      await (await ch.unsubscribe)().catch(() => {});
    }
  }

  private detach(ch: Channel, sink: Sink): void {
    if (!ch.sinks.delete(sink) || ch.sinks.size > 0) return;
    if (this.channels.get(ch.renderId) === ch) this.channels.delete(ch.renderId);
    void ch.unsubscribe.then((off) => off()).catch(() => {});
    if (this.channels.size === 0) this.stopTimers();
  }

  /** Reads the render's new events once and hands each stream the ones it has not sent. */
  private async read(ch: Channel): Promise<void> {
    if (ch.reading) {
      ch.again = true;
      return;
    }
    ch.reading = true;
    try {
      do {
        ch.again = false;
        if (ch.sinks.size === 0) return;
        let from = Infinity;
        for (const s of ch.sinks) from = Math.min(from, s.target.lastSequence);
        const rows = await eventsAfter(this.deps.db, ch.renderId, from);
        if (rows.length === 0) continue;
        const wire = await toWireEvents(this.deps, ch.renderId, rows);
        ch.readSequence = Math.max(ch.readSequence, rows[rows.length - 1].sequence);
        for (const s of [...ch.sinks]) {
          const fresh = wire.filter((e) => e.data.sequence > s.target.lastSequence);
          if (fresh.length === 0) continue;
          s.target.lastSequence = fresh[fresh.length - 1].data.sequence;
          s.target.send(fresh);
          if (fresh.some(isTerminalEvent)) {
            this.detach(ch, s);
            s.target.end();
          }
        }
      } while (ch.again);
    } catch {
      // A failed read (database hiccup) is retried by the next hint or poll.
    } finally {
      ch.reading = false;
    }
  }

  private startTimers(): void {
    if (!this.heartbeatTimer) {
      // A tenth of the interval: each stream's heartbeat comes between 1.0x and 1.1x the interval.
      const tick = Math.max(5, Math.floor(this.opts.heartbeatMs / 10));
      this.heartbeatTimer = setInterval(() => this.beat(), tick);
      this.heartbeatTimer.unref();
    }
    if (!this.pollTimer) {
      this.pollTimer = setInterval(() => void this.poll(), this.opts.pollMs);
      this.pollTimer.unref();
    }
  }

  private stopTimers(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.heartbeatTimer = null;
    this.pollTimer = null;
  }

  private beat(): void {
    const now = Date.now();
    for (const ch of this.channels.values()) {
      for (const s of ch.sinks) {
        if (s.nextHeartbeatAt > now) continue;
        s.nextHeartbeatAt = now + this.opts.heartbeatMs;
        s.target.heartbeat();
      }
    }
  }

  /** One query for all channels: which renders got events in the last few seconds. */
  private async poll(): Promise<void> {
    if (this.polling || this.channels.size === 0) return;
    this.polling = true;
    try {
      const heads = await recentEventHeads(this.deps.db, eventIdFloor(Date.now() - POLL_LOOKBACK_MS));
      for (const h of heads) {
        const ch = this.channels.get(h.render_id);
        if (ch && h.seq > ch.readSequence) void this.read(ch);
      }
    } catch {
      // Next tick retries.
    } finally {
      this.polling = false;
    }
  }
}
