/**
 * A small Prometheus registry (text exposition format 0.0.4): counters, gauges read at scrape time,
 * and histograms with fixed buckets. One per process; `/metrics` on the API (and on a worker's
 * health port) renders it. Label values are escaped; metric and label names are fixed in code.
 */
import type { HistogramName, MetricsRecorder } from '../../domain/ports/metrics.js';

type Labels = Record<string, string>;

interface Histogram {
  help: string;
  buckets: number[];
  series: Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>;
}

export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const JOB_SECONDS_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
export const FPS_BUCKETS = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120];

export class Metrics implements MetricsRecorder {
  private readonly histograms = new Map<string, Histogram>();
  private readonly counters = new Map<string, { help: string; series: Map<string, { labels: Labels; value: number }> }>();
  private readonly gauges = new Map<string, { help: string; read: () => Promise<{ labels: Labels; value: number }[]> }>();

  histogram(name: HistogramName, help: string, buckets: number[]): void {
    if (!this.histograms.has(name)) this.histograms.set(name, { help, buckets, series: new Map() });
  }

  observe(name: HistogramName, labels: Labels, value: number): void {
    const h = this.histograms.get(name);
    if (!h || !Number.isFinite(value)) return;
    const key = labelKey(labels);
    let s = h.series.get(key);
    if (!s) {
      s = { labels, counts: h.buckets.map(() => 0), sum: 0, count: 0 };
      h.series.set(key, s);
    }
    for (let i = 0; i < h.buckets.length; i++) if (value <= h.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  inc(name: string, help: string, labels: Labels = {}, by = 1): void {
    let c = this.counters.get(name);
    if (!c) {
      c = { help, series: new Map() };
      this.counters.set(name, c);
    }
    const key = labelKey(labels);
    const s = c.series.get(key) ?? { labels, value: 0 };
    s.value += by;
    c.series.set(key, s);
  }

  /** A gauge computed when scraped (queue depth from the database, open streams...). */
  gauge(name: string, help: string, read: () => Promise<{ labels: Labels; value: number }[]>): void {
    this.gauges.set(name, { help, read });
  }

  async render(): Promise<string> {
    const out: string[] = [];
    for (const [name, g] of this.gauges) {
      out.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`);
      try {
        for (const s of await g.read()) out.push(`${name}${fmt(s.labels)} ${s.value}`);
      } catch {
        // A gauge whose source is down is left out of this scrape.
      }
    }
    for (const [name, c] of this.counters) {
      out.push(`# HELP ${name} ${c.help}`, `# TYPE ${name} counter`);
      for (const s of c.series.values()) out.push(`${name}${fmt(s.labels)} ${s.value}`);
    }
    for (const [name, h] of this.histograms) {
      out.push(`# HELP ${name} ${h.help}`, `# TYPE ${name} histogram`);
      for (const s of h.series.values()) {
        h.buckets.forEach((b, i) => out.push(`${name}_bucket${fmt({ ...s.labels, le: String(b) })} ${s.counts[i]}`));
        out.push(
          `${name}_bucket${fmt({ ...s.labels, le: '+Inf' })} ${s.count}`,
          `${name}_sum${fmt(s.labels)} ${s.sum}`,
          `${name}_count${fmt(s.labels)} ${s.count}`,
        );
      }
    }
    return out.join('\n') + '\n';
  }
}

// A caller that observes with the same labels object again (the HTTP latency hook keeps one per
// method, route and status) skips building its key: this runs on every request.
const keyOf = new WeakMap<Labels, string>();

function labelKey(labels: Labels): string {
  let key = keyOf.get(labels);
  if (key === undefined) {
    key = buildLabelKey(labels);
    keyOf.set(labels, key);
  }
  return key;
}

function buildLabelKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

function fmt(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

/** The service's standard metrics, registered once per process. */
export function serviceMetrics(): Metrics {
  const m = new Metrics();
  m.histogram('marionette_http_request_duration_seconds', 'HTTP request latency by method, route and status.', SECONDS_BUCKETS);
  m.histogram('marionette_job_duration_seconds', 'Job run time by type and outcome.', JOB_SECONDS_BUCKETS);
  m.histogram('marionette_render_fps', 'Frames rendered per second of wall time, per render.', FPS_BUCKETS);
  return m;
}
