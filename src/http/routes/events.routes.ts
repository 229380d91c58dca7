import type { FastifyInstance } from 'fastify';
import type { Services } from '../../domain/services.js';
import type { HttpSettings } from '../settings.js';
import type { Static } from '@sinclair/typebox';
import { RenderEventsHeaders, RenderIdParams } from '../../contracts/schemas/renders.js';
import { principal } from '../plugins/auth.js';
import { HEARTBEAT_FRAME, sseFrame } from '../../domain/events/render-stream.service.js';

/**
 * GET /v1/renders/{render_id}/events (spec section 6). Everything that can fail (auth, ownership,
 * the ID) is decided before the first byte, so errors are ordinary JSON envelopes; after that the
 * connection is handed to the stream hub, which delivers stored events and heartbeats.
 */
export async function eventsRoutes(app: FastifyInstance, { streams }: Pick<Services, 'streams'>, settings: HttpSettings): Promise<void> {
  const hub = streams.hub({ heartbeatMs: settings.config.events.heartbeatMs, pollMs: settings.config.workers.pollMs });
  // preClose, not onClose: open streams would keep the server from closing at all.
  app.addHook('preClose', async () => hub.close());

  app.get<{ Params: Static<typeof RenderIdParams>; Headers: { 'last-event-id'?: string } }>(
    '/renders/:render_id/events',
    {
      schema: { params: RenderIdParams },
      config: {
        openapi: {
          summary:
            'Stream the events of a render (server-sent events): snapshot, queued, processing, progress, ready, failed, cancelled, heartbeat',
          tags: ['renders'],
          headers: RenderEventsHeaders,
          responses: { '200': 'text/event-stream; charset=utf-8: `id`, `event` and JSON `data` frames; closes after a terminal event' },
        },
      },
    },
    async (request, reply) => {
      const lastEventId = request.headers['last-event-id'];
      const opening = await streams.openRenderStream(
        principal(request).accountId,
        request.params.render_id,
        typeof lastEventId === 'string' ? lastEventId : undefined,
      );
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache',
        'X-Accel-Buffering': 'no',
        'X-Request-Id': request.id,
        Connection: 'keep-alive',
      });
      res.write(opening.events.map(sseFrame).join(''));
      if (opening.done) {
        res.end();
        return;
      }
      if (res.destroyed) return; // the client left while the opening frames were prepared
      const detach = hub.attach(opening.renderId, {
        lastSequence: opening.lastSequence,
        send: (events) => void res.write(events.map(sseFrame).join('')),
        heartbeat: () => void res.write(HEARTBEAT_FRAME),
        end: () => res.end(),
      });
      res.once('close', detach);
    },
  );
}
