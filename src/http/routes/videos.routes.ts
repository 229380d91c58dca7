import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

export async function videosRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  void app;
  void deps;
}
