import type { Kysely } from 'kysely';

/**
 * One row per (account, Idempotency-Key) for every create (DECISIONS "Idempotency-Key is honoured on
 * every create"). The row holds only digests of the request (never its bytes), the resource it made
 * and the status code it was answered with. `state` is `pending` while the first request is being
 * handled (`locked_until` bounds how long a crashed process can hold it) and `done` once the resource
 * exists. The primary key makes concurrent first requests collide in the database, so the rule holds
 * across API processes on SQLite and PostgreSQL alike.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotent_requests')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('parts_json', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotent_requests_pk', ['account_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotent_requests_expiry').on('idempotent_requests').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotent_requests').ifExists().execute();
}
