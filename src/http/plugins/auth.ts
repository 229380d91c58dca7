import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../contracts/errors.js';
import type { Principal } from '../../domain/accounts/accounts.service.js';
import type { AccountsService } from '../../domain/services.js';
import type { ApiKeyCache } from '../../domain/accounts/key-cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/**
 * Bearer authentication for an encapsulated scope (every /v1 route). No Authorization header:
 * UNAUTHENTICATED. Anything present but unusable (another scheme, an empty or malformed token, an
 * unknown or revoked key): INVALID_CREDENTIAL. Both carry WWW-Authenticate. With a cache, a key
 * seen recently skips the lookup by hash (see domain/accounts/key-cache.ts for revocation).
 */
export function registerAuth(
  scope: FastifyInstance,
  accounts: AccountsService,
  opts: { allowAnonymous?: (request: FastifyRequest) => boolean; cache?: ApiKeyCache } = {},
): void {
  scope.decorateRequest('principal', null);
  // Callback form: a key answered from the cache is set without a promise (the hot read path).
  scope.addHook('onRequest', (request, _reply, done) => {
    // A route that may be read without a credential (the Legacy status URL) still checks one that is sent.
    if (request.headers.authorization === undefined && opts.allowAnonymous?.(request)) return done();
    let found: Principal | Promise<Principal>;
    try {
      found = principalOf(request, accounts, opts.cache);
    } catch (err) {
      return done(err as Error);
    }
    if (!(found instanceof Promise)) {
      request.principal = found;
      return done();
    }
    found.then(
      (p) => {
        request.principal = p;
        done();
      },
      (err: Error) => done(err),
    );
  });
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

function principalOf(request: FastifyRequest, accounts: AccountsService, cache: ApiKeyCache | undefined): Principal | Promise<Principal> {
  const header = request.headers.authorization;
  if (header === undefined) {
    throw new AppError('UNAUTHENTICATED', 'Send your API key as "Authorization: Bearer <API_KEY>".', {
      headers: { 'WWW-Authenticate': 'Bearer realm="marionette"' },
    });
  }
  const m = BEARER.exec(header);
  if (!m) {
    throw new AppError('INVALID_CREDENTIAL', 'The Authorization header must be "Bearer <API_KEY>".', {
      headers: { 'WWW-Authenticate': 'Bearer realm="marionette", error="invalid_request"' },
    });
  }
  return accounts.authenticate(m[1], cache);
}

/** The caller's account, or null on a route read without a credential (see `allowAnonymous`). */
export function optionalPrincipal(request: FastifyRequest): Principal | null {
  return request.principal;
}

export function principal(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is outside the authenticated scope');
  return request.principal;
}
