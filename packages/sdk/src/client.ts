import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { errorFromResponse, JobFailedError, MarionetteError } from './errors.js';
import { resolveMedia, type MediaInput, type ResolvedMedia } from './inputs.js';
import { PageIterator } from './pagination.js';
import { readSse } from './sse.js';
import { backoffMs, sleep, Transport, type RetryInfo } from './transport.js';
import type {
  BackgroundMode,
  Character,
  CharacterCreateFields,
  CharacterExport,
  Credits,
  LedgerEntry,
  Draft,
  Motion,
  MotionCreateFields,
  MotionExport,
  DraftRequest,
  MotionTemplate,
  Render,
  RenderEvent,
  RenderEventData,
  Video,
  VideoCreateFields,
  VideoListQuery,
  VideoStatus,
} from './types.js';
import { SDK_VERSION } from './version.js';

export interface MarionetteOptions {
  /** API key (`mk_live_...`). */
  apiKey?: string;
  /** Service root, e.g. `http://127.0.0.1:8080` (without `/v1`). */
  baseUrl: string;
  /** Retries of a retryable failure after the first attempt (default 4). */
  maxRetries?: number;
  /** Longest single wait between retries in ms (default 30 000), whatever Retry-After asks. */
  maxRetryDelayMs?: number;
  /** Inputs larger than this go through a draft and direct uploads (default 16 MiB). */
  draftThresholdBytes?: number;
  /** `X-Service-Source` label. */
  sourceLabel?: string;
  fetch?: typeof fetch;
  onRetry?: (info: RetryInfo) => void;
}

export interface UploadProgress {
  field: string;
  loaded: number;
  total: number;
}

export interface RenderCreateParams {
  /** Character picture (path, URL, Blob, bytes or stream) or `characterId`; omit both character and motion for the project's default pair. */
  character?: MediaInput;
  characterId?: string;
  /** Driving video (path, URL, Blob, bytes or stream) or `motionId`. */
  motion?: MediaInput;
  motionId?: string;
  backgroundMode?: BackgroundMode;
  /** `R,G,B`, with backgroundMode `solid`. */
  bgColor?: string;
  /** `auto` (default): drafts and direct uploads above draftThresholdBytes; `draft` or `direct` to force one. */
  upload?: 'auto' | 'draft' | 'direct';
  /** Reused by every retry of the draft-form creation; generated when absent. */
  idempotencyKey?: string;
  onUploadProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Poll interval; the interface advises 3-5 s (default 3000). */
  intervalMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  /** Throw JobFailedError when the job ends `failed` or `cancelled` (default false: resolve with it). */
  throwOnFailure?: boolean;
  onPoll?: (resource: { id: string; status: string; progress: number | null }) => void;
  signal?: AbortSignal;
}

export interface EventsOptions {
  /** Resume after this event (its `event_id`). */
  lastEventId?: string;
  /** Yield heartbeats too (default false). */
  heartbeats?: boolean;
  /** Reconnections in a row without receiving anything before giving up (default 8). */
  maxReconnects?: number;
  signal?: AbortSignal;
  /** Called before each reconnection after a dropped connection. */
  onReconnect?: (info: { attempt: number; lastEventId: string | null; delayMs: number }) => void;
}

const TERMINAL = new Set(['ready', 'failed', 'cancelled']);
export const isTerminal = (status: string): boolean => TERMINAL.has(status);

function newKey(): string {
  return globalThis.crypto.randomUUID();
}

type Fields = Record<string, string | number | boolean | string[] | undefined | null>;

function appendFields(fd: FormData, fields: Fields): void {
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v) fd.append(k, x);
    else fd.append(k, String(v));
  }
}

function appendMedia(fd: FormData, m: ResolvedMedia | undefined, fileField: string, urlField: string): void {
  if (!m) return;
  if (m.kind === 'url') fd.append(urlField, m.url);
  else fd.append(fileField, m.blob.type === m.contentType ? m.blob : m.blob.slice(0, m.blob.size, m.contentType), m.filename);
}

/** A Blob as a byte stream that reports progress (Node can send streamed request bodies). */
function countingBody(blob: Blob, onBytes: (n: number) => void): ReadableStream<Uint8Array> {
  const reader = blob.stream().getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      onBytes(value.byteLength);
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/**
 * The Marionette client. Typed calls go through openapi-fetch over the generated `paths`, so a
 * path, parameter or body the served document does not have fails to compile.
 */
export class Marionette {
  readonly api: Client<paths>;
  readonly transport: Transport;
  readonly characters: Characters;
  readonly motions: Motions;
  readonly renders: Renders;
  readonly videos: Videos;
  readonly credits: CreditsApi;
  readonly draftThresholdBytes: number;

  constructor(opts: MarionetteOptions) {
    if (!opts.baseUrl) throw new MarionetteError('baseUrl is required (e.g. http://127.0.0.1:8080)');
    this.transport = new Transport({
      apiKey: opts.apiKey,
      baseUrl: opts.baseUrl,
      maxRetries: opts.maxRetries ?? 4,
      maxRetryDelayMs: opts.maxRetryDelayMs ?? 30_000,
      fetch: opts.fetch ?? ((req) => globalThis.fetch(req)),
      sourceLabel: opts.sourceLabel ?? `marionette-sdk/${SDK_VERSION}`,
      onRetry: opts.onRetry,
    });
    this.draftThresholdBytes = opts.draftThresholdBytes ?? 16 * 1024 * 1024;
    this.api = createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ''), fetch: (req) => this.transport.fetch(req) });
    this.characters = new Characters(this);
    this.motions = new Motions(this);
    this.renders = new Renders(this);
    this.videos = new Videos(this);
    this.credits = new CreditsApi(this);
  }

  /** @internal Throws the typed error unless the call succeeded. */
  async unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await call;
    if (response.ok && error === undefined) return data as T;
    throw await errorFromResponse(new Response(JSON.stringify(error ?? null), { status: response.status, headers: response.headers }));
  }

  /** @internal POST a multipart form (the boundary is set by fetch). */
  async postForm<T>(path: string, fd: FormData, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<T> {
    // A form with no field is sent as no body at all: that is the service's default render, while an
    // empty multipart form is refused (400) as a mangled upload.
    const empty = fd.keys().next().done === true;
    const res = await this.transport.ok(
      new Request(this.transport.url(path), { method: 'POST', ...(empty ? {} : { body: fd }), headers, signal }),
    );
    return (await res.json()) as T;
  }

  /** The OpenAPI document the service serves (what the SDK types were generated from). */
  openapi(): Promise<Record<string, unknown>> {
    return this.unwrap(this.api.GET('/v1/openapi.json')) as Promise<Record<string, unknown>>;
  }

  /** Reads any job by its ID prefix: char_ (Character), mot_ (Motion), else a video (render_, vid_, anim_). */
  get(id: `char_${string}`): Promise<Character>;
  get(id: `mot_${string}`): Promise<Motion>;
  get(id: string): Promise<Character | Motion | Video>;
  get(id: string): Promise<Character | Motion | Video> {
    if (id.startsWith('char_')) return this.characters.get(id);
    if (id.startsWith('mot_')) return this.motions.get(id);
    return this.videos.get(id);
  }

  /**
   * Polls until the job is terminal (`ready`, `failed`, `cancelled`), every 3 s by default as the
   * interface advises. Works for renders, videos, characters and motions.
   */
  waitFor(id: `char_${string}`, opts?: WaitOptions): Promise<Character>;
  waitFor(id: `mot_${string}`, opts?: WaitOptions): Promise<Motion>;
  waitFor<T extends Character | Motion | Video = Video>(id: string, opts?: WaitOptions): Promise<T>;
  async waitFor<T extends Character | Motion | Video = Video>(id: string, opts: WaitOptions = {}): Promise<T> {
    const started = Date.now();
    const interval = opts.intervalMs ?? 3000;
    for (;;) {
      const r = (await this.get(id)) as T;
      opts.onPoll?.(r);
      if (isTerminal(r.status)) {
        if (opts.throwOnFailure && r.status !== 'ready') throw new JobFailedError(r as never);
        return r;
      }
      if (opts.timeoutMs !== undefined && Date.now() - started + interval > opts.timeoutMs) {
        throw new MarionetteError(`${id} is still ${r.status} after ${opts.timeoutMs} ms`);
      }
      await sleep(interval, opts.signal);
    }
  }

  /**
   * The render's event stream as an async iterator: `snapshot` first, then `queued`, `processing`,
   * `progress` and one terminal event, after which it ends. A dropped connection is reopened with
   * `Last-Event-ID` (the last event received), so nothing is lost or repeated.
   */
  async *events(renderId: string, opts: EventsOptions = {}): AsyncGenerator<RenderEvent> {
    let lastEventId: string | null = opts.lastEventId ?? null;
    let lastSequence = -1;
    let misses = 0;
    const maxReconnects = opts.maxReconnects ?? 8;
    for (;;) {
      const ctl = new AbortController();
      const onAbort = () => ctl.abort(opts.signal?.reason);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        let res: Response | null = null;
        try {
          const headers: Record<string, string> = { accept: 'text/event-stream' };
          if (lastEventId) headers['last-event-id'] = lastEventId;
          res = await this.transport.ok(
            new Request(this.transport.url(`/v1/renders/${encodeURIComponent(renderId)}/events`), { headers, signal: ctl.signal }),
          );
          for await (const f of readSse(res.body!)) {
            misses = 0;
            if (f.event === 'heartbeat') {
              if (opts.heartbeats) yield { event: 'heartbeat', id: f.id, data: null };
              continue;
            }
            const data = JSON.parse(f.data) as RenderEventData;
            // After a reconnection the server replays from Last-Event-ID; never yield an event twice.
            if (f.event !== 'snapshot' && data.sequence <= lastSequence) continue;
            lastSequence = Math.max(lastSequence, data.sequence);
            lastEventId = data.event_id ?? f.id ?? lastEventId;
            yield { event: f.event as RenderEvent['event'] & string, id: f.id, data } as RenderEvent;
            if (f.event !== 'snapshot' && isTerminal(f.event)) return;
            if (f.event === 'snapshot' && isTerminal(data.status)) return;
          }
        } catch (e) {
          if (opts.signal?.aborted) throw e;
          // A typed API answer (404, 401...) is final; a broken connection is not.
          if (
            !(e instanceof TypeError) &&
            !(e as Error)?.name?.includes('Connection') &&
            !(e instanceof DOMException) &&
            (e as any)?.code !== 'ECONNRESET' &&
            (e as any)?.code !== 'UND_ERR_SOCKET'
          ) {
            if (!(e instanceof Error && /terminated|other side closed|socket/i.test(e.message))) throw e;
          }
        }
      } finally {
        opts.signal?.removeEventListener('abort', onAbort);
        ctl.abort();
      }
      if (++misses > maxReconnects) throw new MarionetteError(`event stream of ${renderId} dropped ${maxReconnects} times in a row`);
      const delayMs = backoffMs(misses - 1, 5000);
      opts.onReconnect?.({ attempt: misses, lastEventId, delayMs });
      await sleep(delayMs, opts.signal);
    }
  }
}

class Characters {
  constructor(private readonly c: Marionette) {}

  /** Creates a Character from one picture (path, URL, Blob, bytes or stream). */
  async create(
    image: MediaInput,
    fields: CharacterCreateFields & { idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<Character> {
    const { idempotencyKey, signal, ...rest } = fields;
    const fd = new FormData();
    appendFields(fd, rest as Fields);
    appendMedia(fd, await resolveMedia(image, 'character.png'), 'image', 'image_url');
    return this.c.postForm<Character>('/v1/characters', fd, { 'idempotency-key': idempotencyKey ?? newKey() }, signal);
  }

  /** The newest active Characters (at most 100; this list has no cursor). */
  list(): PageIterator<Character> {
    return new PageIterator(async () => {
      const page = await this.c.unwrap(this.c.api.GET('/v1/characters'));
      return { items: page.items as Character[], next_cursor: null, has_more: false };
    });
  }

  get(id: string): Promise<Character> {
    return this.c.unwrap(this.c.api.GET('/v1/characters/{character_id}', { params: { path: { character_id: id } } })) as Promise<Character>;
  }

  delete(id: string): Promise<{ id: string; status: 'deleted' }> {
    return this.c.unwrap(this.c.api.DELETE('/v1/characters/{character_id}', { params: { path: { character_id: id } } }));
  }

  export(id: string, opts: { downloadType?: 'vsplat' } = {}): Promise<CharacterExport> {
    return this.c.unwrap(
      this.c.api.GET('/v1/characters/{character_id}/export', {
        params: { path: { character_id: id }, query: opts.downloadType ? { download_type: opts.downloadType } : {} },
      }),
    );
  }
}

class Motions {
  constructor(private readonly c: Marionette) {}

  /** Creates a Motion from a driving video (path, URL, Blob, bytes or stream). */
  async create(video: MediaInput, fields: MotionCreateFields & { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Motion> {
    const { idempotencyKey, signal, ...rest } = fields;
    const fd = new FormData();
    appendFields(fd, rest as Fields);
    appendMedia(fd, await resolveMedia(video, 'motion.mp4'), 'video', 'video_url');
    return this.c.postForm<Motion>('/v1/motions', fd, { 'idempotency-key': idempotencyKey ?? newKey() }, signal);
  }

  /** Creates a Motion from one of the service's templates (see `templates()`). */
  import(templateId: string, opts: { name?: string; idempotencyKey?: string } = {}): Promise<Motion> {
    return this.c.unwrap(
      this.c.api.POST('/v1/motions/import', {
        body: { template_id: templateId, ...(opts.name !== undefined ? { name: opts.name } : {}) },
        headers: { 'idempotency-key': opts.idempotencyKey ?? newKey() } as never,
      }),
    ) as Promise<Motion>;
  }

  async templates(): Promise<MotionTemplate[]> {
    return (await this.c.unwrap(this.c.api.GET('/v1/motions/templates'))).items;
  }

  list(opts: { limit?: number } = {}): PageIterator<Motion> {
    return new PageIterator(
      (cursor) => this.c.unwrap(this.c.api.GET('/v1/motions', { params: { query: { limit: opts.limit, cursor } } })) as never,
    );
  }

  get(id: string): Promise<Motion> {
    return this.c.unwrap(this.c.api.GET('/v1/motions/{motion_id}', { params: { path: { motion_id: id } } })) as Promise<Motion>;
  }

  delete(id: string): Promise<unknown> {
    return this.c.unwrap(this.c.api.DELETE('/v1/motions/{motion_id}', { params: { path: { motion_id: id } } }));
  }

  export(id: string, opts: { downloadType: 'glb' | 'fbx' }): Promise<MotionExport> {
    return this.c.unwrap(
      this.c.api.GET('/v1/motions/{motion_id}/export', {
        params: { path: { motion_id: id }, query: { download_type: opts.downloadType } },
      }),
    );
  }
}

class Renders {
  constructor(private readonly c: Marionette) {}

  /**
   * Creates a Render. Each input family takes one source: a ready asset ID or media (path, URL,
   * Blob, bytes, stream). With no inputs at all the service uses its default character and motion.
   * Large files (or `upload: 'draft'`) go through POST /v1/renders/prepare, direct PUT uploads
   * with retries, and the draft form with one Idempotency-Key reused by every retry.
   */
  async create(p: RenderCreateParams = {}): Promise<Render> {
    const character = p.character !== undefined ? await resolveMedia(p.character, 'character.png') : undefined;
    const motion = p.motion !== undefined ? await resolveMedia(p.motion, 'motion.mp4') : undefined;
    const files = [character, motion].filter((m): m is Extract<ResolvedMedia, { kind: 'file' }> => m?.kind === 'file');
    const total = files.reduce((s, f) => s + f.size, 0);
    const useDraft = p.upload === 'draft' || (p.upload !== 'direct' && files.length > 0 && total > this.c.draftThresholdBytes);
    const common = { character_id: p.characterId, motion_id: p.motionId, background_mode: p.backgroundMode, bg_color: p.bgColor };
    if (!useDraft) {
      const fd = new FormData();
      appendFields(fd, common);
      appendMedia(fd, character, 'image', 'image_url');
      appendMedia(fd, motion, 'motion_video', 'motion_video_url');
      for (const f of files) p.onUploadProgress?.({ field: f === character ? 'image' : 'motion_video', loaded: 0, total: f.size });
      const r = await this.c.postForm<Render>('/v1/renders', fd, { 'idempotency-key': p.idempotencyKey ?? newKey() }, p.signal);
      for (const f of files) p.onUploadProgress?.({ field: f === character ? 'image' : 'motion_video', loaded: f.size, total: f.size });
      return r;
    }
    const declare = (m: ResolvedMedia | undefined) =>
      m?.kind === 'file' ? { content_type: m.contentType, size_bytes: m.size } : undefined;
    const draft = await this.prepare({
      ...common,
      image: declare(character) as DraftRequest['image'],
      image_url: character?.kind === 'url' ? character.url : undefined,
      motion_video: declare(motion) as DraftRequest['motion_video'],
      motion_video_url: motion?.kind === 'url' ? motion.url : undefined,
    });
    for (const plan of draft.uploads) {
      const media = plan.field === 'image' ? character : motion;
      if (media?.kind !== 'file') throw new MarionetteError(`the draft asks for ${plan.field}, which was not given as a file`);
      await this.upload(plan, media.blob, (loaded) => p.onUploadProgress?.({ field: plan.field, loaded, total: media.size }), p.signal);
    }
    return this.createFromDraft(draft.draft_id, { idempotencyKey: p.idempotencyKey, signal: p.signal });
  }

  /** POST /v1/renders/prepare: declares the media and returns the draft with its upload targets. */
  prepare(body: DraftRequest): Promise<Draft> {
    const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
    return this.c.unwrap(this.c.api.POST('/v1/renders/prepare', { body: clean as never }));
  }

  /**
   * PUTs bytes to one upload target. Retries re-send the whole body (the target accepts a repeat
   * until the draft is consumed); `onProgress` gets the bytes sent so far (Node only; browsers
   * report 0 then the total).
   */
  async upload(plan: Draft['uploads'][number], blob: Blob, onProgress?: (loaded: number) => void, signal?: AbortSignal): Promise<void> {
    const make = (): Request => {
      let loaded = 0;
      onProgress?.(0);
      const body = isNode
        ? countingBody(blob, (n) => {
            loaded += n;
            onProgress?.(loaded);
          })
        : blob;
      return new Request(plan.url, {
        method: 'PUT',
        headers: { ...plan.headers, 'content-length': String(blob.size) },
        body,
        signal,
        duplex: 'half',
      } as RequestInit);
    };
    const t = this.c.transport;
    for (let attempt = 0; ; attempt++) {
      try {
        // One attempt per request here (a streamed body cannot be replayed); the loop re-creates it.
        const res = await t.opts.fetch(make());
        if (res.ok) {
          await res.body?.cancel().catch(() => {});
          onProgress?.(blob.size);
          return;
        }
        const err = await errorFromResponse(res);
        if (!err.retryable || attempt >= t.opts.maxRetries) throw err;
        const delayMs = Math.min(
          t.opts.maxRetryDelayMs,
          err.retryAfterS !== null
            ? err.retryAfterS * 1000
            : (err.remediation.retry_after_ms ?? backoffMs(attempt, t.opts.maxRetryDelayMs)),
        );
        t.opts.onRetry?.({ attempt: attempt + 1, delayMs, method: 'PUT', url: plan.url, error: err });
        await sleep(delayMs, signal);
      } catch (e) {
        if (e instanceof MarionetteError || signal?.aborted || attempt >= t.opts.maxRetries) throw e;
        const delayMs = backoffMs(attempt, t.opts.maxRetryDelayMs);
        const { ConnectionError } = await import('./errors.js');
        t.opts.onRetry?.({
          attempt: attempt + 1,
          delayMs,
          method: 'PUT',
          url: plan.url,
          error: new ConnectionError((e as Error).message, { cause: e }),
        });
        await sleep(delayMs, signal);
      }
    }
  }

  /** The draft form of POST /v1/renders (202). Every retry sends the same Idempotency-Key, so at most one render is made. */
  createFromDraft(draftId: string, opts: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Render> {
    return this.c.unwrap(
      this.c.api.POST('/v1/renders', {
        body: { draft_id: draftId },
        params: { header: { 'Idempotency-Key': opts.idempotencyKey ?? newKey() } },
        signal: opts.signal,
      }),
    ) as Promise<Render>;
  }

  events(renderId: string, opts?: EventsOptions): AsyncGenerator<RenderEvent> {
    return this.c.events(renderId, opts);
  }

  /** The finished video (follows GET /v1/renders/{id}/download). */
  async download(renderId: string): Promise<Response> {
    const res = await this.c.transport.ok(
      new Request(this.c.transport.url(`/v1/renders/${encodeURIComponent(renderId)}/download`), { redirect: 'manual' }),
    );
    const location = res.headers.get('location');
    await res.body?.cancel().catch(() => {});
    if (!location) throw new MarionetteError(`no download location for ${renderId}`);
    return this.c.transport.ok(new Request(new URL(location, this.c.transport.url('/')).toString()), false);
  }
}

class Videos {
  constructor(private readonly c: Marionette) {}

  get(id: string): Promise<Video> {
    return this.c.unwrap(this.c.api.GET('/v1/videos/{video_id}', { params: { path: { video_id: id } } }));
  }

  /** Every render, H3 and character-animation video of the account, newest first, across pages. */
  list(query: { status?: VideoStatus; limit?: number } = {}): PageIterator<Video> {
    return new PageIterator(
      (cursor) => this.c.unwrap(this.c.api.GET('/v1/videos', { params: { query: { ...query, cursor } as VideoListQuery } })) as never,
    );
  }

  /**
   * POST /v1/videos: an H3 generation from `prompt` (optionally framed by first/last images) or,
   * with `drivingVideo`/`motionId`, a character animation (`character` or `characterId` too).
   */
  async create(
    p: VideoCreateFields & {
      firstFrame?: MediaInput;
      lastFrame?: MediaInput;
      character?: MediaInput;
      drivingVideo?: MediaInput;
      idempotencyKey?: string;
      signal?: AbortSignal;
    },
  ): Promise<Video> {
    const { firstFrame, lastFrame, character, drivingVideo, idempotencyKey, signal, ...fields } = p;
    const fd = new FormData();
    appendFields(fd, fields as Fields);
    if (firstFrame !== undefined)
      appendMedia(fd, await resolveMedia(firstFrame, 'first.png'), 'first_frame_image', 'first_frame_image_url');
    if (lastFrame !== undefined) appendMedia(fd, await resolveMedia(lastFrame, 'last.png'), 'last_frame_image', 'last_frame_image_url');
    if (character !== undefined) appendMedia(fd, await resolveMedia(character, 'character.png'), 'character_image', 'character_image_url');
    if (drivingVideo !== undefined) appendMedia(fd, await resolveMedia(drivingVideo, 'driving.mp4'), 'driving_video', 'driving_video_url');
    return this.c.postForm<Video>('/v1/videos', fd, { 'idempotency-key': idempotencyKey ?? newKey() }, signal);
  }

  /** The bytes of a ready video as a Response (its body is the stream). Output URLs are signed, so no key is sent to them. */
  async download(id: string): Promise<Response> {
    const v = await this.get(id);
    if (v.status !== 'ready' || !v.video_url)
      throw new JobFailedError(
        v.status === 'failed' || v.status === 'cancelled'
          ? v
          : { id: v.id, status: v.status, error: { code: 'NOT_READY', message: `the video is ${v.status}; download it once ready` } },
      );
    return this.c.transport.ok(new Request(v.video_url), false);
  }

  /** Node: downloads a ready video to `path` (through a temp file renamed into place); returns bytes written. */
  async downloadTo(id: string, path: string, onProgress?: (loaded: number, total: number | null) => void): Promise<number> {
    const res = await this.download(id);
    const total = Number(res.headers.get('content-length')) || null;
    const node = await import('./node.js');
    let loaded = 0;
    return node.saveBody(res.body!, path, (n) => onProgress?.((loaded += n), total));
  }
}

class CreditsApi {
  constructor(private readonly c: Marionette) {}
  get(): Promise<Credits> {
    return this.c.unwrap(this.c.api.GET('/v1/credits'));
  }

  /** The account's credit movements (GET /v1/credits/ledger), newest first, across pages. */
  ledger(opts: { limit?: number } = {}): PageIterator<LedgerEntry> {
    return new PageIterator(async (cursor) => {
      const page = await this.c.unwrap(this.c.api.GET('/v1/credits/ledger', { params: { query: { limit: opts.limit, cursor } } }));
      return { items: page.items, next_cursor: page.next_cursor, has_more: page.next_cursor !== null };
    });
  }
}
