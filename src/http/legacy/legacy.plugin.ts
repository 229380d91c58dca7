import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../contracts/errors.js';
import type { RateLimitStore } from '../../infra/ratelimit/rate-limiter.js';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import { registerAuth } from '../plugins/auth.js';
import { toAppError } from '../plugins/error-handler.js';
import { registerRateLimit } from '../plugins/rate-limit.js';
import { sendLegacyError } from './legacy-errors.js';
import { legacyCharactersRoutes } from './characters.routes.js';
import { legacyCreditsRoutes } from './credits.routes.js';
import { legacyExtractRoutes } from './extract.routes.js';
import { legacyRenderRoutes } from './render.routes.js';
import { legacyScenesRoutes } from './scenes.routes.js';

/** Per-route Legacy settings, read by the scope's hooks and error handler. */
export interface LegacyRouteConfig {
  /** The V1 equivalent for the `Link: <...>; rel="successor-version"` header; `{name}` is filled from the path. */
  successor: string;
  /** Readable without a credential (GET /api/render/{job_id}, unless MARIONETTE_LEGACY_OPEN_STATUS=false). */
  open?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    legacy?: LegacyRouteConfig;
  }
}

function successorOf(request: FastifyRequest, publicUrl: string): string {
  const cfg = request.routeOptions.config.legacy;
  const params = (request.params ?? {}) as Record<string, string>;
  const path = (cfg?.successor ?? '/v1/openapi.json').replace(/\{([a-z_]+)\}/g, (_m, name: string) =>
    encodeURIComponent(params[name] ?? name),
  );
  return `<${publicUrl}${path}>; rel="successor-version"`;
}

/**
 * The deprecated Legacy interface under /api (spec 9.1 and 9.3, docs/legacy.md): its own encapsulated
 * scope with the same API keys and rate limits as /v1, `Deprecation` and `Link` headers on every
 * answer, and errors in the Legacy shape. Routes translate names and call the V1 services.
 */
export async function legacyPlugin(
  scope: FastifyInstance,
  services: Services,
  settings: HttpSettings,
  rateLimitStore?: RateLimitStore,
): Promise<void> {
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('Deprecation', 'true');
    reply.header('Link', successorOf(request, settings.config.publicUrl));
  });
  registerAuth(scope, services.accounts, {
    allowAnonymous: (request) => settings.config.legacy.openStatus && request.routeOptions.config.legacy?.open === true,
  });
  registerRateLimit(scope, settings, rateLimitStore);

  scope.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err, settings.config.limits);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    return sendLegacyError(request, reply, appError);
  });
  scope.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendLegacyError(
      request,
      reply,
      new AppError('INVALID_REQUEST', `No route ${request.method} ${path}.`, { status: 404, details: { method: request.method, path } }),
    );
  });

  // The services built with the Legacy upload limits (src/main/wire.ts, `legacyConfig`).
  const legacy = services.legacy;
  await legacyRenderRoutes(scope, legacy, settings);
  await legacyCharactersRoutes(scope, legacy, settings);
  await legacyScenesRoutes(scope, legacy, settings);
  await legacyCreditsRoutes(scope, legacy);
  await legacyExtractRoutes(scope, legacy, settings);
}
