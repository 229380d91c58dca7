import type { Config } from '../config/config.js';
import type { Db } from '../infra/db/database.js';

/**
 * Admin commands contributed by features (e.g. `render cancel ID` from the jobs feature). Each takes
 * the database, parsed flags (positionals as `_0`, `_1`...) and the config, and returns JSON.
 */
export const adminCommands: Record<string, (db: Db, flags: Record<string, string | undefined>, config: Config) => Promise<unknown>> = {};
