/** Node-only helpers, loaded on demand so the SDK's core stays usable in browsers. */
import { openAsBlob } from 'node:fs';
import { stat, rename, rm, open } from 'node:fs/promises';
import { basename } from 'node:path';

export async function fileBlob(path: string): Promise<Blob> {
  const st = await stat(path).catch((e) => {
    throw new TypeError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  });
  if (!st.isFile()) throw new TypeError(`${path} is not a file`);
  return openAsBlob(path);
}

export function baseName(path: string): string {
  return basename(path);
}

/**
 * Streams a response body to `path` through a temp file renamed into place, so an interrupted
 * download never leaves a partial file under the final name.
 */
export async function saveBody(body: ReadableStream<Uint8Array>, path: string, onChunk?: (bytes: number) => void): Promise<number> {
  const tmp = `${path}.part-${process.pid}-${Date.now()}`;
  const fh = await open(tmp, 'w');
  let total = 0;
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await fh.write(value);
      total += value.byteLength;
      onChunk?.(value.byteLength);
    }
    await fh.close();
    await rename(tmp, path);
    return total;
  } catch (e) {
    await fh.close().catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
}
