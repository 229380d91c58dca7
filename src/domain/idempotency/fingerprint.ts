import { createHash } from 'node:crypto';

/**
 * A request's fingerprint, made of digests only: one `[name, sha256-hex]` part per text field or
 * file part, in the order the client sent them. File parts are hashed while they stream to their
 * temp files (src/http/multipart.ts); text values are hashed as received. No request bytes are kept.
 */
export type FingerprintPart = readonly [name: string, digest: string];

export interface Fingerprint {
  parts: FingerprintPart[];
  /** SHA-256 over the ordered parts: equal fingerprints, equal requests. */
  digest: string;
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function fingerprintOf(parts: FingerprintPart[]): Fingerprint {
  const h = createHash('sha256');
  for (const [name, digest] of parts) h.update(`${name.length}:${name}=${digest}\n`);
  return { parts, digest: h.digest('hex') };
}

/** Key order and whitespace do not make two JSON bodies different; values do. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** A JSON body's fingerprint: one part per top-level member (sorted), so a 409 can name the member. */
export function fingerprintJson(body: unknown): Fingerprint {
  if (body === null || body === undefined) return fingerprintOf([]);
  if (typeof body !== 'object' || Array.isArray(body)) return fingerprintOf([['(body)', sha256Hex(JSON.stringify(canonical(body)))]]);
  const rec = body as Record<string, unknown>;
  return fingerprintOf(
    Object.keys(rec)
      .sort()
      .map((k) => [k, sha256Hex(JSON.stringify(canonical(rec[k])) ?? 'undefined')] as const),
  );
}

/**
 * What differs between two fingerprints, by part name: changed values, parts only in one of them,
 * or (when the same parts came in another order) the order itself.
 */
export function describeDifference(
  before: readonly FingerprintPart[],
  after: readonly FingerprintPart[],
): { changed: string[]; added: string[]; removed: string[]; order_changed: boolean } {
  const index = (parts: readonly FingerprintPart[]) => {
    const seen = new Map<string, number>();
    const out = new Map<string, string>();
    for (const [name, digest] of parts) {
      const n = seen.get(name) ?? 0;
      seen.set(name, n + 1);
      out.set(n === 0 ? name : `${name}[${n}]`, digest);
    }
    return out;
  };
  const a = index(before);
  const b = index(after);
  const changed = [...b.keys()].filter((k) => a.has(k) && a.get(k) !== b.get(k));
  const added = [...b.keys()].filter((k) => !a.has(k));
  const removed = [...a.keys()].filter((k) => !b.has(k));
  const order_changed = changed.length + added.length + removed.length === 0;
  return { changed, added, removed, order_changed };
}
