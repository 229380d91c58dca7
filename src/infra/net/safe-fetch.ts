import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { AppError } from '../../contracts/errors.js';
import { AllowList, formatIp, nonPublicReason, parseIp, type Bytes16 } from './ip-ranges.js';

/**
 * URL inputs (image_url, motion_video_url, video_url) are fetched by the service on the caller's
 * behalf, so every fetch is a potential request forgery against our own network. The guard:
 * http(s) only, no credentials, the name resolved ONCE and the socket pinned to the checked address
 * (no second lookup an attacker's DNS could answer differently), every redirect re-checked, bytes
 * and time capped. Non-public addresses pass only when the operator allow-list names them.
 */

const MAX_URL_LENGTH = 2048;
const MAX_REDIRECTS = 5;

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function refused(url: string, message: string, reason: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('INVALID_REQUEST', message, { details: { url, reason, ...extra } });
}

/** Names that are loopback by definition (RFC 6761), whatever a resolver says. */
function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * Cloud metadata services by name. Inside a cloud they resolve to link-local addresses (refused
 * anyway); naming them here refuses them at the door, before any lookup, and also when a resolver
 * (a split-horizon DNS, a hosts file) answers something that looks public.
 */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
]);

function isMetadataName(hostname: string): boolean {
  return METADATA_NAMES.has(hostname.toLowerCase().replace(/\.$/, ''));
}

/**
 * Synchronous check at the door: what can be known without a DNS lookup. Returns the normalised
 * URL (WHATWG parsing, so `http://0x7f.1/` is seen as 127.0.0.1) or throws INVALID_REQUEST.
 */
export function checkUrlAtDoor(url: string, allowList: readonly string[]): string {
  if (typeof url !== 'string' || url.trim() === '') throw refused(String(url), 'The URL is empty.', 'malformed');
  if (url.length > MAX_URL_LENGTH) throw refused(url.slice(0, 100), `The URL is longer than ${MAX_URL_LENGTH} characters.`, 'too_long');
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw refused(url, 'The URL is not a valid absolute URL.', 'malformed');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw refused(url, `Only http and https URLs are accepted (got ${parsed.protocol.replace(/:$/, '')}).`, 'scheme');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw refused(url, 'URLs with embedded credentials are not accepted.', 'credentials');
  }
  const host = parsed.hostname;
  if (host === '') throw refused(url, 'The URL has no host.', 'malformed');
  const allow = new AllowList(allowList);
  if (allow.admitsHost(host)) return parsed.href;
  const literal = parseIp(host);
  if (literal) {
    const why = nonPublicReason(literal);
    if (why && !allow.admitsAddress(literal)) {
      throw refused(url, `The URL points at a non-public address (${why}); only public addresses are fetched.`, 'blocked_address', {
        address: formatIp(literal).address,
      });
    }
  } else if (isLoopbackName(host)) {
    throw refused(url, 'The URL points at a non-public address (loopback); only public addresses are fetched.', 'blocked_address');
  } else if (isMetadataName(host)) {
    throw refused(url, 'The URL points at a cloud metadata service; only public addresses are fetched.', 'blocked_address');
  }
  return parsed.href;
}

/** Resolves once and picks the address to pin; refuses when any answer is non-public (a mixed answer is a rebinding smell). */
async function pinAddress(
  url: URL,
  allow: AllowList,
  resolver: Resolver,
  signal: AbortSignal,
): Promise<{ address: string; family: 4 | 6 }> {
  const literal = parseIp(url.hostname);
  if (literal) return formatIp(literal); // checkUrlAtDoor already judged it
  const hostAllowed = allow.admitsHost(url.hostname);
  let answers: { address: string; family: number }[];
  try {
    answers = await untilAborted(resolver(url.hostname), signal); // a stalling DNS server counts against the deadline too
  } catch (e) {
    if (signal.aborted) throw e;
    throw refused(url.href, `The host ${url.hostname} could not be resolved.`, 'dns', { cause: (e as NodeJS.ErrnoException).code ?? null });
  }
  const parsed: Bytes16[] = answers.map((a) => parseIp(a.address)).filter((b): b is Bytes16 => b !== null);
  if (parsed.length === 0) throw refused(url.href, `The host ${url.hostname} has no address.`, 'dns');
  if (!hostAllowed) {
    for (const addr of parsed) {
      const why = nonPublicReason(addr);
      if (why && !allow.admitsAddress(addr)) {
        throw refused(
          url.href,
          `The host ${url.hostname} resolves to a non-public address (${why}); only public addresses are fetched.`,
          'blocked_address',
          { address: formatIp(addr).address },
        );
      }
    }
  }
  return formatIp(parsed[0]);
}

function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

function pinnedLookup(pinned: { address: string; family: 4 | 6 }): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts && opts.all) cb(null, [{ address: pinned.address, family: pinned.family }]);
    else cb(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

export interface FetchOptions {
  maxBytes: number;
  timeoutMs: number;
  allowList: readonly string[];
  signal?: AbortSignal;
  /** Injected by tests so no name ever reaches a real DNS server. */
  resolver?: Resolver;
}

/** One hop: connect to the pinned address and return the response head (body unread). */
function requestOnce(url: URL, pinned: { address: string; family: 4 | 6 }, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'GET',
      lookup: pinnedLookup(pinned),
      // A fresh agent per request: a pooled socket could be bound to another pinned address, and
      // no proxy is ever used (Node's http client ignores HTTP_PROXY / HTTPS_PROXY; a proxy would
      // resolve the name again itself, defeating the pin), so tests assert the env vars change nothing.
      agent: false,
      signal,
      headers: { 'user-agent': 'marionette-fetch/1', accept: '*/*', 'accept-encoding': 'identity' },
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

/**
 * The caller's own abort (a worker losing its lease or shutting down) is not the URL's fault: it
 * surfaces as an AbortError so the job is retried rather than the resource failed.
 */
function cancelled(outer: AbortSignal): Error {
  if (outer.reason instanceof Error) return outer.reason;
  const e = new Error('The fetch was aborted by the caller.', { cause: outer.reason });
  e.name = 'AbortError';
  return e;
}

function networkError(url: string, e: unknown, signal: AbortSignal, timeoutMs: number, outer?: AbortSignal): Error {
  if (e instanceof AppError) return e;
  if (outer?.aborted) return cancelled(outer);
  if (signal.aborted)
    return refused(url, `The URL did not deliver its content within ${Math.round(timeoutMs / 1000)} s.`, 'timeout', {
      timeout_ms: timeoutMs,
    });
  const code = (e as NodeJS.ErrnoException)?.code ?? null;
  return refused(url, `The URL could not be fetched (${code ?? (e as Error)?.message ?? 'network error'}).`, 'network', { cause: code });
}

/**
 * Downloads `url` into `destFile` under the guard. Throws INVALID_REQUEST (refused address, bad
 * scheme, redirect loop, HTTP error, network failure, timeout) or UNSUPPORTED_MEDIA (larger than
 * `maxBytes`); the partial file is removed on any failure. Type by content is the caller's
 * check (checkImageFile / checkVideoFile), since only it knows which kind it expects.
 */
export async function fetchToFile(
  url: string,
  destFile: string,
  opts: FetchOptions,
): Promise<{ size: number; contentType: string | null }> {
  const allow = new AllowList(opts.allowList);
  const resolver = opts.resolver ?? systemResolver;
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  let current = checkUrlAtDoor(url, opts.allowList);
  try {
    for (let hop = 0; ; hop++) {
      const target = new URL(current);
      let res: http.IncomingMessage;
      try {
        const pinned = await pinAddress(target, allow, resolver, signal);
        res = await requestOnce(target, pinned, signal);
      } catch (e) {
        throw networkError(current, e, signal, opts.timeoutMs, opts.signal);
      }
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        if (hop >= MAX_REDIRECTS) throw refused(url, `The URL redirected more than ${MAX_REDIRECTS} times.`, 'too_many_redirects');
        let next: string;
        try {
          next = new URL(res.headers.location, target).href;
        } catch {
          throw refused(current, 'The URL redirected to an invalid location.', 'bad_redirect');
        }
        current = checkUrlAtDoor(next, opts.allowList); // every hop is judged like the first
        continue;
      }
      if (status < 200 || status >= 300) {
        res.destroy();
        throw refused(current, `The URL answered HTTP ${status}.`, 'http_status', { http_status: status });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        res.destroy();
        throw tooLarge(current, opts.maxBytes);
      }
      let size = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (size > opts.maxBytes) cb(tooLarge(current, opts.maxBytes));
          else cb(null, chunk);
        },
      });
      try {
        await pipeline(res, cap, createWriteStream(destFile), { signal });
      } catch (e) {
        throw networkError(current, e, signal, opts.timeoutMs, opts.signal);
      }
      const contentType = res.headers['content-type'] ?? null;
      return { size, contentType: contentType ? contentType.split(';')[0].trim().toLowerCase() : null };
    }
  } catch (e) {
    await rm(destFile, { force: true });
    throw e;
  }
}

function tooLarge(url: string, maxBytes: number): AppError {
  return new AppError('UNSUPPORTED_MEDIA', `The URL delivers more than the ${maxBytes}-byte limit.`, {
    details: { url, reason: 'too_large', limit_bytes: maxBytes },
  });
}
