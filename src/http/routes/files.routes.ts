import type { FastifyInstance } from 'fastify';
import { AppError } from '../../contracts/errors.js';
import type { AppDeps } from '../deps.js';

/**
 * Signed object reads for disk storage (`GET /files/<key>?expires&sig`). The signature is the
 * credential, so these URLs work without an Authorization header, as output URLs must. Supports
 * single byte ranges so players can seek.
 */
export async function filesRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get<{ Params: { '*': string }; Querystring: { expires?: string; sig?: string; name?: string } }>('/files/*', async (request, reply) => {
    const key = decodeURIComponent(request.params['*']);
    const exp = Number(request.query.expires);
    const sig = request.query.sig ?? '';
    const verdict = Number.isInteger(exp) ? deps.signer.verify('GET', key, exp, sig) : 'invalid';
    if (verdict !== 'ok') {
      throw new AppError('FORBIDDEN', verdict === 'expired' ? 'This URL has expired; read the resource again for a fresh one.' : 'Invalid URL signature.', {
        details: { reason: verdict },
      });
    }
    const st = await deps.storage.stat(key);
    if (!st) throw new AppError('INVALID_REQUEST', 'No such object.', { status: 404 });
    const type = key.endsWith('.mp4') ? 'video/mp4' : key.endsWith('.png') ? 'image/png' : key.endsWith('.json') ? 'application/json' : key.endsWith('.glb') ? 'model/gltf-binary' : 'application/octet-stream';
    reply.header('Accept-Ranges', 'bytes').header('Cache-Control', 'private, max-age=3600').type(type);
    if (request.query.name) reply.header('Content-Disposition', `attachment; filename="${request.query.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
    if (range && st.size > 0 && (range[1] !== '' || range[2] !== '')) {
      let start = range[1] === '' ? st.size - Number(range[2]) : Number(range[1]);
      let end = range[1] === '' || range[2] === '' ? st.size - 1 : Math.min(Number(range[2]), st.size - 1);
      start = Math.max(0, start);
      if (start > end || start >= st.size) {
        return reply.code(416).header('Content-Range', `bytes */${st.size}`).send();
      }
      end = Math.min(end, st.size - 1);
      reply.code(206).header('Content-Range', `bytes ${start}-${end}/${st.size}`).header('Content-Length', String(end - start + 1));
      return reply.send(deps.storage.read(key, { start, end }));
    }
    reply.header('Content-Length', String(st.size));
    return reply.send(deps.storage.read(key));
  });
}
