/**
 * Turns an engine's fine-grained progress callbacks into few state writes: one on a stage change,
 * on a step of `minStep` percent, or after `minIntervalMs` of smaller moves. Each write is a
 * transaction plus a stored event and an SSE frame per watcher, so a 300-frame render reports a
 * few dozen times, not 300. Writes run one at a time in call order; when one is in flight only the
 * newest pending value is kept.
 */
export class ProgressReporter<S extends string> {
  private lastStage: S | null = null;
  private lastPercent = -1;
  private lastAt = 0;
  private pending: { stage: S; percent: number } | null = null;
  private chain: Promise<void> = Promise.resolve();
  private writing = false;
  private failure: unknown = null;

  constructor(
    private readonly write: (stage: S, percent: number) => Promise<unknown>,
    private readonly opts: { minIntervalMs: number; minStep: number } = { minIntervalMs: 500, minStep: 5 },
  ) {}

  report(stage: S, percent: number): void {
    const p = Math.max(0, Math.min(100, Math.floor(percent)));
    const now = Date.now();
    const due =
      stage !== this.lastStage ||
      p - this.lastPercent >= this.opts.minStep ||
      (p !== this.lastPercent && now - this.lastAt >= this.opts.minIntervalMs);
    if (!due) return;
    this.lastStage = stage;
    this.lastPercent = p;
    this.lastAt = now;
    this.pending = { stage, percent: p };
    if (!this.writing) this.drain();
  }

  private drain(): void {
    this.writing = true;
    this.chain = (async () => {
      while (this.pending) {
        const next = this.pending;
        this.pending = null;
        try {
          await this.write(next.stage, next.percent);
        } catch (e) {
          this.failure ??= e;
        }
      }
      this.writing = false;
    })();
  }

  /** Waits for every reported value to be written; rethrows the first write failure. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
