import Fastify from 'fastify';

/** The bare Fastify baseline for bench/http.ts. */
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.argv[2] ?? 18081), host: '127.0.0.1' });
