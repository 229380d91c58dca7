// The console's one connection to the service: the SDK (packages/sdk, served bundled as /console/sdk.js)
// with the key the person typed. The key lives in this tab's sessionStorage only.
import { Marionette, MarionetteApiError, isTerminal } from '../sdk.js';

const KEY = 'marionette.console.apiKey';
let client = null;

export { isTerminal };

export function storedKey() {
  return sessionStorage.getItem(KEY);
}

function make(apiKey) {
  // Fewer retries than the SDK's default: a person is waiting and sees the error instead.
  return new Marionette({ apiKey, baseUrl: location.origin, maxRetries: 2, maxRetryDelayMs: 5000, sourceLabel: 'marionette-console' });
}

/** Checks the key with GET /v1/credits; keeps it only when the service accepts it. */
export async function signIn(apiKey) {
  const c = make(apiKey);
  const credits = await c.credits.get();
  sessionStorage.setItem(KEY, apiKey);
  client = c;
  return credits;
}

export function signOut() {
  sessionStorage.removeItem(KEY);
  client = null;
}

export function api() {
  if (!client) {
    const k = storedKey();
    if (!k) throw new Error('not signed in');
    client = make(k);
  }
  return client;
}

/** What to tell a person about a failed call: the service's message, its code and request ID. */
export function describe(e) {
  // The SDK's message already reads "CODE: what happened (request req_...)".
  if (e instanceof MarionetteApiError) return e.message;
  if (e instanceof TypeError) return `The service could not be reached: ${e.message}`;
  return String(e?.message ?? e);
}

export function isAuthError(e) {
  return e?.code === 'INVALID_CREDENTIAL' || e?.code === 'UNAUTHENTICATED';
}

/** Fetches a picture that needs the key (thumbnails) and returns a blob: URL for an <img>. */
export async function authorizedImage(path) {
  const c = api();
  const res = await c.transport.fetch(new Request(c.transport.url(path)));
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  return URL.createObjectURL(await res.blob());
}

/** The duration of a media file or URL in seconds, as the browser reads it; null when it cannot. */
export function mediaDuration(src) {
  return new Promise((resolve) => {
    const v = document.createElement('video');
    const url = src instanceof Blob ? URL.createObjectURL(src) : src;
    const end = (d) => {
      if (src instanceof Blob) URL.revokeObjectURL(url);
      v.removeAttribute('src');
      resolve(Number.isFinite(d) && d > 0 ? d : null);
    };
    v.preload = 'metadata';
    v.muted = true;
    v.onloadedmetadata = () => end(v.duration);
    v.onerror = () => end(null);
    setTimeout(() => end(null), 8000);
    v.src = url;
  });
}
