import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import type { AppDeps } from './deps.js';
import { registerAuth } from './plugins/auth.js';
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
import { registerRateLimit } from './plugins/rate-limit.js';
import { partAwareValidatorFactory } from './validation.js';
import { legacyPlugin } from './legacy/legacy.plugin.js';
import { MemoryRateLimitStore } from '../infra/ratelimit/memory-rate-limit-store.js';

/**
 * Builds the HTTP application. Everything under /v1 sits in one encapsulated scope with bearer
 * authentication; signed file URLs (/files) authenticate by signature instead.
 */
export async function buildApp(deps: AppDeps, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger === false || deps.config.logLevel === 'silent' ? false : { level: deps.config.logLevel },
    genReqId,
    bodyLimit: deps.config.limits.bodyBytes,
    // Long uploads on slow links must not be cut by a request timeout; idle sockets still are.
    requestTimeout: 0,
    // Fastify's own 503 while closing is not our envelope; the closing hook below answers instead.
    return503OnClosing: false,
    // Long enough that an over-long ID reaches its route and gets the family's 404.
    routerOptions: { maxParamLength: 512 },
    // Errors raised before routing (bad percent-encoding, over-long parameters) get the envelope too.
    frameworkErrors: (err, request, reply) => {
      reply.header('X-Request-Id', request.id);
      sendError(request, reply, toAppError(err, deps.config.limits));
    },
    // Querystrings, params and headers are coerced (they are text); JSON bodies are not (validation.ts).
    ajv: { customOptions: { removeAdditional: false, allErrors: false } },
    schemaController: { compilersFactory: { buildValidator: partAwareValidatorFactory() as never } },
  });
  registerRequestContext(app);
  registerClosingGuard(app);
  registerErrorHandler(app, deps.config.limits);
  registerOpenApi(app);

  await app.register(multipart, {
    limits: {
      // Per-field limits are enforced while streaming (src/http/multipart.ts); these are outer bounds.
      fileSize: Math.max(deps.config.limits.videoBytes, deps.config.limits.imageBytes) + 1,
      files: 4,
      fields: 32,
      fieldSize: 64 * 1024,
      parts: 40,
      headerPairs: 100,
    },
  });

  // One store: a key's limits hold across both interfaces.
  const rateLimitStore = new MemoryRateLimitStore();
  await app.register(async (v1) => {
    registerAuth(v1, deps.db);
    registerRateLimit(v1, deps, rateLimitStore);
    await charactersRoutes(v1, deps);
    await motionsRoutes(v1, deps);
    await rendersRoutes(v1, deps);
    await videosRoutes(v1, deps);
    await creditsRoutes(v1, deps);
    await eventsRoutes(v1, deps);
    await draftsRoutes(v1, deps);
  }, { prefix: '/v1' });

  // The deprecated Legacy interface: same services and data, Legacy names and errors (docs/legacy.md).
  await app.register(async (legacy) => legacyPlugin(legacy, deps, rateLimitStore), { prefix: '/api' });

  await filesRoutes(app, deps);
  return app;
}
