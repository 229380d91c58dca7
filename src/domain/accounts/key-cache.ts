/**
 * In-memory cache of authenticated API keys (issue #14): sha256 of the token -> principal, kept
 * for a short TTL so a read does not look the key up by its hash every time.
 *
 * Revocation is instant:
 * - in this process, `revokeKey` calls `invalidateApiKey`, which drops the key from every cache;
 * - across processes, either a cached key is confirmed on each use by a primary-key read of its
 *   `revoked_at` (one compiled, prepared statement: `confirmEachUse`, the default without Redis),
 *   or revocations are pushed: with Redis pub/sub (or, on SQLite, the signal file beside the
 *   database: infra/pubsub/file-signal-bus.ts) every process follows the revocation channel
 *   (key-revocations.ts), which calls `invalidateApiKey(keyId)` on each message and clears every
 *   cache after a reconnection. While that feed is not live (Redis away), cached keys are
 *   confirmed on each use again, so a revocation missed meanwhile is never honoured late.
 */
export interface CachedPrincipal {
  accountId: string;
  keyId: string;
}

interface Entry extends CachedPrincipal {
  expiresAt: number;
}

export interface ApiKeyCacheOptions {
  /** How long a looked-up key is trusted without a full lookup; 0 disables the cache. */
  ttlMs: number;
  /** Confirm a cached key's revocation state on every use (needed unless revocations are pushed). */
  confirmEachUse: boolean;
  maxEntries?: number;
  /**
   * Pushed revocations (Redis pub/sub, or the signal file of a SQLite deployment): while not live,
   * cached keys are confirmed on each use. `catchUp`, where the feed has it, applies what was
   * announced up to now before a cached key is trusted.
   */
  revocations?: RevocationFeedView;
}

export interface RevocationFeedView {
  live(): boolean;
  catchUp?(): void;
}

const live = new Set<WeakRef<ApiKeyCache>>();

export class ApiKeyCache {
  readonly ttlMs: number;
  readonly confirmEachUse: boolean;
  private readonly max: number;
  private readonly byHash = new Map<string, Entry>();
  private readonly revocations: RevocationFeedView | undefined;

  constructor(opts: ApiKeyCacheOptions) {
    this.ttlMs = opts.ttlMs;
    this.confirmEachUse = opts.confirmEachUse;
    this.max = opts.maxEntries ?? 10_000;
    this.revocations = opts.revocations;
    live.add(new WeakRef(this));
  }

  /** Whether a cached key must be confirmed against the database before it is used now. */
  mustConfirm(): boolean {
    return this.confirmEachUse || (this.revocations !== undefined && !this.revocations.live());
  }

  get(hash: string, now = Date.now()): CachedPrincipal | undefined {
    this.revocations?.catchUp?.();
    const e = this.byHash.get(hash);
    if (e === undefined) return undefined;
    if (e.expiresAt <= now) {
      this.byHash.delete(hash);
      return undefined;
    }
    return e;
  }

  set(hash: string, p: CachedPrincipal, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    // Bounded: a flood of distinct valid keys cannot grow memory; the oldest insertion goes first.
    if (this.byHash.size >= this.max) this.byHash.delete(this.byHash.keys().next().value as string);
    this.byHash.set(hash, { accountId: p.accountId, keyId: p.keyId, expiresAt: now + this.ttlMs });
  }

  /** Drops one key (by its ID) from this cache. */
  invalidate(keyId: string): void {
    for (const [h, e] of this.byHash) if (e.keyId === keyId) this.byHash.delete(h);
  }

  clear(): void {
    this.byHash.clear();
  }

  get size(): number {
    return this.byHash.size;
  }
}

/** Empties every cache in this process (revocation messages may have been lost). */
export function invalidateAllApiKeys(): void {
  for (const ref of live) {
    const c = ref.deref();
    if (c === undefined) live.delete(ref);
    else c.clear();
  }
}

/**
 * The revocation hook: drops a key from every cache in this process. Called by `revokeKey`, and
 * meant to be called by a cross-process notifier (Redis pub/sub in #15) on each revocation message.
 */
export function invalidateApiKey(keyId: string): void {
  for (const ref of live) {
    const c = ref.deref();
    if (c === undefined) live.delete(ref);
    else c.invalidate(keyId);
  }
}
