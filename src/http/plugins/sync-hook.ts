import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * A request hook whose work is synchronous, registered in Fastify's callback form: an `async` hook
 * costs every request a promise and a trip through the microtask queue even when it does nothing
 * (most of ours return at once for a GET). A thrown error goes to Fastify as the hook's error; the
 * next hook is called outside the try, so its errors are not caught here.
 */
export function syncHook(
  fn: (request: FastifyRequest, reply: FastifyReply) => void,
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (request, reply, done) => {
    try {
      fn(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  };
}
