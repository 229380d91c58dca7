import type { FastifyInstance } from 'fastify';
import type { FilesService, Services } from '../../domain/services.js';
import type { Readable } from 'node:stream';
import { AppError } from '../../contracts/errors.js';

/**
 * Signed object reads for disk storage (`GET /files/<key>?expires&sig`). The signature is the
 * credential, so these URLs work without an Authorization header, as output URLs must. Supports
 * single byte ranges so players can seek. Draft uploads arrive as signed PUTs on the same paths.
 */
export async function filesRoutes(app: FastifyInstance, { files }: Pick<Services, 'files'>): Promise<void> {
  await app.register(async (scope) => uploadRoute(scope, files));
  app.get<{ Params: { '*': string }; Querystring: { expires?: string; sig?: string; name?: string } }>(
    '/files/*',
    async (request, reply) => {
      const key = objectKey(request.params['*']);
      const exp = Number(request.query.expires);
      const sig = request.query.sig ?? '';
      const verdict = Number.isInteger(exp) ? files.verify('GET', key, exp, sig) : 'invalid';
      if (verdict !== 'ok') {
        throw new AppError(
          'FORBIDDEN',
          verdict === 'expired' ? 'This URL has expired; read the resource again for a fresh one.' : 'Invalid URL signature.',
          {
            details: { reason: verdict },
          },
        );
      }
      const st = await files.stat(key);
      if (!st) throw new AppError('INVALID_REQUEST', 'No such object.', { status: 404 });
      const type = key.endsWith('.mp4')
        ? 'video/mp4'
        : key.endsWith('.png')
          ? 'image/png'
          : key.endsWith('.json')
            ? 'application/json'
            : key.endsWith('.glb')
              ? 'model/gltf-binary'
              : 'application/octet-stream';
      reply.header('Accept-Ranges', 'bytes').header('Cache-Control', 'private, max-age=3600').type(type);
      if (request.query.name)
        reply.header('Content-Disposition', `attachment; filename="${request.query.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
      const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
      if (range && st.size > 0 && (range[1] !== '' || range[2] !== '')) {
        let start = range[1] === '' ? st.size - Number(range[2]) : Number(range[1]);
        let end = range[1] === '' || range[2] === '' ? st.size - 1 : Math.min(Number(range[2]), st.size - 1);
        start = Math.max(0, start);
        if (start > end || start >= st.size) {
          return reply.code(416).header('Content-Range', `bytes */${st.size}`).send();
        }
        end = Math.min(end, st.size - 1);
        reply
          .code(206)
          .header('Content-Range', `bytes ${start}-${end}/${st.size}`)
          .header('Content-Length', String(end - start + 1));
        return reply.send(files.read(key, { start, end }));
      }
      reply.header('Content-Length', String(st.size));
      return reply.send(files.read(key));
    },
  );
}

/** The key a URL names; a malformed escape names no object, so its signature cannot match either. */
function objectKey(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('FORBIDDEN', 'Invalid URL signature.', { details: { reason: 'invalid' } });
  }
}

/**
 * `PUT /files/<key>?expires&sig`: the upload half of a draft (the stand-in for a presigned storage
 * URL). Lives in its own encapsulated scope whose only body parser hands the raw request stream
 * through, so Fastify never buffers a (possibly 200 MB) body and no size limit but the declared
 * one applies.
 */
async function uploadRoute(scope: FastifyInstance, files: FilesService): Promise<void> {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { bodyLimit: Number.MAX_SAFE_INTEGER }, (_request, payload, done) => done(null, payload));
  // A refusal sent before the body was read (bad signature, wrong size...) closes the connection
  // rather than reading and discarding up to 200 MB the client is still sending.
  scope.addHook('onSend', async (request, reply) => {
    if (reply.statusCode >= 400 && !request.raw.complete) reply.header('Connection', 'close');
  });
  scope.put<{ Params: { '*': string }; Querystring: { expires?: string; sig?: string } }>(
    '/files/*',
    { bodyLimit: Number.MAX_SAFE_INTEGER },
    async (request) => {
      const key = objectKey(request.params['*']);
      const exp = Number(request.query.expires);
      const verdict = Number.isInteger(exp) ? files.verify('PUT', key, exp, request.query.sig ?? '') : 'invalid';
      if (verdict === 'expired') {
        throw new AppError('UPLOAD_EXPIRED', 'This upload URL has expired; prepare a new draft.', {
          details: { expired_at: new Date(exp * 1000).toISOString() },
        });
      }
      if (verdict !== 'ok') throw new AppError('FORBIDDEN', 'Invalid upload URL signature.', { details: { reason: verdict } });
      const length = request.headers['content-length'];
      const body = (request.body as Readable | undefined) ?? request.raw;
      return files.acceptUpload(key, body, length === undefined ? null : Number(length));
    },
  );
}
