import Fastify, { type FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import multipart from '@fastify/multipart';
import type { Services } from '../domain/services.js';
import type { HttpSettings } from './settings.js';
import { healthRoutes } from './routes/health.routes.js';
import { registerAuth } from './plugins/auth.js';
import { clientErrorHandler } from './plugins/client-error.js';
import { ApiKeyCache } from '../domain/accounts/key-cache.js';
import { AppError } from '../contracts/errors.js';
import { registerErrorHandler, sendError, toAppError } from './plugins/error-handler.js';
import { genReqId, registerClosingGuard, registerRequestContext } from './plugins/request-context.js';
import { registerOpenApi } from './openapi.js';
import { charactersRoutes } from './routes/characters.routes.js';
import { motionsRoutes } from './routes/motions.routes.js';
import { rendersRoutes } from './routes/renders.routes.js';
import { videosRoutes } from './routes/videos.routes.js';
import { creditsRoutes } from './routes/credits.routes.js';
import { filesRoutes } from './routes/files.routes.js';
import { eventsRoutes } from './routes/events.routes.js';
import { draftsRoutes } from './routes/drafts.routes.js';
import { consoleRoutes } from './routes/console.routes.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { partAwareValidatorFactory } from './validation.js';
import { legacyPlugin } from './legacy/legacy.plugin.js';
import { MemoryRateLimitStore } from '../infra/ratelimit/memory-rate-limit-store.js';
import type { MetricsRecorder } from '../domain/ports/metrics.js';
import { syncHook } from './plugins/sync-hook.js';

/**
 * Builds the HTTP application from the services and the HTTP settings (src/main/wire.ts builds both). Everything under /v1 sits in one encapsulated scope with bearer
 * authentication; signed file URLs (/files) authenticate by signature instead.
 */
export async function buildApp(services: Services, settings: HttpSettings, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger === false || settings.config.logLevel === 'silent' ? false : { level: settings.config.logLevel },
    genReqId,
    bodyLimit: settings.config.limits.bodyBytes,
    // Every request ends within a bounded time whatever its body does (docs/api-decisions.md "Request
    // bodies"): its body must have arrived within requestTimeoutMs (else 408 and the connection is
    // closed); a connection on which nothing moves for idleTimeoutMs is closed.
    // (Node's own requestTimeout stops counting once the handler runs, so a body trickled into a
    // handler is bounded by the body deadline hook below; Node's covers slow headers.)
    requestTimeout: settings.config.http.requestTimeoutMs,
    connectionTimeout: settings.config.http.idleTimeoutMs,
    // Keep-alive shorter than the idle cut, and said so in the Keep-Alive header: Fastify's default
    // (72 s) told clients to reuse a connection the idle timeout had already closed ("other side
    // closed" on the next request).
    keepAliveTimeout: Math.min(5_000, Math.max(1_000, settings.config.http.idleTimeoutMs - 1_000)),
    // Fastify's own 503 while closing is not our envelope; the closing hook below answers instead.
    return503OnClosing: false,
    // Long enough that an over-long ID reaches its route and gets the family's 404.
    routerOptions: { maxParamLength: 512 },
    // Errors of the HTTP parser itself (oversized headers/URL, malformed requests): the envelope too.
    clientErrorHandler,
    // Errors raised before routing (bad percent-encoding, over-long parameters) get the envelope too.
    frameworkErrors: (err, request, reply) => {
      reply.header('X-Request-Id', request.id);
      sendError(request, reply, toAppError(err, settings.config.limits));
    },
    // Querystrings, params and headers are coerced (they are text); JSON bodies are not (validation.ts).
    ajv: { customOptions: { removeAdditional: false, allErrors: false } },
    schemaController: { compilersFactory: { buildValidator: partAwareValidatorFactory() as never } },
  });
  registerRequestContext(app);
  registerClosingGuard(app);
  keepWorkingRequestsOpen(app, settings.config.http);
  registerErrorHandler(app, settings.config.limits);
  if (settings.metrics) registerLatencyMetric(app, settings.metrics);
  // A body still arriving when the request deadline passes (trickled, or stalled just under the idle
  // timeout again and again) gets a 408 and its connection is closed; the multipart reader sees the
  // close and removes its temp files.
  const deadlineMs = settings.config.http.requestTimeoutMs;
  app.addHook(
    'onRequest',
    syncHook((request, reply) => {
      const raw = request.raw;
      if (raw.readableEnded || (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined))
        return;
      const timer = setTimeout(() => {
        if (raw.complete || raw.destroyed) return;
        if (!reply.sent) {
          sendError(
            request,
            reply,
            new AppError('INVALID_REQUEST', `The request body did not arrive within ${deadlineMs} ms.`, {
              status: 408,
              details: { reason: 'request_timeout', timeout_ms: deadlineMs },
              headers: { Connection: 'close' },
            }),
          );
        }
        // The answer is flushed first when the socket can take it; the connection goes either way.
        // The request stream is destroyed explicitly: once a response has finished, Node detaches the
        // request and would never emit its 'close', so a reader waiting on its body would wait forever.
        setTimeout(() => {
          raw.destroy();
          raw.socket?.destroy();
        }, 200).unref();
      }, deadlineMs);
      timer.unref();
      const clear = () => clearTimeout(timer);
      raw.once('end', clear);
      raw.once('close', clear);
    }),
  );
  // The service decodes no Content-Encoding: a compressed body read as-is would be garbage (a gzip
  // multipart form used to become a default render). Refused before any byte of it is read.
  app.addHook(
    'onRequest',
    syncHook((request) => {
      const enc = request.headers['content-encoding'];
      if (enc === undefined) return;
      const codings = String(enc)
        .split(',')
        .map((c) => c.trim().toLowerCase())
        .filter((c) => c !== '' && c !== 'identity');
      if (codings.length === 0) return;
      throw new AppError('UNSUPPORTED_CONTENT_ENCODING', `Content-Encoding ${String(enc)} is not accepted; send the body uncompressed.`, {
        details: { content_encoding: String(enc), accepted: ['identity'] },
        headers: { Connection: 'close', 'Accept-Encoding': 'identity' },
      });
    }),
  );
  registerOpenApi(app);

  await app.register(multipart, {
    limits: {
      // Per-field limits are enforced while streaming (src/http/multipart.ts); these are outer bounds.
      fileSize: Math.max(settings.config.limits.videoBytes, settings.config.limits.imageBytes) + 1,
      files: 4,
      fields: 32,
      fieldSize: 64 * 1024,
      parts: 40,
      headerPairs: 100,
    },
  });

  // One store: a key's limits hold across both interfaces.
  const rateLimitStore = settings.rateLimitStore ?? new MemoryRateLimitStore();
  await app.register(
    async (v1) => {
      const { ttlMs, confirmEachUse } = settings.config.apiKeyCache;
      const cache = new ApiKeyCache({ ttlMs, confirmEachUse, revocations: settings.keyRevocations });
      registerAuth(v1, services.accounts, { cache });
      registerRateLimit(v1, settings, rateLimitStore);
      await charactersRoutes(v1, services, settings);
      await motionsRoutes(v1, services, settings);
      await rendersRoutes(v1, services, settings);
      await videosRoutes(v1, services, settings);
      await creditsRoutes(v1, services);
      await eventsRoutes(v1, services, settings);
      await draftsRoutes(v1, services);
    },
    { prefix: '/v1' },
  );

  // The deprecated Legacy interface: same services and data, Legacy names and errors (docs/legacy.md).
  await app.register(async (legacy) => legacyPlugin(legacy, services, settings, rateLimitStore), { prefix: '/api' });

  await filesRoutes(app, services);
  await healthRoutes(app, settings);
  if (settings.console) await consoleRoutes(app, settings.console);
  return app;
}

/**
 * `marionette_http_request_duration_seconds{method,route,status}`: each answered request, labelled
 * by its route pattern (requests that matched no route share one label, so probes of random paths
 * cannot grow the series). Event streams are left out: their duration is how long a client listened.
 */
/**
 * The idle timeout cuts a connection on which the CLIENT is silent: between requests, or while its body
 * trickles or stalls. Node's socket timeout also fires while the service itself is working on a request
 * whose body has fully arrived (a creation that probes and decodes its media, slow under load): cutting
 * that connection lost answers to requests that were being served ("other side closed", a created render
 * the client never heard of). So a timed-out socket whose current request is complete and not yet
 * answered is kept, and its timer re-armed, until the request deadline; anything else is closed, as before.
 */
function keepWorkingRequestsOpen(app: FastifyInstance, http: { requestTimeoutMs: number; idleTimeoutMs: number }): void {
  const started = new WeakMap<IncomingMessage, number>();
  app.addHook(
    'onRequest',
    syncHook((request) => {
      started.set(request.raw, Date.now());
    }),
  );
  app.server.on('timeout', (socket: Socket) => {
    // Node's own record of the response a socket is serving (null between requests).
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    const req = res?.req;
    const since = req ? started.get(req) : undefined;
    if (res && req && !res.writableEnded && req.complete && since !== undefined && Date.now() - since < http.requestTimeoutMs) {
      socket.setTimeout(http.idleTimeoutMs);
      return;
    }
    socket.destroy();
  });
}

function registerLatencyMetric(app: FastifyInstance, metrics: MetricsRecorder): void {
  // One labels object per method, route and status (a bounded set: routes are patterns), reused so
  // the recorder does not rebuild the series key on every request.
  const labelsBy = new Map<string, { method: string; route: string; status: string }>();
  app.addHook('onResponse', (request, reply, done) => {
    const type = reply.getHeader('content-type') ?? reply.raw.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('text/event-stream')) {
      const route = request.routeOptions.url ?? 'unmatched';
      const k = `${request.method} ${route} ${reply.statusCode}`;
      let labels = labelsBy.get(k);
      if (labels === undefined) {
        labels = { method: request.method, route, status: String(reply.statusCode) };
        labelsBy.set(k, labels);
      }
      metrics.observe('marionette_http_request_duration_seconds', labels, reply.elapsedTime / 1000);
    }
    done();
  });
}
