import { sql, type Kysely } from 'kysely';

/**
 * The initial schema. Written with Kysely's schema builder so one migration serves SQLite and
 * PostgreSQL; `bigint` columns hold milli-credits and byte sizes (the pg driver is told to parse
 * int8 as a JS number, safe below 2^53).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_character_id', 'text')
    .addColumn('default_motion_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();

  await db.schema
    .createTable('balances')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('available_milli', 'bigint', (c) => c.notNull().check(sql`available_milli >= 0`))
    .addColumn('reserved_milli', 'bigint', (c) => c.notNull().check(sql`reserved_milli >= 0`))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_milli', 'bigint', (c) => c.notNull())
    .addColumn('reserved_delta_milli', 'bigint', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ledger_resource_kind_uq', ['resource_id', 'kind'])
    .execute();
  await db.schema.createIndex('ledger_account_idx').on('ledger').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('characters')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer')
    .addColumn('enhance', 'integer', (c) => c.notNull())
    .addColumn('joint_set', 'text', (c) => c.notNull())
    .addColumn('model_precision', 'real')
    .addColumn('filter_low_quality', 'integer', (c) => c.notNull())
    .addColumn('render_thumbnail', 'integer', (c) => c.notNull())
    .addColumn('task_id', 'text')
    .addColumn('vsplat_status', 'text')
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text')
    .addColumn('source_url', 'text')
    .addColumn('assets_key', 'text')
    .addColumn('failure_json', 'text')
    .addColumn('charge_milli', 'bigint', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('service_source', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('characters_account_idx').on('characters').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('motions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer')
    .addColumn('enable_smoothing', 'integer', (c) => c.notNull())
    .addColumn('target_fps', 'integer')
    .addColumn('joint_set', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text')
    .addColumn('glb_status', 'text')
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text')
    .addColumn('source_url', 'text')
    .addColumn('template_id', 'text')
    .addColumn('assets_key', 'text')
    .addColumn('duration_ms', 'bigint')
    .addColumn('failure_json', 'text')
    .addColumn('request_id', 'text')
    .addColumn('service_source', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('motions_account_idx').on('motions').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer')
    .addColumn('stage', 'text')
    .addColumn('background_mode', 'text', (c) => c.notNull())
    .addColumn('bg_color', 'text')
    .addColumn('character_source', 'text', (c) => c.notNull())
    .addColumn('motion_source', 'text', (c) => c.notNull())
    .addColumn('video_key', 'text')
    .addColumn('alpha_key', 'text')
    .addColumn('estimated_ms', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'bigint')
    .addColumn('reserved_milli', 'bigint', (c) => c.notNull())
    .addColumn('error_json', 'text')
    .addColumn('request_id', 'text')
    .addColumn('service_source', 'text')
    .addColumn('draft_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('videos_account_idx').on('videos').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('videos_account_status_idx').on('videos').columns(['account_id', 'status', 'id']).execute();

  await db.schema
    .createTable('render_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('render_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('render_events_seq_uq', ['render_id', 'sequence'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('payload_json', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('jobs_type_resource_uq', ['type', 'resource_id'])
    .execute();
  await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['status', 'run_at']).execute();

  await db.schema
    .createTable('drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('spec_json', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('render_id', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('draft_id', 'text', (c) => c.notNull().references('drafts.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text')
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text')
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('render_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'idempotency_keys',
    'uploads',
    'drafts',
    'jobs',
    'render_events',
    'videos',
    'motions',
    'characters',
    'ledger',
    'balances',
    'api_keys',
    'accounts',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
