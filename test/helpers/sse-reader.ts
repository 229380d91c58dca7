/** A minimal server-sent-events reader over fetch, for tests: frames in arrival order. */
export interface SseFrame {
  id: string | null;
  event: string;
  data: string;
  /** Parsed `data` when it is JSON, else null. */
  json: any;
  receivedAt: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  frames: SseFrame[];
  /** Next frame not yet taken; null once the server closed the stream. Rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseFrame | null>;
  /** Frames until (and including) the first whose event is one of `events`, skipping heartbeats unless asked. */
  until(events: string[], timeoutMs?: number): Promise<SseFrame[]>;
  closed: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const frames: SseFrame[] = [];
  let taken = 0;
  let ended = false;
  let waiter: (() => void) | null = null;
  const poke = () => {
    const w = waiter;
    waiter = null;
    w?.();
  };
  const closed = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: SseFrame = { id: null, event: 'message', data: '', json: null, receivedAt: Date.now() };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            const m = /^([a-z]+): ?(.*)$/i.exec(line);
            if (!m) continue;
            if (m[1] === 'id') f.id = m[2];
            else if (m[1] === 'event') f.event = m[2];
            else if (m[1] === 'data') data.push(m[2]);
          }
          f.data = data.join('\n');
          try {
            f.json = f.data ? JSON.parse(f.data) : null;
          } catch {
            f.json = null;
          }
          frames.push(f);
          poke();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      ended = true;
      poke();
    }
  })();

  async function next(timeoutMs = 10_000): Promise<SseFrame | null> {
    const deadline = Date.now() + timeoutMs;
    while (taken >= frames.length) {
      if (ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE frame within ${timeoutMs} ms (got ${frames.map((f) => f.event).join(',')})`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        waiter = () => {
          clearTimeout(t);
          r();
        };
      });
    }
    return frames[taken++];
  }

  return {
    status: res.status,
    headers: res.headers,
    frames,
    next,
    async until(events, timeoutMs = 10_000) {
      const out: SseFrame[] = [];
      for (;;) {
        const f = await next(timeoutMs);
        if (!f) throw new Error(`stream closed before ${events.join('/')} (got ${out.map((x) => x.event).join(',')})`);
        if (f.event === 'heartbeat' && !events.includes('heartbeat')) continue;
        out.push(f);
        if (events.includes(f.event)) return out;
      }
    },
    closed,
    close: () => controller.abort(),
  };
}

/**
 * Opens `GET /v1/renders/{id}/events` streams against a test service with its key (or another), and
 * closes every stream it opened in `closeAll`.
 */
export function renderEventStreams(svc: () => { baseUrl: string; apiKey: string }) {
  const open: SseStream[] = [];
  return {
    async stream(renderId: string, headers: Record<string, string> = {}, key = svc().apiKey): Promise<SseStream> {
      const s = await openSse(`${svc().baseUrl}/v1/renders/${renderId}/events`, { authorization: `Bearer ${key}`, ...headers });
      open.push(s);
      return s;
    },
    closeAll(): void {
      for (const s of open) s.close();
    },
  };
}
