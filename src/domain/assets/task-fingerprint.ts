import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { AppError } from '../../contracts/errors.js';

/**
 * `task_id` idempotency (DECISIONS "3D outputs"): the same `task_id` with the same request returns
 * the existing asset; with another request, 409 IDEMPOTENCY_KEY_REUSED. "The same request" is the
 * parsed input (field order and spelling aliases do not matter) with the source by content: a file
 * by its SHA-256, a URL as sent. Only this digest is stored (`task_fingerprint`).
 */
export async function taskFingerprint(input: { source: { kind: 'file'; path: string } | { kind: 'url'; url: string } }): Promise<string> {
  const source = input.source.kind === 'file' ? { file: await fileDigest(input.source.path) } : { url: input.source.url };
  const canonical = Object.entries({ ...input, source })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [k, v]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

async function fileDigest(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** What a create does when its `task_id` is already taken: the existing asset's ID, or a 409. */
export function replayOrConflict(
  existing: { id: string; task_fingerprint?: string | null; deleted_at: string | null },
  fingerprint: string,
  conflict: () => AppError,
): string {
  if (existing.deleted_at === null && existing.task_fingerprint && existing.task_fingerprint === fingerprint) return existing.id;
  throw conflict();
}

/** Whether `e` is the task_id conflict a create's transaction throws when it finds the task_id taken. */
export function isTaskConflict(e: unknown): boolean {
  return e instanceof AppError && e.code === 'IDEMPOTENCY_KEY_REUSED';
}
