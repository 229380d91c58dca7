/**
 * One-Euro filter (Casiez, Roussel, Vogel, CHI 2012): a low-pass filter whose cutoff rises with speed,
 * so slow jitter is removed while fast moves keep little lag.
 *
 * Units: time in seconds, cutoffs in Hz, `beta` in 1/(value units) — callers normalise coordinates
 * (e.g. by the frame's long side) so one set of parameters fits every resolution.
 */
export interface OneEuroParams {
  /** Cutoff at rest, Hz. Lower removes more jitter and adds more lag on slow moves. */
  minCutoff: number;
  /** How fast the cutoff grows with speed. */
  beta: number;
  /** Cutoff of the speed estimate, Hz. */
  dCutoff: number;
}

export const DEFAULT_ONE_EURO: OneEuroParams = { minCutoff: 1.5, beta: 4, dCutoff: 1 };

function alpha(cutoff: number, dt: number): number {
  const tau = 1 / (2 * Math.PI * cutoff);
  return 1 / (1 + tau / dt);
}

export class OneEuroFilter {
  private prevX: number | null = null;
  private prevDx = 0;
  private prevT = 0;
  constructor(private readonly params: OneEuroParams = DEFAULT_ONE_EURO) {}

  filter(x: number, t: number): number {
    if (this.prevX === null) {
      this.prevX = x;
      this.prevT = t;
      return x;
    }
    const dt = t - this.prevT;
    if (dt <= 0) return this.prevX;
    const dx = (x - this.prevX) / dt;
    const dxHat = this.prevDx + alpha(this.params.dCutoff, dt) * (dx - this.prevDx);
    const cutoff = this.params.minCutoff + this.params.beta * Math.abs(dxHat);
    const xHat = this.prevX + alpha(cutoff, dt) * (x - this.prevX);
    this.prevX = xHat;
    this.prevDx = dxHat;
    this.prevT = t;
    return xHat;
  }
}
