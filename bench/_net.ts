import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago (the OS picks it): benches start servers in child
 * processes on the shared machine, where fixed ports collide with other people's runs.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
