import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError, invalidRequest, isAppError } from '../contracts/errors.js';
import { ulid } from '../contracts/ids.js';

/**
 * Streams a multipart form to a private temp directory. Files never sit in memory; each file field
 * has its own byte limit and the upload is cut off as soon as it is exceeded (400 with
 * `details.limit_bytes`). On any failure, including a client that disconnects mid-upload, the temp
 * directory is removed before the error propagates; on success the caller owns `cleanup()`.
 */
export interface FormSpec {
  files: Record<string, { maxBytes: number }>;
  fields: readonly string[];
  /** Text fields that may be repeated (an ordered list, e.g. `target_tags`); collected in `lists`. */
  repeatable?: readonly string[];
}

export interface ReceivedFile {
  path: string;
  size: number;
  filename: string;
  mimetype: string;
}

export interface ReceivedForm {
  fields: Record<string, string>;
  /** Values of repeatable fields, in the order sent (absent when never sent). */
  lists: Record<string, string[]>;
  files: Record<string, ReceivedFile>;
  dir: string;
  cleanup(): Promise<void>;
}

class FieldTooLarge extends Error {
  constructor(readonly field: string, readonly limit: number) {
    super(`${field} exceeds ${limit} bytes`);
  }
}

class ClientGone extends Error {
  constructor() {
    super('the client disconnected during the upload');
  }
}

/** Room for the text fields, part headers and boundaries of a form, on top of its files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/**
 * A refusal sent while the client may still be sending: `Connection: close` makes the server drop
 * the rest of the body instead of reading (and discarding) possibly hundreds of megabytes.
 */
function tooLarge(message: string, details: Record<string, unknown>): AppError {
  return new AppError('INVALID_REQUEST', message, { details, headers: { Connection: 'close' } });
}

export async function readMultipart(request: FastifyRequest, spec: FormSpec, tmpRoot: string): Promise<ReceivedForm> {
  if (!request.isMultipart()) throw invalidRequest('This endpoint expects multipart/form-data.');
  // A declared length that cannot fit is refused before a byte is read or a directory made.
  const ceiling = Object.values(spec.files).reduce((sum, f) => sum + f.maxBytes, 0) + FORM_OVERHEAD_BYTES;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > ceiling) {
    throw tooLarge(`The form is ${declared} bytes; this endpoint accepts at most ${ceiling} bytes.`, { limit_bytes: ceiling, content_length: declared });
  }
  const dir = join(tmpRoot, 'uploads', ulid());
  await mkdir(dir, { recursive: true });
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const fields: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const files: Record<string, ReceivedFile> = {};
  // A client that goes away mid-file must not leave a pipeline waiting for bytes that never come:
  // the abort tears the current file stream down, so the catch below always runs and cleans up.
  const gone = new AbortController();
  const onClose = () => {
    if (!request.raw.complete) gone.abort(new ClientGone());
  };
  request.raw.once('close', onClose);
  if (request.raw.destroyed) onClose();
  try {
    for await (const part of request.parts()) {
      if (gone.signal.aborted) throw new ClientGone();
      const name = part.fieldname;
      // Own properties only: a field named `constructor` or `toString` is just an unknown field.
      if (part.type !== 'file' && spec.repeatable?.includes(name)) {
        if (part.valueTruncated) throw invalidRequest(`The field ${name} is too long.`, { field: name });
        (lists[name] ??= []).push(String(part.value));
        continue;
      }
      if (Object.hasOwn(fields, name) || Object.hasOwn(files, name)) throw invalidRequest(`The field ${name} was sent more than once.`, { field: name });
      if (part.type === 'file') {
        const limit = Object.hasOwn(spec.files, name) ? spec.files[name].maxBytes : undefined;
        if (limit === undefined) {
          part.file.resume();
          throw invalidRequest(spec.fields.includes(name) ? `The field ${name} must be a text value, not a file.` : `Unknown file field ${name}.`, { field: name });
        }
        const path = join(dir, `${name}.bin`);
        let size = 0;
        const meter = new Transform({
          transform(chunk: Buffer, _e, cb) {
            size += chunk.length;
            if (size > limit) return cb(new FieldTooLarge(name, limit));
            cb(null, chunk);
          },
        });
        await pipeline(part.file, meter, createWriteStream(path), { signal: gone.signal });
        if (part.file.truncated) throw new FieldTooLarge(name, limit);
        files[name] = { path, size, filename: part.filename, mimetype: part.mimetype };
      } else {
        if (!spec.fields.includes(name)) {
          throw invalidRequest(Object.hasOwn(spec.files, name) ? `The field ${name} must be a file.` : `Unknown field ${name}.`, { field: name });
        }
        if (part.valueTruncated) throw invalidRequest(`The field ${name} is too long.`, { field: name });
        fields[name] = String(part.value);
      }
    }
    if (gone.signal.aborted) throw new ClientGone();
  } catch (e) {
    await cleanup();
    if (e instanceof FieldTooLarge) throw tooLarge(`The file ${e.field} exceeds the ${e.limit} byte limit.`, { field: e.field, limit_bytes: e.limit });
    if (gone.signal.aborted) throw invalidRequest('The client disconnected during the upload.', { reason: 'client_disconnected' });
    // Any other refusal (unknown or misplaced field...) may come while a large file is still on its
    // way: close rather than read and discard the rest of it.
    if (isAppError(e) && !request.raw.complete) e.headers.Connection = 'close';
    throw e;
  } finally {
    request.raw.off('close', onClose);
  }
  return { fields, lists, files, dir, cleanup };
}

/**
 * Reads a media form. A media file over its byte limit is a media-limit refusal (422
 * UNSUPPORTED_MEDIA, DECISIONS "Media limits"), not a malformed request, whether the reader cut the
 * file off while streaming or refused the whole form up front from its declared Content-Length
 * (the text fields are small, so only a file can make a form that large). The reader has already
 * removed its temp files either way.
 */
export async function readMediaForm(request: FastifyRequest, spec: FormSpec, tmpDir: string): Promise<ReceivedForm> {
  try {
    return await readMultipart(request, spec, tmpDir);
  } catch (e) {
    if (!isAppError(e) || typeof e.details.limit_bytes !== 'number') throw e;
    const field = e.details.field;
    const opts = { headers: e.headers, cause: e };
    if (typeof field === 'string' && field in spec.files) {
      throw new AppError('UNSUPPORTED_MEDIA', `The file ${field} is larger than the ${e.details.limit_bytes} byte limit.`, { ...opts, details: { field, limit_bytes: e.details.limit_bytes } });
    }
    if (typeof e.details.content_length === 'number') {
      const limit = Math.max(...Object.values(spec.files).map((f) => f.maxBytes));
      throw new AppError('UNSUPPORTED_MEDIA', `The upload is ${e.details.content_length} bytes; a file may have at most ${limit} bytes.`, { ...opts, details: { limit_bytes: limit, content_length: e.details.content_length } });
    }
    throw e;
  }
}
