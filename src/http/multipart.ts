import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '../contracts/errors.js';
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
}

export interface ReceivedFile {
  path: string;
  size: number;
  filename: string;
  mimetype: string;
}

export interface ReceivedForm {
  fields: Record<string, string>;
  files: Record<string, ReceivedFile>;
  dir: string;
  cleanup(): Promise<void>;
}

class FieldTooLarge extends Error {
  constructor(readonly field: string, readonly limit: number) {
    super(`${field} exceeds ${limit} bytes`);
  }
}

export async function readMultipart(request: FastifyRequest, spec: FormSpec, tmpRoot: string): Promise<ReceivedForm> {
  if (!request.isMultipart()) throw invalidRequest('This endpoint expects multipart/form-data.');
  const dir = join(tmpRoot, 'uploads', ulid());
  await mkdir(dir, { recursive: true });
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const fields: Record<string, string> = {};
  const files: Record<string, ReceivedFile> = {};
  try {
    for await (const part of request.parts()) {
      const name = part.fieldname;
      if (name in fields || name in files) throw invalidRequest(`The field ${name} was sent more than once.`, { field: name });
      if (part.type === 'file') {
        const limit = spec.files[name]?.maxBytes;
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
        await pipeline(part.file, meter, createWriteStream(path));
        if (part.file.truncated) throw new FieldTooLarge(name, limit);
        files[name] = { path, size, filename: part.filename, mimetype: part.mimetype };
      } else {
        if (!spec.fields.includes(name)) {
          throw invalidRequest(spec.files[name] ? `The field ${name} must be a file.` : `Unknown field ${name}.`, { field: name });
        }
        if (part.valueTruncated) throw invalidRequest(`The field ${name} is too long.`, { field: name });
        fields[name] = String(part.value);
      }
    }
  } catch (e) {
    await cleanup();
    if (e instanceof FieldTooLarge) throw invalidRequest(`The file ${e.field} exceeds the ${e.limit} byte limit.`, { field: e.field, limit_bytes: e.limit });
    throw e;
  }
  return { fields, files, dir, cleanup };
}
