import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRequire } from 'node:module';
import { loadConfig, type Config } from '../../src/config/config.js';
import { CLUSTER_DEFAULTS, roleEnv, sharedEnv } from '../../src/main/cluster.js';

// js-yaml (a dev dependency) ships no types; one function of it is used.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

/**
 * deploy/compose.yaml and `npm run cluster` (src/main/cluster.ts) describe the same topology:
 * PostgreSQL + Redis + an S3 store, the same number of API processes and workers, each role
 * configured by the same variables (every one a known setting), the same adapters chosen, and no
 * disk shared between processes. The compose file cannot be run here (no Docker); this keeps the
 * two from drifting apart.
 */
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { replicas?: number };
}

const compose = yaml.load(readFileSync(resolve(import.meta.dirname, '../../deploy/compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
};
const services = compose.services;
const ours = Object.entries(services).filter(([, s]) => s.build !== undefined);
const apis = ours.filter(([, s]) => !(s.command ?? []).join(' ').includes('worker'));
const workers = ours.filter(([, s]) => (s.command ?? []).join(' ').includes('worker'));

/** The facts of a process's configuration that make up the topology. */
function shape(c: Config) {
  return {
    database: c.databaseUrl.split(':')[0],
    queue: c.queue.driver,
    pubsub: c.pubsub.driver,
    rateLimits: c.rateLimitStore.driver,
    storage: c.storage.driver,
    workersInProcess: c.workers.enabled,
    workerHttp: c.workers.httpPort !== null,
    keyRevocationsPushed: !c.apiKeyCache.confirmEachUse,
  };
}

const clusterShared = sharedEnv({
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/x',
  redisUrl: 'redis://127.0.0.1:6379',
  s3Env: {
    MARIONETTE_STORAGE: 's3',
    MARIONETTE_S3_ENDPOINT: 'http://127.0.0.1:9000',
    MARIONETTE_S3_BUCKET: 'marionette',
    MARIONETTE_S3_ACCESS_KEY_ID: 'k',
    MARIONETTE_S3_SECRET_ACCESS_KEY: 's',
    MARIONETTE_S3_FORCE_PATH_STYLE: 'true',
  },
});

describe('deploy/compose.yaml is the topology of npm run cluster', () => {
  it('PostgreSQL, Redis and an S3 store (MinIO), and as many API processes and workers as the cluster starts', () => {
    for (const name of ['postgres', 'redis', 'minio']) assert.ok(services[name]?.image, `service ${name}`);
    assert.equal(apis.length, CLUSTER_DEFAULTS.apis, `API services: ${apis.map(([n]) => n).join(', ')}`);
    assert.equal(workers.length, 1, 'one worker service, scaled by replicas');
    assert.equal(workers[0][1].deploy?.replicas, CLUSTER_DEFAULTS.workers);
    assert.deepEqual(workers[0][1].command, ['npm', 'run', 'worker']);
  });

  it('each role is configured by known settings only and chooses the same adapters as the cluster process of that role', () => {
    for (const [name, s] of ours) {
      const env = Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)]));
      const role = workers.some(([n]) => n === name) ? 'worker' : 'api';
      // loadConfig refuses any MARIONETTE_ name that is not a setting.
      const fromCompose = shape(loadConfig(env));
      const fromCluster = shape(loadConfig({ ...clusterShared, MARIONETTE_DATA_DIR: '/tmp/x', ...roleEnv(role, 18000) }));
      assert.deepEqual(fromCompose, fromCluster, `${name} (${role})`);
    }
  });

  it('processes share no disk: no volume on an API or worker service (each has its own scratch space)', () => {
    for (const [name, s] of ours) assert.equal(s.volumes, undefined, name);
  });
});
