import { Worker } from 'node:worker_threads';

/**
 * Renews job leases from a worker thread (see lease-keeper.worker.ts), so that liveness is "the
 * process is alive and its main thread is not frozen", not "the main event loop happened to be free
 * at heartbeat time". The engine's CPU steps may hold the main loop for seconds; with the default
 * 6 s lease that would otherwise hand a live worker's job to another worker.
 */
export interface LeaseKeeperSetup {
  url: string;
  schema: string | null;
  leaseMs: number;
  heartbeatMs: number;
  /** The main thread pulses every heartbeat; this much silence means it is frozen (stop renewing). */
  maxSilenceMs: number;
}

export type KeeperMessage =
  { type: 'hold'; jobId: string; owner: string } | { type: 'drop'; jobId: string } | { type: 'pulse' } | { type: 'close' };
export type KeeperReply =
  | { type: 'ready' }
  | { type: 'closed' }
  | { type: 'lost'; jobId: string; cancelled: boolean }
  | { type: 'error'; jobId: string; message: string };

export class LeaseKeeper {
  private readonly worker: Worker;
  private readonly pulse: NodeJS.Timeout;
  private readonly onLost = new Map<string, (cancelled: boolean) => void>();
  private readonly ready: Promise<void>;
  private closed = false;

  constructor(setup: LeaseKeeperSetup, onError: (message: string) => void) {
    this.worker = spawn(setup);
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.on('message', (m: KeeperReply) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'lost') this.onLost.get(m.jobId)?.(m.cancelled);
        else if (m.type === 'error') onError(`lease renewal of job ${m.jobId} failed: ${m.message}`);
      });
    });
    this.worker.on('error', (e) => onError(`lease keeper thread failed: ${e.message}`));
    this.pulse = setInterval(() => this.worker.postMessage({ type: 'pulse' } satisfies KeeperMessage), setup.heartbeatMs);
    this.pulse.unref();
  }

  async start(): Promise<void> {
    await this.ready;
  }

  /** Keeps the job's lease alive until `release`; `lost` runs if the lease is refused (cancelled or taken over). */
  hold(jobId: string, owner: string, lost: (cancelled: boolean) => void): () => void {
    this.onLost.set(jobId, lost);
    this.worker.postMessage({ type: 'hold', jobId, owner } satisfies KeeperMessage);
    return () => {
      this.onLost.delete(jobId);
      if (!this.closed) this.worker.postMessage({ type: 'drop', jobId } satisfies KeeperMessage);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pulse);
    const done = new Promise<void>((resolve) => {
      this.worker.on('message', (m: KeeperReply) => m.type === 'closed' && resolve());
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage({ type: 'close' } satisfies KeeperMessage);
    await Promise.race([done, new Promise((r) => setTimeout(r, 2000).unref())]);
    await this.worker.terminate();
  }
}

function spawn(setup: LeaseKeeperSetup): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './lease-keeper.worker.ts' : './lease-keeper.worker.js', import.meta.url).href;
  if (!entry.endsWith('.ts')) return new Worker(new URL(entry), { workerData: setup });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: setup });
}
