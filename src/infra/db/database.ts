import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  type Dialect,
  type Driver,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import type { Database } from './schema.js';
import * as m0001 from './migrations/0001-initial.js';
import * as m0002AssetTaskIds from './migrations/0002-asset-task-ids.js';
import * as m0003VideoGeneration from './migrations/0003-video-generation.js';
import * as m0004LegacyModel from './migrations/0004-legacy-model.js';
import * as m0005IdempotentRequests from './migrations/0005-idempotent-requests.js';
import * as m0006AssetTaskFingerprints from './migrations/0006-asset-task-fingerprints.js';
import * as m0007VideoListOrder from './migrations/0007-video-list-order.js';
import { sqliteFileOf } from '../../config/database-url.js';

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

export interface DbHandle {
  db: Db;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  url: string;
  /** PostgreSQL schema to use (created if missing); lets each test file own a fresh schema. */
  schema?: string;
  poolSize?: number;
}

// int8 (bigint) and numeric come back as strings by default; our values (milli-credits, bytes,
// milliseconds) stay far below 2^53, so numbers are exact and far more convenient.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * SQLite's default deferred BEGIN can fail with SQLITE_BUSY when two processes (API and worker) both
 * upgrade a read transaction to a write one; BEGIN IMMEDIATE takes the write lock up front and
 * waits on busy_timeout instead, so concurrent writers queue rather than fail.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a primary-key
 * lookup. Statements are kept by SQL text (queries are parameterised, so the set of texts is the
 * set of query shapes) and reused; the map is bounded and simply cleared should it ever fill up.
 */
function cacheStatements(database: SQLite.Database, max = 2000): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SQLite.Statement>();
  database.prepare = ((sqlText: string) => {
    let stmt = cache.get(sqlText);
    if (stmt === undefined) {
      stmt = prepare(sqlText);
      if (cache.size >= max) cache.clear();
      cache.set(sqlText, stmt);
    }
    return stmt;
  }) as typeof database.prepare;
}

/** The better-sqlite3 handle behind each SQLite Kysely instance (the root one, not transactions). */
const sqliteHandles = new WeakMap<object, SQLite.Database>();

/**
 * The SQLite handle of `db` when it is the root instance of a SQLite database, for the hot read path
 * (compiled.ts): a statement run on it synchronously, while no transaction is open on the one
 * connection, sees exactly what a query through Kysely would, without Kysely's connection hand-off.
 */
export function sqliteHandleOf(db: object): SQLite.Database | undefined {
  return sqliteHandles.get(db);
}

function sqliteDialect(file: string, onDatabase: (d: SQLite.Database) => void): Dialect {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  cacheStatements(database);
  onDatabase(database);
  return new ImmediateSqliteDialect({ database });
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDb(opts: OpenDbOptions): Promise<DbHandle> {
  if (opts.url.startsWith('sqlite:')) {
    const file = sqliteFileOf(opts.url) ?? ':memory:';
    let handle: SQLite.Database | undefined;
    const db = new Kysely<Database>({ dialect: sqliteDialect(file, (d) => (handle = d)) });
    sqliteHandles.set(db, handle!);
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  if (opts.schema !== undefined && !SCHEMA_NAME.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  if (opts.schema) {
    const admin = new pg.Client({ connectionString: opts.url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists ${opts.schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle client whose connection drops (server restart, network cut) emits 'error' on the pool;
  // the pool discards it and the next query opens a fresh connection. Unhandled, it would crash.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-asset-task-ids': m0002AssetTaskIds,
  '0003-video-generation': m0003VideoGeneration,
  '0004-legacy-model': m0004LegacyModel,
  '0005-idempotent-requests': m0005IdempotentRequests,
  '0006-asset-task-fingerprints': m0006AssetTaskFingerprints,
  '0007-video-list-order': m0007VideoListOrder,
};

class StaticMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

/** Brings the schema up to date; safe to call from every process at start (Kysely takes a lock). */
export async function migrate(db: Db, opts: { schema?: string } = {}): Promise<void> {
  // With a PostgreSQL schema, Kysely must keep its migration and lock tables in that schema too:
  // otherwise it finds another schema's lock table on the search path and fails.
  const migrator = new Migrator({
    db,
    provider: new StaticMigrations(),
    ...(opts.schema ? { migrationTableSchema: opts.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | undefined;
  if (!err) return false;
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isCheckViolation(e: unknown): boolean {
  const err = e as { code?: string } | undefined;
  return err?.code === '23514' || err?.code === 'SQLITE_CONSTRAINT_CHECK';
}

export function nowIso(): string {
  return new Date().toISOString();
}
