import { Worker } from 'node:worker_threads';

/**
 * Renews BullMQ job locks from a worker thread. BullMQ renews locks on a timer of the main event
 * loop, and the engine's CPU work (model loading, frame loops) can hold that loop for longer than
 * the lock: the job would then be declared stalled and run twice. This thread has its own Redis
 * connection and timer, so a lock lives exactly as long as the process holding it: a busy process
 * keeps its jobs, a killed one (the thread dies with it) loses them after `lockMs`.
 *
 * It runs BullMQ's own extend-lock rule (extend only while the lock still holds our token, and take
 * the job out of the stalled set) as one Lua script, on the keys BullMQ uses:
 * `<prefix>:<queue>:<jobId>:lock` and `<prefix>:<queue>:stalled`.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const EXTEND = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]); redis.call('SREM', KEYS[2], ARGV[3]); return 1 end return 0";
import(workerData.ioredis).then(({ Redis }) => {
  const redis = new Redis(workerData.url, { maxRetriesPerRequest: 1, retryStrategy: (n) => Math.min(50 * n, 1000), connectionName: workerData.name });
  redis.on('error', () => {});
  const jobs = new Map();
  parentPort.on('message', (m) => {
    if (m.op === 'hold') jobs.set(m.jobId, m.token);
    else if (m.op === 'release') jobs.delete(m.jobId);
    else if (m.op === 'close') { clearInterval(timer); redis.disconnect(); parentPort.close(); }
  });
  const timer = setInterval(() => {
    for (const [jobId, token] of jobs) {
      redis.eval(EXTEND, 2, workerData.keyPrefix + jobId + ':lock', workerData.keyPrefix + 'stalled', token, workerData.lockMs, jobId)
        .then((ok) => { if (Number(ok) !== 1) { jobs.delete(jobId); parentPort.postMessage({ op: 'lost', jobId }); } })
        .catch(() => {});
    }
  }, workerData.everyMs);
});
`;

export class LockKeeper {
  private readonly thread: Worker;

  constructor(opts: { redisUrl: string; bullPrefix: string; queueName: string; lockMs: number; onLost?: (jobId: string) => void }) {
    this.thread = new Worker(THREAD, {
      eval: true,
      workerData: {
        ioredis: import.meta.resolve('ioredis'),
        url: opts.redisUrl,
        name: `${opts.bullPrefix}:lock-keeper`,
        keyPrefix: `${opts.bullPrefix}:${opts.queueName}:`,
        lockMs: opts.lockMs,
        // Three renewals per lock period: one late renewal (a Redis hiccup) does not lose the job.
        everyMs: Math.max(100, Math.floor(opts.lockMs / 3)),
      },
    });
    this.thread.unref();
    this.thread.on('message', (m: { op: string; jobId: string }) => {
      if (m.op === 'lost') opts.onLost?.(m.jobId);
    });
    this.thread.on('error', () => {});
  }

  hold(jobId: string, token: string): void {
    this.thread.postMessage({ op: 'hold', jobId, token });
  }

  release(jobId: string): void {
    this.thread.postMessage({ op: 'release', jobId });
  }

  async close(): Promise<void> {
    this.thread.postMessage({ op: 'close' });
    await Promise.race([new Promise((r) => this.thread.once('exit', r)), new Promise((r) => setTimeout(r, 1000).unref())]);
    await this.thread.terminate().catch(() => 0);
  }
}
