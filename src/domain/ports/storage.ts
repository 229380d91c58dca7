import type { Readable } from 'node:stream';

/**
 * The blob storage port. Keys are relative, slash-separated paths (`characters/char_X/source`).
 * The disk adapter serves signed URLs through the API itself; an S3 adapter hands out presigned
 * URLs. Callers never see which one is in use.
 */
export interface StoredObject {
  size: number;
}

export interface PutResult {
  size: number;
  sha256: string;
}

/** What a presigned PUT must match; stores that can enforce it in the signature do. */
export interface SignedPutOptions {
  sizeBytes?: number;
  /** Hex sha256 of the bytes. */
  sha256?: string;
}

export interface Storage {
  /**
   * True when clients talk to the store directly (presigned URLs): a draft upload then never passes
   * through the API and is verified when the draft is used.
   */
  readonly direct?: boolean;
  /** Streams `body` into `key`; aborts and removes the partial object past `maxBytes`. */
  putStream(key: string, body: Readable, opts?: { maxBytes?: number }): Promise<PutResult>;
  /** Copies a local file into `key` (the local file is left in place). */
  putFile(key: string, localFile: string): Promise<void>;
  /** Downloads `key` to a local file (workers process local files). */
  getFile(key: string, localFile: string): Promise<void>;
  read(key: string, range?: { start: number; end: number }): Readable;
  stat(key: string): Promise<StoredObject | null>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  /** A URL that reads `key` without other credentials until `ttlSeconds` from now. */
  signedGetUrl(key: string, ttlSeconds: number, opts?: { downloadName?: string }): Promise<string>;
  /** A URL that accepts an HTTP PUT of the object's bytes until `ttlSeconds` from now. */
  signedPutUrl(
    key: string,
    ttlSeconds: number,
    contentType: string,
    opts?: SignedPutOptions,
  ): Promise<{ url: string; headers: Record<string, string> }>;
}
