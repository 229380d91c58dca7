/**
 * The metrics port: where handlers, the queue and the HTTP layer record measurements. The adapter
 * is the process's Prometheus registry (src/infra/metrics/metrics.ts), rendered at `/metrics` by
 * the API and by a worker's health port. Names are fixed here so a typo cannot create a series.
 */
export type HistogramName =
  /** HTTP request latency, labels method, route (the route pattern), status. */
  | 'marionette_http_request_duration_seconds'
  /** A job run's wall time, labels type, outcome. */
  | 'marionette_job_duration_seconds'
  /** Frames rendered per second of wall time, one observation per render. */
  | 'marionette_render_fps';

export interface MetricsRecorder {
  observe(name: HistogramName, labels: Record<string, string>, value: number): void;
}
