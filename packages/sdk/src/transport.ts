import { ConnectionError, errorFromResponse, MarionetteApiError } from './errors.js';

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  method: string;
  url: string;
  /** The error that caused the retry (an API error for an HTTP answer, a ConnectionError otherwise). */
  error: MarionetteApiError | ConnectionError;
}

export interface TransportOptions {
  apiKey?: string;
  baseUrl: string;
  /** Retries of one request after the first attempt. */
  maxRetries: number;
  /** Longest single wait, whatever Retry-After says. */
  maxRetryDelayMs: number;
  fetch: typeof fetch;
  sourceLabel: string;
  onRetry?: (info: RetryInfo) => void;
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
export { sleep };

/** Exponential backoff with full jitter: 0.5 s, 1 s, 2 s ... capped. */
export function backoffMs(attempt: number, capMs: number): number {
  const base = Math.min(capMs, 500 * 2 ** attempt);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

/**
 * The one place requests leave the SDK: adds the credential and the source label, and retries what
 * the service marks retryable (spec section 7 rule 3), waiting `Retry-After` / `retry_after_ms`
 * when given. Answers without a response (connection refused or reset) are retried only when a
 * repeat cannot duplicate work: reads, PUT uploads, and requests carrying an Idempotency-Key.
 */
export class Transport {
  constructor(readonly opts: TransportOptions) {}

  url(path: string): string {
    return new URL(path, this.opts.baseUrl.endsWith('/') ? this.opts.baseUrl : this.opts.baseUrl + '/').toString();
  }

  /** `authorize: false` for signed URLs (output files, upload targets), which carry their own credential. */
  readonly fetch = (request: Request, authorize = true): Promise<Response> => this.send(request, authorize);

  private async send(request: Request, authorize: boolean): Promise<Response> {
    const headers = new Headers(request.headers);
    if (authorize && this.opts.apiKey && !headers.has('authorization')) headers.set('authorization', `Bearer ${this.opts.apiKey}`);
    if (authorize && !headers.has('x-service-source')) headers.set('x-service-source', this.opts.sourceLabel);
    const base = new Request(request, { headers });
    const replaySafe = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(base.method) || headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.opts.maxRetries;
      const req = last ? base : base.clone();
      let res: Response;
      try {
        res = await this.opts.fetch(req);
      } catch (e) {
        if (base.signal?.aborted) throw e;
        const err = new ConnectionError(
          `${base.method} ${base.url}: ${(e as Error).message}${(e as any)?.cause?.code ? ` (${(e as any).cause.code})` : ''}`,
          { cause: e },
        );
        if (last || !replaySafe) throw err;
        const delayMs = backoffMs(attempt, this.opts.maxRetryDelayMs);
        this.opts.onRetry?.({ attempt: attempt + 1, delayMs, method: base.method, url: base.url, error: err });
        await sleep(delayMs, base.signal);
        continue;
      }
      if (res.ok || last || ![408, 409, 425, 429, 500, 502, 503, 504].includes(res.status)) return res;
      const err = await errorFromResponse(res.clone());
      if (!err.retryable) return res;
      await res.body?.cancel().catch(() => {});
      const advisedMs = err.retryAfterS !== null ? err.retryAfterS * 1000 : (err.remediation.retry_after_ms ?? null);
      const delayMs = Math.min(this.opts.maxRetryDelayMs, advisedMs ?? backoffMs(attempt, this.opts.maxRetryDelayMs));
      this.opts.onRetry?.({ attempt: attempt + 1, delayMs, method: base.method, url: base.url, error: err });
      await sleep(delayMs, base.signal);
    }
  }

  /** fetch + throw the typed error on a non-2xx answer. */
  async ok(request: Request, authorize = true): Promise<Response> {
    const res = await this.send(request, authorize);
    if (!res.ok && !(res.status >= 300 && res.status < 400)) throw await errorFromResponse(res);
    return res;
  }
}
