import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat as statFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../../config/config.js';
import { ObjectTooLargeError } from './disk-storage.js';
import type { PutResult, SignedPutOptions, Storage, StoredObject } from '../../domain/ports/storage.js';

/**
 * Objects in any S3-compatible store (AWS S3, MinIO, R2, Ceph, s3rver) through `@aws-sdk/client-s3`.
 * Reads handed to clients are presigned GETs and draft uploads presigned PUTs, so video bytes never
 * pass through an API process; workers stream objects to and from their per-job scratch dirs.
 * Objects of `partBytes` or more go up as multipart uploads (one part in memory at a time), and an
 * upload that fails is aborted so no invisible parts are left billed in the bucket.
 */
export class S3Storage implements Storage {
  readonly direct = true;
  private readonly client: S3Client;
  /** Presigns with the endpoint clients reach (it may differ from the one the API uses). */
  private readonly signer: S3Client;

  constructor(private readonly cfg: S3Config) {
    const make = (endpoint: string | null) =>
      new S3Client({
        region: cfg.region,
        endpoint: endpoint ?? undefined,
        forcePathStyle: cfg.forcePathStyle,
        credentials:
          cfg.accessKeyId && cfg.secretAccessKey ? { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey } : undefined,
        // Checksums only where S3 requires them: the default CRC32 trailers are not understood by
        // every S3-compatible server, and a presigned PUT must carry only what the client sends.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
      });
    this.client = make(cfg.endpoint);
    this.signer = cfg.publicEndpoint ? make(cfg.publicEndpoint) : this.client;
  }

  private k(key: string): string {
    if (key.length === 0 || key.includes('\0') || key.startsWith('/') || key.split('/').includes('..'))
      throw new Error(`invalid storage key ${key}`);
    return this.cfg.prefix + key;
  }

  /** Creates the bucket when configured to and it is missing (development servers, tests). */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.cfg.bucket }));
    } catch (e) {
      if (!this.cfg.createBucket || !isNotFound(e)) throw e;
      await this.client.send(new CreateBucketCommand({ Bucket: this.cfg.bucket }));
    }
  }

  /** Whether the bucket answers (readiness). */
  async ping(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.cfg.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  async putStream(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<PutResult> {
    const max = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    const hash = createHash('sha256');
    let size = 0;
    const counted = async function* (src: Readable) {
      for await (const chunk of src) {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        size += b.length;
        if (size > max) throw new ObjectTooLargeError(max);
        hash.update(b);
        yield b;
      }
    };
    await this.upload(key, partsOf(counted(body), this.cfg.partBytes));
    return { size, sha256: hash.digest('hex') };
  }

  async putFile(key: string, localFile: string): Promise<void> {
    const { size } = await statFile(localFile);
    if (size < this.cfg.partBytes) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.cfg.bucket, Key: this.k(key), Body: createReadStream(localFile), ContentLength: size }),
      );
      return;
    }
    await this.upload(key, partsOf(createReadStream(localFile, { highWaterMark: 1024 * 1024 }), this.cfg.partBytes));
  }

  /**
   * Sends parts as they come: a single PUT when everything fits in the first part, else a multipart
   * upload (aborted on any failure, so nothing half-written stays behind).
   */
  private async upload(key: string, parts: AsyncGenerator<Buffer>): Promise<void> {
    const Bucket = this.cfg.bucket;
    const Key = this.k(key);
    const first = await parts.next();
    const firstBuf = first.done ? Buffer.alloc(0) : first.value;
    const second = first.done ? ({ done: true, value: undefined } as IteratorResult<Buffer>) : await parts.next();
    if (second.done) {
      await this.client.send(new PutObjectCommand({ Bucket, Key, Body: firstBuf, ContentLength: firstBuf.length }));
      return;
    }
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const done: CompletedPart[] = [];
    try {
      const send = async (buf: Buffer) => {
        const PartNumber = done.length + 1;
        const r = await this.client.send(
          new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: buf, ContentLength: buf.length }),
        );
        done.push({ PartNumber, ETag: r.ETag });
      };
      await send(firstBuf);
      await send(second.value);
      for await (const buf of parts) await send(buf);
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }));
    } catch (e) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
      throw e;
    }
  }

  async getFile(key: string, localFile: string): Promise<void> {
    await mkdir(dirname(localFile), { recursive: true });
    const r = await this.client.send(new GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.k(key) }));
    try {
      await pipeline(r.Body as Readable, createWriteStream(localFile));
    } catch (e) {
      await rm(localFile, { force: true });
      throw e;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    const out = new PassThrough();
    this.client
      .send(
        new GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.k(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      )
      .then((r) => pipeline(r.Body as Readable, out))
      .catch((e: unknown) => out.destroy(e as Error));
    return out;
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.cfg.bucket, Key: this.k(key) }));
      return { size: Number(r.ContentLength ?? 0) };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: this.k(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const Prefix = this.k(prefix.replace(/\/+$/, '')) + '/';
    for (const keys of await this.listRaw(Prefix)) {
      if (keys.length === 0) continue;
      try {
        await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.cfg.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
        );
      } catch {
        // Stores without multi-object delete: one by one.
        for (const Key of keys) await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key }));
      }
    }
  }

  /** Every key under `prefix` (relative to the configured prefix), for audits and tests. */
  async list(prefix = ''): Promise<string[]> {
    const out: string[] = [];
    for (const page of await this.listRaw(this.cfg.prefix + prefix)) out.push(...page.map((k) => k.slice(this.cfg.prefix.length)));
    return out;
  }

  private async listRaw(Prefix: string): Promise<string[][]> {
    const pages: string[][] = [];
    let ContinuationToken: string | undefined;
    do {
      const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.cfg.bucket, Prefix, ContinuationToken, MaxKeys: 1000 }));
      pages.push((r.Contents ?? []).map((c) => c.Key!).filter(Boolean));
      ContinuationToken = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return pages;
  }

  async signedGetUrl(key: string, ttlSeconds: number, opts: { downloadName?: string } = {}): Promise<string> {
    const name = opts.downloadName?.replace(/[^A-Za-z0-9._-]/g, '_');
    return getSignedUrl(
      this.signer,
      new GetObjectCommand({
        Bucket: this.cfg.bucket,
        Key: this.k(key),
        ResponseContentDisposition: name ? `attachment; filename="${name}"` : undefined,
      }),
      { expiresIn: ttlSeconds },
    );
  }

  /**
   * A presigned PUT whose signature covers Content-Type, Content-Length and, when declared, the
   * sha256 checksum: the store refuses a body of another size or hash (AWS checks
   * x-amz-checksum-sha256 itself). The API verifies the object again before using it, for stores
   * that do not check checksums.
   */
  async signedPutUrl(
    key: string,
    ttlSeconds: number,
    contentType: string,
    opts: SignedPutOptions = {},
  ): Promise<{ url: string; headers: Record<string, string> }> {
    const checksum = opts.sha256 ? Buffer.from(opts.sha256, 'hex').toString('base64') : undefined;
    const cmd = new PutObjectCommand({
      Bucket: this.cfg.bucket,
      Key: this.k(key),
      ContentType: contentType,
      ContentLength: opts.sizeBytes,
      ChecksumSHA256: checksum,
    });
    const headers: Record<string, string> = { 'Content-Type': contentType };
    if (opts.sizeBytes !== undefined) headers['Content-Length'] = String(opts.sizeBytes);
    if (checksum) headers['x-amz-checksum-sha256'] = checksum;
    const signableHeaders = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
    const url = await getSignedUrl(this.signer, cmd, { expiresIn: ttlSeconds, signableHeaders, unhoistableHeaders: signableHeaders });
    return { url, headers };
  }

  close(): void {
    this.client.destroy();
    if (this.signer !== this.client) this.signer.destroy();
  }
}

function isNotFound(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === 'NotFound' || err?.name === 'NoSuchKey' || err?.name === 'NoSuchBucket' || err?.$metadata?.httpStatusCode === 404;
}

/** Regroups a byte stream into buffers of exactly `size` bytes (the last one shorter). */
async function* partsOf(src: AsyncIterable<Buffer | Uint8Array | string>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let len = 0;
  for await (const c of src) {
    let b = Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array);
    while (len + b.length >= size) {
      const take = size - len;
      pending.push(b.subarray(0, take));
      yield Buffer.concat(pending);
      pending = [];
      len = 0;
      b = b.subarray(take);
    }
    if (b.length > 0) {
      pending.push(b);
      len += b.length;
    }
  }
  if (len > 0 || pending.length > 0) yield Buffer.concat(pending);
}
