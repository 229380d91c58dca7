import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
// s3rver ships no types; it is a dev dependency that speaks the S3 protocol on loopback.
// @ts-expect-error no declaration file
import S3rver from 's3rver';
import type { S3Config } from '../../src/config/config.js';

/**
 * A real S3-protocol server (s3rver) on a loopback port with its own directory, for tests and the
 * cluster script: the S3 adapter is exercised over HTTP with real signatures, never a mocked SDK.
 */
export interface ObjectStore {
  endpoint: string;
  bucket: string;
  dir: string;
  /** MARIONETTE_* variables that point a process at this store. */
  env: Record<string, string>;
  config: S3Config;
  close(): Promise<void>;
}

export async function startObjectStore(opts: { bucket?: string } = {}): Promise<ObjectStore> {
  const dir = await mkdtemp(join(tmpdir(), 'marionette-s3-'));
  const bucket = opts.bucket ?? `m-${randomBytes(4).toString('hex')}`;
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const addr = (await server.run()) as { address: string; port: number };
  const endpoint = `http://127.0.0.1:${addr.port}`;
  const env = {
    MARIONETTE_STORAGE: 's3',
    MARIONETTE_S3_ENDPOINT: endpoint,
    MARIONETTE_S3_BUCKET: bucket,
    MARIONETTE_S3_ACCESS_KEY_ID: 'S3RVER',
    MARIONETTE_S3_SECRET_ACCESS_KEY: 'S3RVER',
    MARIONETTE_S3_FORCE_PATH_STYLE: 'true',
  };
  const config: S3Config = {
    bucket,
    endpoint,
    publicEndpoint: null,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    prefix: '',
    partBytes: 5 * 1024 * 1024,
    createBucket: false,
  };
  return {
    endpoint,
    bucket,
    dir,
    env,
    config,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
