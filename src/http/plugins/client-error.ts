import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { AppError } from '../../contracts/errors.js';
import { genReqId } from './request-context.js';

/**
 * Errors Node's HTTP parser raises before a request exists (headers or URL over the size limit, a
 * malformed request line, a request timeout) are answered with the error envelope too, under a
 * generated request ID, and the connection is closed (its framing can no longer be trusted).
 * Fastify's default answer here is its own `{error, message, statusCode}` body. All three are 400: the
 * interface names the statuses in use (400, 401, ...), and 431 and 408 are not among them;
 * `details.reason` says which it was.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let appError: AppError;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    appError = new AppError('INVALID_REQUEST', "The request line and headers exceed the server's size limit.", {
      details: { reason: 'headers_too_large' },
    });
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    appError = new AppError('INVALID_REQUEST', 'The request was not received in time.', { details: { reason: 'request_timeout' } });
  } else {
    appError = new AppError('INVALID_REQUEST', 'The request is not valid HTTP.', { details: { reason: 'malformed_http' } });
  }
  const requestId = genReqId({ headers: {} });
  const body = JSON.stringify(appError.toEnvelope(requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
