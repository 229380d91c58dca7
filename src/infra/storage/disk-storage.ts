import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ulid } from '../../contracts/ids.js';
import type { PutResult, Storage, StoredObject } from '../../domain/ports/storage.js';
import type { UrlSigner } from './signer.js';

export class ObjectTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`object exceeds ${limitBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/**
 * Local-disk storage. Writes go to a temp name in the same directory and are renamed into place,
 * so a reader never sees a half-written object and a crash leaves only `.partial-*` files, which
 * are removed on failure paths.
 */
export class DiskStorage implements Storage {
  private readonly root: string;

  constructor(
    root: string,
    private readonly publicUrl: string,
    private readonly signer: UrlSigner,
  ) {
    this.root = resolve(root);
  }

  /** Absolute path of a key; refuses keys that would escape the root. */
  pathOf(key: string): string {
    if (key.length === 0 || key.includes('\0') || key.startsWith('/')) throw new Error(`invalid storage key ${key}`);
    const p = resolve(this.root, key);
    if (!p.startsWith(this.root + sep)) throw new Error(`invalid storage key ${key}`);
    return p;
  }

  async putStream(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<PutResult> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = join(dirname(target), `.partial-${ulid()}`);
    const hash = createHash('sha256');
    let size = 0;
    const max = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (size > max) return cb(new ObjectTooLargeError(max));
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(body, meter, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    return { size, sha256: hash.digest('hex') };
  }

  async putFile(key: string, localFile: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = join(dirname(target), `.partial-${ulid()}`);
    try {
      await copyFile(localFile, tmp);
      await rename(tmp, target);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  async getFile(key: string, localFile: string): Promise<void> {
    await mkdir(dirname(localFile), { recursive: true });
    await copyFile(this.pathOf(key), localFile);
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size } : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix.replace(/\/+$/, '')), { recursive: true, force: true });
  }

  async signedGetUrl(key: string, ttlSeconds: number, opts: { downloadName?: string } = {}): Promise<string> {
    const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
    const sig = this.signer.sign('GET', key, exp);
    const name = opts.downloadName ? `&name=${encodeURIComponent(opts.downloadName)}` : '';
    return `${this.publicUrl}/files/${encodeKey(key)}?expires=${exp}&sig=${sig}${name}`;
  }

  async signedPutUrl(key: string, ttlSeconds: number, contentType: string): Promise<{ url: string; headers: Record<string, string> }> {
    const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
    const sig = this.signer.sign('PUT', key, exp);
    return { url: `${this.publicUrl}/files/${encodeKey(key)}?expires=${exp}&sig=${sig}`, headers: { 'Content-Type': contentType } };
  }
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
