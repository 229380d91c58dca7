import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, invalidRequest } from '../../contracts/errors.js';
import { syncHook } from './sync-hook.js';

/**
 * `X-Request-Id` and `X-Service-Source` (spec sections 5 and 8). Fastify's `genReqId` adopts a
 * caller's valid request ID (1-128 printable ASCII characters) or makes one; the effective value
 * goes out on every response, errors and unknown routes included. An invalid header is refused
 * with INVALID_REQUEST, answered under a generated ID.
 */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

declare module 'fastify' {
  interface FastifyRequest {
    serviceSource: string | null;
  }
}

export function genReqId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const v = req.headers['x-request-id'];
  if (typeof v === 'string' && HEADER_VALUE.test(v)) return v;
  return `req_${randomUUID().replace(/-/g, '')}`;
}

function checkHeader(request: FastifyRequest, name: string): string | null {
  const v = request.headers[name];
  if (v === undefined) return null;
  if (typeof v !== 'string' || !HEADER_VALUE.test(v)) {
    throw invalidRequest(`The ${name} header must be 1-128 printable characters.`, { header: name });
  }
  return v;
}

export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest('serviceSource', null);
  app.addHook(
    'onRequest',
    syncHook((request, reply) => {
      reply.header('X-Request-Id', request.id);
      checkHeader(request, 'x-request-id');
      request.serviceSource = checkHeader(request, 'x-service-source');
    }),
  );
}

/**
 * While the server drains for shutdown, a request that still arrives (on a busy keep-alive
 * connection) gets 503 SERVICE_BUSY in the envelope, with Retry-After and its X-Request-Id, and the
 * connection is closed so the client's next try lands on a live instance.
 */
export function registerClosingGuard(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook(
    'onRequest',
    syncHook(() => {
      if (!closing) return;
      throw new AppError('SERVICE_BUSY', 'The service is shutting down; retry shortly.', {
        retryAfterMs: 1000,
        headers: { Connection: 'close' },
      });
    }),
  );
}
