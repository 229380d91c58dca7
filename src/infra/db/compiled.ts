import { SelectQueryNode, type CompiledQuery, type Compilable } from 'kysely';
import { sqliteHandleOf, type Db } from './database.js';

/**
 * A query built and compiled once per database, then run with new parameter values: the hot read
 * paths (authentication, balance, one video) skip Kysely's per-call tree building and SQL
 * compilation. The builder is called once with sentinel arguments; each compiled parameter that is
 * a sentinel becomes "argument i" at run time, every other parameter stays a constant.
 *
 * Only for queries whose shape does not depend on the argument values (no optional clauses).
 *
 * On SQLite a SELECT runs directly on the database handle (one cached prepared statement, called
 * synchronously) when no transaction is open on its one connection: the same rows Kysely would
 * return, without its connection hand-off (several promise hops per query on the hottest reads).
 * Inside a transaction, or given a transaction's instance, it goes through Kysely as before.
 */
const SENTINEL = '\u0000marionette-arg-';

export function compiledOnce<A extends readonly (string | number | null)[], R>(
  build: (db: Db, ...args: { [K in keyof A]: A[K] }) => Compilable<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  const cache = new WeakMap<Db, { query: CompiledQuery<R>; slots: (number | null)[]; select: boolean }>();
  return async (db, ...args) => {
    let c = cache.get(db);
    if (!c) {
      const sentinels = args.map((_, i) => `${SENTINEL}${i}`) as unknown as { [K in keyof A]: A[K] };
      const query = build(db, ...sentinels).compile();
      const slots = query.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(SENTINEL) ? Number(p.slice(SENTINEL.length)) : null,
      );
      c = { query, slots, select: SelectQueryNode.is(query.query) };
      cache.set(db, c);
    }
    const { query, slots } = c;
    const parameters = slots.map((s, i) => (s === null ? query.parameters[i] : args[s]));
    const sqlite = c.select ? sqliteHandleOf(db) : undefined;
    if (sqlite !== undefined && !sqlite.inTransaction) return sqlite.prepare(query.sql).all(parameters) as R[];
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}
