import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

/**
 * Per-API-key rate limits (DECISIONS.md "Rate limits"). Implementation: issue "Large-media
 * ingestion". Registered inside the authenticated /v1 scope, after authentication.
 */
export function registerRateLimit(scope: FastifyInstance, deps: AppDeps): void {
  void scope;
  void deps;
}
