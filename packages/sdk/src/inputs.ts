/**
 * Media inputs: a local path (Node), an http(s) URL (the service fetches it), a Blob/File, bytes
 * (Buffer, Uint8Array, ArrayBuffer), or a stream (web ReadableStream or Node Readable). Everything
 * but a URL becomes a Blob, so a request can be re-sent on retry; paths are file-backed Blobs
 * (nothing is read into memory), streams are collected once.
 */
export type MediaSource = string | URL | Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
/** A source with an explicit file name and/or content type. */
export interface NamedMedia {
  data: MediaSource;
  filename?: string;
  contentType?: string;
}
export type MediaInput = MediaSource | NamedMedia;

export type ResolvedMedia =
  { kind: 'url'; url: string } | { kind: 'file'; blob: Blob; filename: string; contentType: string; size: number };

const EXT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

function isNamed(x: MediaInput): x is NamedMedia {
  return typeof x === 'object' && x !== null && 'data' in x && !(x instanceof Blob) && !ArrayBuffer.isView(x);
}

export function isUrlString(s: string): boolean {
  return /^https?:\/\//i.test(s);
}

/** The content type the bytes say they are (what the service checks), else the name's, else the declared one. */
export async function sniffType(blob: Blob, filename: string): Promise<string> {
  const b = new Uint8Array(await blob.slice(0, 16).arrayBuffer());
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(4, 8) === 'ftyp') return ascii(8, 12) === 'qt  ' ? 'video/quicktime' : 'video/mp4';
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'video/webm';
  const ext = filename.split('.').pop()?.toLowerCase() ?? '';
  return EXT_TYPES[ext] ?? (blob.type || 'application/octet-stream');
}

async function collect(stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Blob> {
  const parts: Uint8Array[] = [];
  const iterable: AsyncIterable<Uint8Array> =
    Symbol.asyncIterator in stream ? (stream as AsyncIterable<Uint8Array>) : readStream(stream as ReadableStream<Uint8Array>);
  for await (const chunk of iterable) parts.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
  return new Blob(parts as any[]);
}

async function* readStream(s: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = s.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export async function resolveMedia(input: MediaInput, fallbackName: string): Promise<ResolvedMedia> {
  const named = isNamed(input) ? input : { data: input };
  const data = named.data;
  if (data instanceof URL) return { kind: 'url', url: data.toString() };
  if (typeof data === 'string' && isUrlString(data)) return { kind: 'url', url: data };
  let blob: Blob;
  let filename = named.filename ?? fallbackName;
  if (typeof data === 'string') {
    const node = await import('./node.js');
    blob = await node.fileBlob(data);
    filename = named.filename ?? node.baseName(data);
  } else if (data instanceof Blob) {
    blob = data;
    if (!named.filename && typeof (data as File).name === 'string' && (data as File).name) filename = (data as File).name;
  } else if (data instanceof ArrayBuffer) {
    blob = new Blob([data]);
  } else if (ArrayBuffer.isView(data)) {
    blob = new Blob([new Uint8Array(data.buffer, data.byteOffset, data.byteLength) as any]);
  } else if (typeof data === 'object' && data !== null && ('getReader' in data || Symbol.asyncIterator in data)) {
    blob = await collect(data as ReadableStream<Uint8Array>);
  } else {
    throw new TypeError(`unsupported media input: ${Object.prototype.toString.call(data)}`);
  }
  const contentType = named.contentType ?? (await sniffType(blob, filename));
  return { kind: 'file', blob, filename, contentType, size: blob.size };
}
