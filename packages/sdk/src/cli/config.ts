/**
 * Where the CLI (and the MCP server) get the key and base URL, first match wins: command-line
 * options, MARIONETTE_API_KEY / MARIONETTE_BASE_URL, then the file `marionette login` writes
 * ($MARIONETTE_CONFIG, else $XDG_CONFIG_HOME/marionette/config.json, else ~/.config/...), mode 0600.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface StoredConfig {
  api_key?: string;
  base_url?: string;
}

export interface Settings {
  apiKey: string | undefined;
  baseUrl: string;
  configPath: string;
  /** Where each value came from, for `marionette whoami`-style messages. */
  source: { apiKey: 'option' | 'env' | 'config' | 'none'; baseUrl: 'option' | 'env' | 'config' | 'default' };
}

export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.MARIONETTE_CONFIG) return env.MARIONETTE_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'marionette', 'config.json');
}

export async function readStored(path: string): Promise<StoredConfig> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as StoredConfig;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
}

/** Written to a 0600 temp file and renamed over the old one, so the key is never readable by others, even briefly. */
export async function writeStored(path: string, cfg: StoredConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(cfg, null, 2) + '\n', { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

export async function removeStored(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

export async function resolveSettings(opts: { apiKey?: string; baseUrl?: string }, env: NodeJS.ProcessEnv): Promise<Settings> {
  const path = configPath(env);
  const stored = await readStored(path);
  const apiKey = opts.apiKey ?? env.MARIONETTE_API_KEY ?? stored.api_key;
  const baseUrl = opts.baseUrl ?? env.MARIONETTE_BASE_URL ?? stored.base_url ?? DEFAULT_BASE_URL;
  return {
    apiKey: apiKey || undefined,
    baseUrl,
    configPath: path,
    source: {
      apiKey: opts.apiKey ? 'option' : env.MARIONETTE_API_KEY ? 'env' : stored.api_key ? 'config' : 'none',
      baseUrl: opts.baseUrl ? 'option' : env.MARIONETTE_BASE_URL ? 'env' : stored.base_url ? 'config' : 'default',
    },
  };
}
