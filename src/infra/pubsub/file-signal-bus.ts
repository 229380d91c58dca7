import { appendFile } from 'node:fs/promises';
import { closeSync, fstatSync, openSync, readSync, watch, writeFileSync, type FSWatcher } from 'node:fs';

import type { PubSub } from '../../domain/ports/pubsub.js';

/**
 * A bus between the processes of one machine, through an append-only file. For a SQLite deployment
 * without Redis: every process of it opens the same database file, so they share a directory, and
 * the file lives beside the database. `publish` appends one line (`[channel, message]` as JSON);
 * each process watches the file (inotify on Linux, through `fs.watch`) and reads what was appended
 * since its last read, so no message is skipped even when the watcher coalesces notifications.
 * `catchUp()` reads what was appended up to `CATCH_UP_MS` ago at the latest: a consumer that must
 * not act on a stale view (the API-key cache, before it trusts a cached key) calls it first.
 *
 * Like Redis pub/sub it carries hints, the database stays the record. `connected()` is false when
 * the file cannot be watched (or the watch broke: the file was removed or replaced, seen by the
 * watch or by the open file having no name left); consumers then
 * fall back to reading the record (key-cache.ts confirms each cached key). When the watch comes back
 * the resync listeners run (messages may have been missed meanwhile). The file grows by one short
 * line per message (an API-key revocation); it is never truncated by the service.
 */
/** How stale `catchUp` may let this process's view of the file be, in ms. */
export const CATCH_UP_MS = 10;

export class FileSignalBus implements PubSub {
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly resyncListeners = new Set<() => void>();
  private watcher: FSWatcher | null = null;
  private fd: number | null = null;
  private checkedAt = -Infinity;
  private offset = 0;
  private partial = '';
  private live = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  private constructor(readonly path: string) {}

  /** Opens the bus on `path` (created when missing); only lines appended from now on are delivered. */
  static open(path: string): FileSignalBus {
    const bus = new FileSignalBus(path);
    bus.startWatching(false);
    return bus;
  }

  async publish(channel: string, message: string): Promise<void> {
    // One write with O_APPEND: lines from several processes never interleave within a line.
    await appendFile(this.path, `${JSON.stringify([channel, message])}\n`);
  }

  async subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    return async () => {
      set.delete(handler);
    };
  }

  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  connected(): boolean {
    return this.live;
  }

  /**
   * Delivers every line appended since the last read, checking the file (one `fstat`) at most once
   * per `CATCH_UP_MS`: it runs before every cached key is trusted, and a system call per request
   * cost about 10% of a cached read (measured with `npm run bench -- http`). So a message whose
   * append finished more than that before is always applied, whatever order the event loop would
   * have delivered the watch notification in; anything newer usually arrives by the watch first.
   */
  catchUp(now = Date.now()): void {
    if (this.fd === null || now - this.checkedAt < CATCH_UP_MS) return;
    this.checkedAt = now;
    let st: { size: number; nlink: number };
    try {
      st = fstatSync(this.fd);
    } catch {
      this.lost();
      return;
    }
    // Removed or replaced (our open file has no name left): what others append goes elsewhere.
    if (st.nlink === 0) this.lost();
    else if (st.size !== this.offset) this.drain();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.retry) clearTimeout(this.retry);
    this.watcher?.close();
    this.watcher = null;
    this.closeFd();
    this.handlers.clear();
    this.resyncListeners.clear();
  }

  private startWatching(resync: boolean): void {
    if (this.closed) return;
    try {
      // Created if missing, never truncated.
      writeFileSync(this.path, '', { flag: 'a' });
      this.fd = openSync(this.path, 'r');
      this.offset = fstatSync(this.fd).size;
      this.partial = '';
      const watcher = watch(this.path, { persistent: false }, (type) => {
        if (type === 'rename') this.lost();
        else this.drain();
      });
      watcher.on('error', () => this.lost());
      this.watcher = watcher;
      this.live = true;
      if (resync) for (const l of this.resyncListeners) l();
    } catch {
      this.lost();
    }
  }

  /** The watch broke (file removed or replaced, watcher error): not live until it is watched again. */
  private lost(): void {
    this.live = false;
    this.watcher?.close();
    this.watcher = null;
    this.closeFd();
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.startWatching(true);
    }, 1000);
    this.retry.unref();
  }

  private closeFd(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = null;
  }

  /** Reads and delivers every complete line appended since the last read. */
  private drain(): void {
    const fd = this.fd;
    if (fd === null) return;
    let text = '';
    try {
      const st = fstatSync(fd);
      if (st.nlink === 0) {
        this.lost();
        return;
      }
      const size = st.size;
      if (size < this.offset) {
        // Truncated by someone: start over, and let consumers re-read the record.
        this.offset = 0;
        this.partial = '';
        for (const l of this.resyncListeners) l();
      }
      const buf = Buffer.allocUnsafe(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        text += buf.toString('utf8', 0, n);
      }
    } catch {
      this.lost();
      return;
    }
    if (text === '') return;
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue;
      }
      if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') continue;
      const set = this.handlers.get(parsed[0]);
      if (set) for (const h of set) h(parsed[1]);
    }
  }
}
