import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError, invalidRequest, isAppError } from '../contracts/errors.js';
import { ulid } from '../contracts/ids.js';
import { fingerprintOf, sha256Hex, type Fingerprint, type FingerprintPart } from '../domain/idempotency/fingerprint.js';

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
  /**
   * Digests of the form for Idempotency-Key (src/http/idempotency.ts): each text field's SHA-256 and
   * each file part's SHA-256 (taken while it streamed to disk), in the order sent.
   */
  fingerprint: Fingerprint;
  dir: string;
  cleanup(): Promise<void>;
}

class FieldTooLarge extends Error {
  constructor(
    readonly field: string,
    readonly limit: number,
  ) {
    super(`${field} exceeds ${limit} bytes`);
  }
}

/** The body ended (every byte arrived) but the form never did: no closing delimiter. */
class FormUnfinished extends Error {
  constructor() {
    super('the multipart body ended before its closing delimiter');
  }
}

/** How long a finished body may leave the form parser without progress before it is called unfinished. */
const UNFINISHED_FORM_GRACE_MS = 250;
/** On-time ticks without progress, after the body's last byte, before the form counts as unterminated. */
const UNFINISHED_FORM_QUIET_TICKS = 4;

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
    throw tooLarge(`The form is ${declared} bytes; this endpoint accepts at most ${ceiling} bytes.`, {
      limit_bytes: ceiling,
      content_length: declared,
    });
  }
  const dir = join(tmpRoot, 'uploads', ulid());
  await mkdir(dir, { recursive: true });
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const fields: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const files: Record<string, ReceivedFile> = {};
  const parts: FingerprintPart[] = [];
  // A client that goes away mid-file must not leave a pipeline waiting for bytes that never come:
  // the abort tears the current file stream down, so the catch below always runs and cleans up.
  const gone = new AbortController();
  const onClose = () => {
    if (!request.raw.complete) gone.abort(new ClientGone());
  };
  request.raw.once('close', onClose);
  if (request.raw.destroyed) onClose();
  // A body that ends without the closing delimiter leaves the parser waiting for a part that will
  // never end. Once every byte has arrived, the form has a short grace to finish (the last chunks
  // are still being written to disk); without progress it is a malformed request (400).
  let moved = 0;
  let watchdog: NodeJS.Timeout | null = null;
  const onEnd = () => {
    let seen = -1;
    let quiet = 0;
    let last = performance.now();
    watchdog = setInterval(() => {
      const now = performance.now();
      const late = now - last - UNFINISHED_FORM_GRACE_MS;
      last = now;
      if (moved !== seen) {
        seen = moved;
        quiet = 0;
        return;
      }
      // A tick that comes late proves nothing: the event loop was busy (engine work in the same
      // process, a start-up), and the pending writes run only after the timers. Only ticks on time
      // count, and several of them in a row.
      if (late > UNFINISHED_FORM_GRACE_MS / 2) return;
      if (++quiet >= UNFINISHED_FORM_QUIET_TICKS) gone.abort(new FormUnfinished());
    }, UNFINISHED_FORM_GRACE_MS);
    watchdog.unref();
  };
  // The first bytes tell a well-formed empty form (`--boundary--`) from a body with no part at all.
  let head = '';
  const onData = (chunk: Buffer) => {
    if (head.length < 512) head += chunk.subarray(0, 512 - head.length).toString('latin1');
  };
  request.raw.on('data', onData);
  if (request.raw.readableEnded) onEnd();
  else request.raw.once('end', onEnd);
  try {
    for await (const part of abortable(request.parts(), gone.signal)) {
      if (gone.signal.aborted) throw gone.signal.reason;
      moved++;
      const name = part.fieldname;
      // Own properties only: a field named `constructor` or `toString` is just an unknown field.
      if (part.type !== 'file' && spec.repeatable?.includes(name)) {
        if (part.valueTruncated) throw invalidRequest(`The field ${name} is too long.`, { field: name });
        (lists[name] ??= []).push(String(part.value));
        parts.push([name, sha256Hex(String(part.value))]);
        continue;
      }
      if (Object.hasOwn(fields, name) || Object.hasOwn(files, name))
        throw invalidRequest(`The field ${name} was sent more than once.`, { field: name });
      if (part.type === 'file') {
        const limit = Object.hasOwn(spec.files, name) ? spec.files[name].maxBytes : undefined;
        if (limit === undefined) {
          part.file.resume();
          throw invalidRequest(
            spec.fields.includes(name) ? `The field ${name} must be a text value, not a file.` : `Unknown file field ${name}.`,
            { field: name },
          );
        }
        const path = join(dir, `${name}.bin`);
        let size = 0;
        const hash = createHash('sha256');
        const meter = new Transform({
          transform(chunk: Buffer, _e, cb) {
            size += chunk.length;
            moved += chunk.length;
            if (size > limit) return cb(new FieldTooLarge(name, limit));
            hash.update(chunk);
            cb(null, chunk);
          },
        });
        await pipeline(part.file, meter, createWriteStream(path), { signal: gone.signal });
        if (part.file.truncated) throw new FieldTooLarge(name, limit);
        files[name] = { path, size, filename: part.filename, mimetype: part.mimetype };
        parts.push([name, hash.digest('hex')]);
      } else {
        if (!spec.fields.includes(name)) {
          throw invalidRequest(Object.hasOwn(spec.files, name) ? `The field ${name} must be a file.` : `Unknown field ${name}.`, {
            field: name,
          });
        }
        if (part.valueTruncated) throw invalidRequest(`The field ${name} is too long.`, { field: name });
        fields[name] = String(part.value);
        parts.push([name, sha256Hex(fields[name])]);
      }
    }
    if (gone.signal.aborted) throw gone.signal.reason;
    const boundary = /boundary="?([^";]+)"?/i.exec(String(request.headers['content-type'] ?? ''))?.[1];
    const emptyForm = boundary !== undefined && head.trim() === `--${boundary}--`;
    if (parts.length === 0 && !emptyForm) {
      // "No inputs" is only ever a request without a body: a form with no well-formed part (no
      // boundary, wrong boundary, a mangled or compressed body) is refused, never the defaults.
      throw invalidRequest(
        'The multipart body contains no well-formed part: check the boundary named in Content-Type and that the body is not compressed.',
        {
          reason: 'no_parts',
        },
      );
    }
  } catch (e) {
    await cleanup();
    if (gone.signal.reason instanceof FormUnfinished) {
      throw new AppError('INVALID_REQUEST', 'The multipart body ended before its closing delimiter; the form is incomplete.', {
        details: { reason: 'unterminated_form' },
        headers: { Connection: 'close' },
      });
    }
    if (e instanceof FieldTooLarge)
      throw tooLarge(`The file ${e.field} exceeds the ${e.limit} byte limit.`, { field: e.field, limit_bytes: e.limit });
    if (gone.signal.aborted) throw invalidRequest('The client disconnected during the upload.', { reason: 'client_disconnected' });
    // Any other refusal (unknown or misplaced field...) may come while a large file is still on its
    // way: close rather than read and discard the rest of it.
    if (isAppError(e) && !request.raw.complete) e.headers.Connection = 'close';
    throw e;
  } finally {
    request.raw.off('close', onClose);
    request.raw.off('end', onEnd);
    request.raw.off('data', onData);
    if (watchdog) clearInterval(watchdog);
  }
  return { fields, lists, files, fingerprint: fingerprintOf(parts), dir, cleanup };
}

/** Ends an async iteration as soon as the signal aborts, even while the source waits for a next item. */
async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason);
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([it.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    void it.return?.()?.catch?.(() => {});
  }
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
      throw new AppError('UNSUPPORTED_MEDIA', `The file ${field} is larger than the ${e.details.limit_bytes} byte limit.`, {
        ...opts,
        details: { field, limit_bytes: e.details.limit_bytes },
      });
    }
    if (typeof e.details.content_length === 'number') {
      const limit = Math.max(...Object.values(spec.files).map((f) => f.maxBytes));
      throw new AppError('UNSUPPORTED_MEDIA', `The upload is ${e.details.content_length} bytes; a file may have at most ${limit} bytes.`, {
        ...opts,
        details: { limit_bytes: limit, content_length: e.details.content_length },
      });
    }
    throw e;
  }
}
