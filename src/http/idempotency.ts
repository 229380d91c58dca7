import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest } from '../contracts/errors.js';
import type { IdempotencyService } from '../domain/services.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, type Created } from '../domain/idempotency/idempotency.service.js';
import type { Fingerprint } from '../domain/idempotency/fingerprint.js';
import { principal } from './plugins/auth.js';

export { fingerprintJson } from '../domain/idempotency/fingerprint.js';

/**
 * The one call a create route makes to honour `Idempotency-Key` (docs/retrying.md):
 *
 *   return idempotent(idempotency, request, reply, {    // services.idempotency
 *     fingerprint: form.fingerprint,            // multipart (src/http/multipart.ts) or fingerprintJson(body)
 *     create: async () => ({ resourceId, statusCode: 200, body }),
 *     replay: (id) => present(read(id)),        // fresh read of the resource
 *   });
 *
 * Without the header the creation just runs. With it, the key is per account; the operation is
 * the route (`POST /v1/characters`). The reply gets the recorded status code; a replay also carries
 * `Idempotent-Replayed: true`.
 */
export interface IdempotentRoute<T> {
  fingerprint: Fingerprint;
  create(): Promise<Created<T>>;
  replay(resourceId: string): Promise<T>;
  /** Defaults to `<METHOD> <route URL>` (e.g. `POST /v1/renders`). */
  operation?: string;
}

/** The request's Idempotency-Key, or undefined when it sent none. Malformed: 400. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) {
    if (raw.length !== 1) throw invalidRequest('Send one Idempotency-Key header.', { header: 'Idempotency-Key' });
  }
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalidRequest(`The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`, {
      header: 'Idempotency-Key',
      length: key.length,
    });
  }
  return key;
}

export async function idempotent<T>(
  service: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  route: IdempotentRoute<T>,
): Promise<T> {
  const key = idempotencyKeyOf(request);
  if (key === undefined) {
    const created = await route.create();
    reply.code(created.statusCode);
    return created.body;
  }
  const outcome = await service.run({
    accountId: principal(request).accountId,
    key,
    operation: route.operation ?? `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`,
    fingerprint: route.fingerprint,
    create: route.create,
    replay: route.replay,
  });
  reply.code(outcome.statusCode);
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return outcome.body;
}
