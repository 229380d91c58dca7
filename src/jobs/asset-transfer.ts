import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { AppError } from '../contracts/errors.js';
import { fetchToFile } from '../infra/net/safe-fetch.js';
import type { Storage } from '../domain/ports/storage.js';
import type { JobContext } from '../domain/ports/job-queue.js';
import * as jobs from '../infra/queue/jobs.repository.js';
import type { Ports } from '../domain/ports/index.js';

/**
 * Moving files between storage and a job's local work dir. Engine assets are a fixed set of file
 * names per kind (src/engine/types.ts), so a stored asset prefix is copied file by file without a
 * listing operation (which S3-like stores make slow and eventually consistent).
 */
export const CHARACTER_ASSET_FILES = ['character.json', 'texture.png', 'thumbnail.png'] as const;
export const MOTION_ASSET_FILES = ['track.json', 'source.mp4', 'plate.png', 'audio.m4a'] as const;

/** Uploads those of `names` that exist in `dir` to `<prefix>/<name>`. Returns what was uploaded. */
export async function uploadAssets(storage: Storage, dir: string, prefix: string, names: readonly string[]): Promise<string[]> {
  const done: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    await storage.putFile(`${prefix}/${name}`, file);
    done.push(name);
  }
  return done;
}

/** Downloads the stored assets under `prefix` into `dir`; false when the required first one is missing. */
export async function downloadAssets(storage: Storage, prefix: string, dir: string, names: readonly string[]): Promise<boolean> {
  await mkdir(dir, { recursive: true });
  for (const [i, name] of names.entries()) {
    const key = `${prefix}/${name}`;
    if (!(await storage.stat(key))) {
      if (i === 0) return false;
      continue;
    }
    await storage.getFile(key, join(dir, name));
  }
  return true;
}

/** Fetches a URL input with the service's guard (public addresses only, size and time caps). */
export async function fetchInput(
  deps: Pick<Ports, 'config'>,
  url: string,
  dest: string,
  kind: 'image' | 'video',
  signal: AbortSignal,
): Promise<void> {
  const maxBytes = kind === 'image' ? deps.config.limits.imageBytes : deps.config.limits.videoBytes;
  await fetchToFile(url, dest, { maxBytes, timeoutMs: deps.config.limits.urlFetchTimeoutMs, allowList: deps.config.urlAllowList, signal });
}

export function resolveIn(dir: string, file: string): string {
  return isAbsolute(file) ? file : join(dir, file);
}

export function jobsDir(tmpDir: string): string {
  return join(tmpDir, 'jobs');
}

/**
 * Runs `fn` in a fresh work dir `<tmp>/jobs/<job id>/<attempt>`, removed afterwards whatever
 * happens. Per attempt, because two runs of one job can overlap: a worker that froze past its lease
 * keeps going until its next heartbeat while the new owner starts; sharing a dir, each would delete
 * the other's files. Dirs of earlier attempts belong to a dead or superseded run (we hold the lease
 * now) and are removed at start, so a crash leaves nothing behind once the job finishes.
 */
export async function withWorkDir<T>(tmpDir: string, job: Pick<JobContext, 'id' | 'attempt'>, fn: (dir: string) => Promise<T>): Promise<T> {
  const jobDir = join(jobsDir(tmpDir), basename(job.id));
  const dir = join(jobDir, String(job.attempt));
  const earlier = await readdir(jobDir).catch(() => [] as string[]);
  await Promise.all(earlier.filter((n) => n !== String(job.attempt)).map((n) => rm(join(jobDir, n), { recursive: true, force: true })));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
    // Fails while another attempt's dir is still there; that run removes the parent when it ends.
    await rmdir(jobDir).catch(() => {});
  }
}

/**
 * Removes work dirs left by jobs that no longer run anywhere (a killed process). Dirs of jobs that
 * hold a live lease belong to another worker sharing this data dir and are left alone.
 */
export async function removeOrphanWorkDirs(deps: Pick<Ports, 'db' | 'tmpDir'>): Promise<string[]> {
  const root = jobsDir(deps.tmpDir);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const live = await jobs.liveJobIds(deps.db, names, new Date().toISOString());
  const removed = names.filter((n) => !live.has(n));
  await Promise.all(removed.map((n) => rm(join(root, n), { recursive: true, force: true })));
  return removed;
}

export function missingAsset(code: 'INVALID_CHARACTER' | 'INVALID_MOTION', id: string): AppError {
  const what = code === 'INVALID_CHARACTER' ? 'Character' : 'Motion';
  return new AppError(code, `The processed files of ${what} ${id} are missing; create the ${what} again.`, { details: { id } });
}
