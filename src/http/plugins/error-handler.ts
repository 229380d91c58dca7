import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, internalError, invalidRequest, isAppError } from '../../contracts/errors.js';

/**
 * The one place where failures become HTTP responses. Framework and plugin errors (malformed JSON,
 * bad multipart, schema validation, oversized bodies) are translated into catalogue codes, so every
 * error body is the spec's envelope with `request_id` equal to the `X-Request-Id` header.
 */
export function toAppError(err: unknown, limits: { bodyBytes: number }): AppError {
  if (isAppError(err)) return err;
  const e = err as FastifyError & { validation?: unknown; validationContext?: string };
  if (e?.validation) {
    const first = Array.isArray(e.validation)
      ? (e.validation[0] as { instancePath?: string; message?: string; params?: { additionalProperty?: string } })
      : undefined;
    // An unexpected property is named by Ajv in params, not in the path (which points at its parent).
    const path = [first?.instancePath?.replace(/^\//, ''), first?.params?.additionalProperty].filter(Boolean).join('/');
    // No body, or a form sent where JSON is expected: say what the endpoint takes.
    if (e.validationContext === 'body' && path === '' && (first as { keyword?: string } | undefined)?.keyword === 'type') {
      return invalidRequest('The request body must be a JSON object (Content-Type: application/json).', {
        location: 'body',
        field: null,
        reason: first?.message ?? null,
      });
    }
    return invalidRequest(`Invalid ${e.validationContext ?? 'request'}: ${path || e.validationContext} ${first?.message ?? ''}`.trim(), {
      location: e.validationContext ?? null,
      field: path || null,
      reason: first?.message ?? null,
    });
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidRequest(`The request body exceeds the ${limits.bodyBytes} byte limit.`, { limit_bytes: limits.bodyBytes });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidRequest('Unsupported Content-Type for this endpoint.', { content_type: null });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequest('The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidRequest('The request body is not valid JSON.');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return invalidRequest('This endpoint expects multipart/form-data.');
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
      return invalidRequest(`Malformed multipart form: ${e.message}.`);
    case 'FST_ERR_BAD_URL':
      return invalidRequest('Malformed URL.');
  }
  if (e instanceof SyntaxError || /multipart|boundary|Unexpected end of form|Malformed part header/i.test(String(e?.message))) {
    return invalidRequest(`Malformed request body: ${e.message}`);
  }
  if (isDependencyOutage(err)) {
    return new AppError('SERVICE_BUSY', 'A backing service (database or Redis) is unreachable; retry shortly.', {
      retryAfterMs: 1000,
      details: { reason: 'dependency_unavailable' },
    });
  }
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return invalidRequest(e.message || 'Invalid request.');
  }
  return internalError();
}

/**
 * Connection-level failures of PostgreSQL or Redis (refused, reset, terminated by the server, pool
 * timeout): the request may succeed on retry, so it is 503 SERVICE_BUSY, not 500.
 */
export function isDependencyOutage(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; name?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  // PostgreSQL SQLSTATE class 08 (connection exception), 57P01-57P03 (server shutting down / starting).
  if (/^08/.test(code) || /^57P0[123]$/.test(code)) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN'].includes(code)) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return (
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|MaxRetriesPerRequestError|Reached the max retries per request/i.test(
      msg,
    ) || e.name === 'MaxRetriesPerRequestError'
  );
}

export function sendError(request: FastifyRequest, reply: FastifyReply, appError: AppError): FastifyReply {
  for (const [k, v] of Object.entries(appError.headers)) reply.header(k, v);
  if (appError.status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', 'Bearer realm="marionette"');
  if ((appError.status === 429 || appError.status === 503) && !reply.hasHeader('Retry-After')) {
    reply.header('Retry-After', String(Math.max(0, Math.ceil((appError.retryAfterMs ?? 1000) / 1000))));
  }
  reply.header('X-Request-Id', request.id);
  return reply.code(appError.status).type('application/json; charset=utf-8').send(appError.toEnvelope(request.id));
}

export function registerErrorHandler(app: FastifyInstance, limits: { bodyBytes: number }): void {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err, limits);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: appError.code, msg: appError.message }, 'request refused');
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError('INVALID_REQUEST', `No route ${request.method} ${request.url.split('?')[0]}.`, {
        status: 404,
        details: { method: request.method, path: request.url.split('?')[0] },
      }),
    ),
  );
}
