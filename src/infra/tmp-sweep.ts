import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes what a crash left in the data dir's `tmp/uploads/`: a request's upload dir is removed by
 * the request itself whether it is answered or not (src/http/multipart.ts), so a dir that outlives
 * every possible request (older than `olderThanMs`, longer than the request timeout) belongs to a
 * process that died. The age rule keeps the sweep safe when several API processes share the dir.
 * (Job work dirs under `tmp/jobs/` are swept by lease instead: src/jobs/asset-transfer.ts.)
 */
export async function sweepStaleUploads(tmpDir: string, olderThanMs: number, now = Date.now()): Promise<string[]> {
  const root = join(tmpDir, 'uploads');
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(root, name);
    const st = await stat(path).catch(() => null);
    if (!st || now - st.mtimeMs < olderThanMs) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

export const TMP_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** Sweeps now and then hourly; returns the function that stops it (the timer never holds the process). */
export function startUploadSweep(tmpDir: string, olderThanMs: number, onError: (e: unknown) => void): () => void {
  const tick = () => void sweepStaleUploads(tmpDir, olderThanMs).catch(onError);
  tick();
  const timer = setInterval(tick, TMP_SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
