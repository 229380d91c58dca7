import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.dataDir, resolve('./data'));
    assert.equal(c.databaseUrl, `sqlite:${resolve('./data/marionette.sqlite')}`);
    assert.equal(c.outputUrlTtlSeconds, 3600);
    assert.ok(Object.isFrozen(c));
  });

  it('reads MARIONETTE_ variables', () => {
    const c = loadConfig({
      MARIONETTE_PORT: '9090',
      MARIONETTE_DATA_DIR: '/tmp/x',
      MARIONETTE_DATABASE_URL: 'postgres://u@h/db',
      MARIONETTE_WORKERS: 'false',
    });
    assert.equal(c.port, 9090);
    assert.equal(c.dataDir, '/tmp/x');
    assert.equal(c.databaseUrl, 'postgres://u@h/db');
    assert.equal(c.workers.enabled, false);
    assert.equal(c.publicUrl, 'http://localhost:9090');
  });

  it('collects every problem into one clear error', () => {
    assert.throws(
      () => loadConfig({ MARIONETTE_PORT: 'abc', MARIONETTE_DATABASE_URL: 'mysql://x', MARIONETTE_WORKERS: 'maybe' }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.problems.length, 3);
        assert.match(e.message, /MARIONETTE_PORT must be an integer/);
        assert.match(e.message, /MARIONETTE_DATABASE_URL/);
        assert.match(e.message, /MARIONETTE_WORKERS must be true or false/);
        return true;
      },
    );
  });

  it('refuses a MARIONETTE_ name it does not know (a typo would silently keep the default)', () => {
    assert.throws(
      () => loadConfig({ MARIONETTE_PROT: '9090', MARIONETTE_PORT: '9091' }),
      (e: unknown) => e instanceof ConfigError && e.problems.length === 1 && /MARIONETTE_PROT is not a setting/.test(e.message),
    );
    assert.equal(
      loadConfig({ MARIONETTE_TEST_PG_URL: 'postgres://x', MARIONETTE_PORT: '9091' }).port,
      9091,
      "the test suite's own variables are not settings",
    );
  });

  it('makes the server exit non-zero with the message on bad config', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/server.ts'], {
      env: { ...process.env, MARIONETTE_PORT: '99999', MARIONETTE_DATA_DIR: '/tmp/marionette-never-created' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /MARIONETTE_PORT must be an integer from 0 to 65535/);
  });
});
