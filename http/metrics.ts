// Metrics in the Prometheus text format (GET /metrics). Counters on the request path live in
// typed arrays made once per route at boot, so recording a request allocates nothing and takes
// no lock; everything else is read when the metrics are scraped: memory and event-loop delay
// here, and the families http/operator_metrics.ts registers (gauges, counters and histograms).
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { bucketOf, type HistogramReading } from '../engine/shard/counters.js';
import { statusLines } from './errors.js';

/** Upper bounds of the latency buckets, in seconds. */
const LATENCY_BOUNDS_S = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Every status the service answers with gets its own counter; anything else counts as "other". */
const STATUSES = Object.keys(statusLines).map(Number);
const STATUS_SLOT = new Int32Array(600).fill(STATUSES.length);
STATUSES.forEach((status, slot) => (STATUS_SLOT[status] = slot));

/** One route of one listener: answers by status and a latency histogram. */
export class RouteMetrics {
  readonly byStatus = new Float64Array(STATUSES.length + 1);
  readonly buckets = new Float64Array(LATENCY_BOUNDS_S.length + 1);
  sumS = 0;
  count = 0;

  /** `id`: its place among its Metrics' routes (how a front-end thread names it: Metrics.routeById). */
  constructor(readonly listener: string, readonly method: string, readonly path: string, readonly id = -1) {}

  /** An answer with `status` to a request that arrived at `startedMs` (performance.now()). */
  record(status: number, startedMs: number): void {
    const seconds = (performance.now() - startedMs) / 1000;
    this.byStatus[status >= 0 && status < 600 ? STATUS_SLOT[status]! : STATUSES.length]!++;
    this.buckets[bucketOf(LATENCY_BOUNDS_S, seconds)]!++;
    this.sumS += seconds;
    this.count++;
  }
}

type Labels = Record<string, string | number>;

/** A histogram family read at scrape time: one reading per label set. */
export interface Histogram {
  readonly name: string;
  readonly help: string;
  samples(): [Labels, HistogramReading][];
}

/** A metric family read at scrape time: its samples as [labels, value]. */
export interface Gauge {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
  samples(): Promise<[Labels, number][]> | [Labels, number][];
}

function labels(values: Labels): string {
  const parts = Object.entries(values).map(([key, value]) => `${key}="${String(value).replace(/["\\\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** The sample lines of one histogram: cumulative buckets, +Inf, sum and count (the buckets' total). */
function histogramLines(name: string, base: Labels, reading: HistogramReading, lines: string[]): void {
  let cumulative = 0;
  reading.bounds.forEach((bound, bucket) => {
    cumulative += reading.buckets[bucket]!;
    lines.push(`${name}_bucket${labels({ ...base, le: bound })} ${cumulative}`);
  });
  cumulative += reading.buckets[reading.bounds.length]!;
  lines.push(`${name}_bucket${labels({ ...base, le: '+Inf' })} ${cumulative}`);
  lines.push(`${name}_sum${labels(base)} ${reading.sum}`);
  lines.push(`${name}_count${labels(base)} ${cumulative}`);
}

export class Metrics {
  private readonly routes: RouteMetrics[] = [];
  private readonly byRoute = new Map<string, RouteMetrics>();
  private readonly gauges: Gauge[] = [];
  private readonly histograms: Histogram[] = [];
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.loopDelay.enable();
    this.gauge({
      name: 'clobd_process_memory_bytes', help: 'Process memory by kind (rss, heapUsed, heapTotal, external, arrayBuffers).', type: 'gauge',
      samples: () => Object.entries(process.memoryUsage()).map(([kind, bytes]) => [{ kind }, bytes]),
    });
    this.gauge({
      name: 'clobd_event_loop_delay_seconds', help: 'Event-loop delay of the front end\'s thread since the last scrape (p50, p99, max).', type: 'gauge',
      samples: () => {
        const delay = this.loopDelay;
        const samples: [Record<string, string>, number][] = delay.count === 0 ? [] : [
          [{ quantile: '0.5' }, delay.percentile(50) / 1e9], [{ quantile: '0.99' }, delay.percentile(99) / 1e9], [{ quantile: 'max' }, delay.max / 1e9],
        ];
        delay.reset();
        return samples;
      },
    });
  }

  /**
   * The counters of one route (made at boot): one set per route, however many apps serve it (the
   * main thread's and the front-end threads' stand-in: http/front_end/hub.ts).
   */
  route(listener: string, method: string, path: string): RouteMetrics {
    const key = `${listener} ${method} ${path}`;
    const known = this.byRoute.get(key);
    if (known !== undefined) return known;
    const metrics = new RouteMetrics(listener, method, path, this.routes.length);
    this.routes.push(metrics);
    this.byRoute.set(key, metrics);
    return metrics;
  }

  /** The route whose RouteMetrics.id is `id`. */
  routeById(id: number): RouteMetrics | undefined {
    return this.routes[id];
  }

  gauge(gauge: Gauge): void {
    this.gauges.push(gauge);
  }

  histogram(histogram: Histogram): void {
    this.histograms.push(histogram);
  }

  close(): void {
    this.loopDelay.disable();
  }

  /** Called before each scrape: what other threads counted comes in first (http/front_end/hub.ts). */
  beforeRender: (() => Promise<void>) | undefined = undefined;

  async render(): Promise<string> {
    await this.beforeRender?.();
    const lines: string[] = [];
    lines.push('# HELP clobd_http_requests_total Requests answered, by listener, route and status.', '# TYPE clobd_http_requests_total counter');
    for (const route of this.routes) {
      route.byStatus.forEach((count, slot) => {
        if (count === 0) return;
        const status = slot < STATUSES.length ? String(STATUSES[slot]) : 'other';
        lines.push(`clobd_http_requests_total${labels({ listener: route.listener, method: route.method, route: route.path, status })} ${count}`);
      });
    }
    lines.push('# HELP clobd_http_request_duration_seconds Time from a request\'s arrival to its answer, by listener and route.',
      '# TYPE clobd_http_request_duration_seconds histogram');
    for (const route of this.routes) {
      if (route.count === 0) continue;
      const base = { listener: route.listener, method: route.method, route: route.path };
      histogramLines('clobd_http_request_duration_seconds', base, { bounds: LATENCY_BOUNDS_S, buckets: route.buckets, sum: route.sumS }, lines);
    }
    for (const histogram of this.histograms) {
      lines.push(`# HELP ${histogram.name} ${histogram.help}`, `# TYPE ${histogram.name} histogram`);
      for (const [base, reading] of histogram.samples()) histogramLines(histogram.name, base, reading, lines);
    }
    for (const gauge of this.gauges) {
      lines.push(`# HELP ${gauge.name} ${gauge.help}`, `# TYPE ${gauge.name} ${gauge.type}`);
      for (const [values, value] of await gauge.samples()) lines.push(`${gauge.name}${labels(values)} ${value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
