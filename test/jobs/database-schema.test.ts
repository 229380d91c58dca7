import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { wire } from '../../src/main/wire.js';
import { dbTargets } from '../helpers/harness.js';

/** MARIONETTE_DATABASE_SCHEMA: one PostgreSQL database shared by several installations. */
describe('MARIONETTE_DATABASE_SCHEMA', () => {
  it('is validated: a SQL identifier, PostgreSQL only', () => {
    const pgUrl = 'postgres://u@h/db';
    assert.equal(loadConfig({ MARIONETTE_DATABASE_URL: pgUrl }).databaseSchema, null);
    assert.equal(loadConfig({ MARIONETTE_DATABASE_URL: pgUrl, MARIONETTE_DATABASE_SCHEMA: 'tenant_a' }).databaseSchema, 'tenant_a');
    assert.throws(() => loadConfig({ MARIONETTE_DATABASE_URL: pgUrl, MARIONETTE_DATABASE_SCHEMA: 'a;drop table x' }), ConfigError);
    assert.throws(
      () => loadConfig({ MARIONETTE_DATABASE_URL: 'sqlite:/tmp/x.sqlite', MARIONETTE_DATABASE_SCHEMA: 'tenant_a' }),
      ConfigError,
    );
  });

  it('wire() creates the schema and migrates into it, Kysely tables included, beside other schemas', async (t) => {
    const target = (await dbTargets()).find((x) => x.kind === 'postgres')!;
    if (target.skip) return t.skip(String(target.skip));
    const url = process.env.MARIONETTE_TEST_PG_URL!;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const dataDir = await mkdtemp(join(tmpdir(), 'marionette-schema-'));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      for (let i = 0; i < 2; i++) {
        // Twice: the second start finds its own migration tables, not another schema's.
        const wired = await wire(
          loadConfig({ MARIONETTE_DATABASE_URL: url, MARIONETTE_DATABASE_SCHEMA: schema, MARIONETTE_DATA_DIR: dataDir }),
        );
        await wired.deps.db.selectFrom('videos').select('id').limit(1).execute();
        await wired.close();
      }
      const r = await c.query(
        `select table_name from information_schema.tables where table_schema = $1 and table_name in ('kysely_migration', 'kysely_migration_lock', 'videos', 'jobs')`,
        [schema],
      );
      assert.equal(r.rowCount, 4);
    } finally {
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
